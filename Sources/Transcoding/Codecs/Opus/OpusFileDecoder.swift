import BinaryIO
import CAFKit
import OggOpus
import Opus
import SystemLayer

/// An Opus CAF or Ogg Opus stream decoded by libopus's reference decoder: CAFKit reads the `pakt`
/// sizes and hands out the packets (or the Ogg reader its pages' packets), libopus decodes them at
/// the `desc` rate (Ogg: 48 kHz, the granule rate), the priming frames (`pakt` priming, Ogg's
/// pre-skip) are dropped and the output stops after the valid frames (the `pakt`'s, Ogg's last
/// granule position less the pre-skip). Every count the file states is checked against the file
/// before it is used.
package final class OpusFileDecoder {
    package let channels: Int
    package let sampleRate: Int
    /// The valid frames the `pakt` declares.
    package let validFrames: Int64
    /// The priming frames the `pakt` declares (dropped).
    package let primingFrames: Int64
    /// Frames per packet (`desc`).
    package let framesPerPacket: Int
    /// The `kuki`, when the file has Apple's.
    package let cookie: OpusCookie?
    /// ffmpeg's native encoder's CAF (``measuredByTOC(_:source:rate:declared:)``): the frames its
    /// packets' TOC bytes add up to, decoded as the valid frames in place of the `pakt`'s; `nil`
    /// for any other file.
    package let tocFrames: Int64?
    /// Where the packets come from.
    private var packets: OpusPackets
    /// Every packet holds `framesPerPacket` frames (CAF); Ogg's packets may vary.
    private let fixedDuration: Bool
    /// The `OpusHead` output gain as a factor (1 for CAF).
    private let gain: Float
    private let decoder: OpusDecoder
    private var buffer: [Float] = []
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toDrop: Int64
    package private(set) var framesOut: Int64 = 0
    /// Every frame libopus decoded, priming included.
    package private(set) var decodedFrames: Int64 = 0
    /// Hybrid packets decoded so far (TOC configurations 12-15: SILK below 8 kHz, CELT above).
    package private(set) var hybridPackets: Int64 = 0

    /// Opens the Opus CAF `file` read from `source`; throws a sentence saying why it cannot be
    /// decoded (not Opus, a rate or channel count Opus has not, a `kuki` or `pakt` that
    /// disagrees with the file, libopus missing).
    package init(file: CAFFile, source: any ByteSource) throws(OpusFormatError) {
        let desc = file.audioDescription
        guard desc.formatID == .opus else { throw OpusFormatError("its audio is '\(desc.formatID)', not Opus") }
        guard desc.sampleRate.isFinite, let rate = Int(exactly: desc.sampleRate), LibOpus.sampleRates.contains(rate) else {
            throw OpusFormatError(
                "its 'desc' declares \(desc.sampleRate) Hz, not a rate Opus codes at (8000, 12000, 16000, 24000, 48000)")
        }
        guard desc.channelsPerFrame == 1 || desc.channelsPerFrame == 2 else {
            throw OpusFormatError("its 'desc' declares \(desc.channelsPerFrame) channels; cafconv decodes Opus CAFs of 1 or 2")
        }
        // 2.5 ms to 120 ms: the durations an Opus packet can have.
        let framesPerPacket = Int(desc.framesPerPacket)
        guard framesPerPacket >= rate / 400, framesPerPacket <= rate * 120 / 1000 else {
            throw OpusFormatError("its 'desc' declares \(framesPerPacket) frames per packet, not 2.5 to 120 ms at \(rate) Hz")
        }
        var cookie: OpusCookie?
        if let kuki = file.chunks.first(where: { $0.type == .kuki }) {
            guard kuki.size == UInt64(OpusCookie.size), kuki.bodyOffset + kuki.size <= source.length else {
                throw OpusFormatError(
                    "its 'kuki' chunk is \(kuki.size) bytes or runs past the end of the file, not Apple's \(OpusCookie.size)-byte Opus cookie"
                )
            }
            let bytes: [UInt8]
            do { bytes = try source.readExactly(at: kuki.bodyOffset, count: OpusCookie.size) } catch {
                throw OpusFormatError("cannot read its 'kuki' chunk: \(error)")
            }
            let parsed = try OpusCookie(parsing: bytes)
            guard Int(parsed.sampleRate) == rate, Int(parsed.channels) == Int(desc.channelsPerFrame),
                Int(parsed.framesPerPacket) == framesPerPacket
            else {
                throw OpusFormatError(
                    "its 'kuki' says \(parsed.sampleRate) Hz, \(parsed.channels) channels, \(parsed.framesPerPacket) frames per packet; its 'desc' \(rate) Hz, \(desc.channelsPerFrame), \(framesPerPacket)"
                )
            }
            cookie = parsed
        }
        packets = try OpusPackets(caf: file, source: source)
        guard let header = file.packetTableHeader, header.numberValidFrames >= 0, header.primingFrames >= 0,
            header.remainderFrames >= 0
        else { throw OpusFormatError("its 'pakt' header has negative frame counts") }
        guard UInt64(header.numberPackets) <= file.audioBytes else {
            throw OpusFormatError(
                "its 'pakt' announces \(header.numberPackets) packets, more than the \(file.audioBytes) bytes of its 'data' chunk can hold"
            )
        }
        let (capacity, overflow) = header.numberPackets.multipliedReportingOverflow(by: Int64(framesPerPacket))
        let (declared, tooMany) = header.numberValidFrames.addingReportingOverflow(Int64(header.primingFrames))
        guard !overflow, !tooMany, declared <= capacity else {
            throw OpusFormatError(
                "its 'pakt' declares \(header.primingFrames) priming + \(header.numberValidFrames) valid frames, more than its \(header.numberPackets) packets of \(framesPerPacket) frames hold"
            )
        }
        do { decoder = try OpusDecoder(sampleRate: rate, channels: Int(desc.channelsPerFrame)) } catch {
            throw OpusFormatError(error.message)
        }
        tocFrames = try Self.measuredByTOC(file, source: source, rate: rate, declared: capacity)
        channels = Int(desc.channelsPerFrame)
        sampleRate = rate
        validFrames = tocFrames ?? header.numberValidFrames
        primingFrames = Int64(header.primingFrames)
        self.framesPerPacket = framesPerPacket
        self.cookie = cookie
        toDrop = primingFrames
        fixedDuration = tocFrames == nil
        gain = 1
    }

    /// ffmpeg's native Opus encoder (`-strict -2 -c:a opus`) writes a CAF in ffmpeg's layout (no
    /// `kuki`, no priming, valid frames = packets x `desc` frames per packet:
    /// ``OpusSourceRoute/untrusted(_:)``) whose `desc` says 120 frames per packet while its packets'
    /// TOC bytes say 960. For such a file, the frames the TOCs add up to (a pass over the packets,
    /// nothing decoded) when they differ from `declared` (the packets x `desc` count): the file is
    /// decoded by its packets' durations. `nil` for any other file: with a `kuki` (Apple's,
    /// cafconv's) every packet must hold the `desc` frames.
    static func measuredByTOC(_ file: CAFFile, source: any ByteSource, rate: Int, declared: Int64) throws(OpusFormatError)
        -> Int64?
    {
        guard OpusSourceRoute.untrusted(file) else { return nil }
        var packets = try OpusPackets(caf: file, source: source)
        var total: Int64 = 0
        while let (bytes, _) = try packets.next() {
            guard let frames = bytes.withUnsafeBytes({ LibOpus.frames(inPacket: $0, sampleRate: rate) }) else {
                throw OpusFormatError("packet \(packets.packetsRead - 1) has no valid Opus TOC byte")
            }
            total += Int64(frames)
        }
        return total == declared ? nil : total
    }

    /// Opens the Ogg Opus stream in `source` (one logical stream, mapping family 0: chained,
    /// multiplexed and multistream files are refused by the reader): a first pass reads every
    /// page (CRC-checked, no decoding) for the accounting, the second decodes. The `OpusHead`
    /// output gain is applied, as RFC 7845 section 5.1 asks of players.
    package init(ogg source: any ByteSource) throws(OpusFormatError) {
        var scan: OggOpusReader
        let accounting: OggOpusReader.Accounting
        do {
            scan = try OggOpusReader(source: source)
            while try scan.next() != nil {}
            accounting = try scan.accounting(maximumTrim: 5760)
        } catch {
            throw OpusFormatError(error.message)
        }
        packets = try OpusPackets(ogg: source)
        channels = scan.head.channels
        do { decoder = try OpusDecoder(sampleRate: 48_000, channels: channels) } catch { throw OpusFormatError(error.message) }
        sampleRate = 48_000
        validFrames = accounting.validFrames
        primingFrames = accounting.priming
        framesPerPacket = 960
        cookie = nil
        tocFrames = nil
        toDrop = primingFrames
        fixedDuration = false
        gain = Float(pow(10, Double(scan.head.outputGain) / 256 / 20))
    }

    /// Reads up to `frames` frames (interleaved floats) into `output` (resized as needed); 0 at
    /// the end of the valid frames. Throws when a packet cannot be read or decoded, or when the
    /// packets decode to fewer frames than the `pakt` declares.
    package func read(into output: inout [Float], frames: Int) throws(OpusFormatError) -> Int {
        let wanted = Int(min(Int64(max(frames, 0)), validFrames - framesOut))
        guard wanted > 0 else { return 0 }
        while (pending.count - pendingStart) / channels < wanted, try decodeNext() {}
        let got = min(wanted, (pending.count - pendingStart) / channels)
        if output.count < got * channels { output = [Float](repeating: 0, count: got * channels) }
        let start = pendingStart
        output.withUnsafeMutableBufferPointer { output in
            pending.withUnsafeBufferPointer { pending in
                _ = output.update(fromContentsOf: pending[start..<(start + got * channels)])
            }
        }
        pendingStart += got * channels
        framesOut += Int64(got)
        if pendingStart > 1 << 16 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        if got < wanted {
            throw OpusFormatError(
                "its \(packetCount) packets decode to \(decodedFrames) frames, but its 'pakt' declares \(primingFrames) priming + \(validFrames) valid frames"
            )
        }
        return got
    }

    /// The packets read so far.
    private var packetCount: Int64 { packets.packetCount }

    /// Decodes the next packet into `pending`; `false` after the last.
    private func decodeNext() throws(OpusFormatError) -> Bool {
        guard let (bytes, _) = try packets.next() else { return false }
        let index = packets.packetsRead - 1
        if let toc = bytes.first, (12...15).contains(toc >> 3) { hybridPackets += 1 }
        var decoded: Result<Int, OpusError> = .success(0)
        bytes.withUnsafeBytes { raw in
            do throws(OpusError) { decoded = .success(try decoder.decode(raw, into: &buffer)) } catch {
                decoded = .failure(error)
            }
        }
        var frames: Int
        switch decoded {
        case .success(let count): frames = count
        case .failure(let error): throw OpusFormatError("packet \(index): \(error.message)")
        }
        guard frames == framesPerPacket || !fixedDuration else {
            throw OpusFormatError(
                "packet \(index) holds \(frames) frames, the file's 'desc' declares \(framesPerPacket) frames per packet")
        }
        decodedFrames += Int64(frames)
        var start = 0
        if toDrop > 0 {
            let dropped = Int(min(toDrop, Int64(frames)))
            toDrop -= Int64(dropped)
            start = dropped * channels
            frames -= dropped
        }
        if frames > 0 {
            if gain == 1 {
                pending.append(contentsOf: buffer[start..<(start + frames * channels)])
            } else {
                for index in start..<(start + frames * channels) { pending.append(buffer[index] * gain) }
            }
        }
        return true
    }
}

extension OpusFileDecoder: LossyFileDecoder {
    package var codecName: String { "Opus" }
    package var decoderName: String { String(LibOpus.version.map { $0 == " " ? "-" : $0 }) }

    /// libopus aligns CELT and SILK-only packets exactly with its input once the look-ahead is
    /// dropped (peak at lag 0), but in hybrid packets the SILK layer's resamplers are not linear
    /// phase: the band below 8 kHz comes out about 30-40 µs early (1.5 frames at 48 kHz, 1 at
    /// 24 kHz, measured on libopus 1.3.1 with tone bursts, docs/opus.md), so a source whose energy
    /// sits there peaks at lag -1 or -2. Once a hybrid packet was decoded the peak may fall within
    /// 2 frames at 48 kHz (1 at 24 kHz); otherwise it must be at 0. The priming itself is checked
    /// exactly (the `pakt` against the encoder's look-ahead), so this widens only the waveform
    /// check, by less than one Opus packet's 2.5 ms shortest frame.
    package var lagTolerance: Int { hybridPackets > 0 ? sampleRate / 24_000 : 0 }

    package func readFloats(into output: inout [Float], frames: Int) throws(SourceError) -> Int {
        do { return try read(into: &output, frames: frames) } catch { throw SourceError(error.message) }
    }
}
