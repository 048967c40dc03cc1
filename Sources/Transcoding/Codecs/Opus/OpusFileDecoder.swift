import BinaryIO
import CAFKit
import Opus

/// An Opus CAF decoded by libopus's reference decoder: CAFKit reads the `pakt` sizes and hands out
/// the packets, libopus decodes them at the `desc` rate, the `pakt` priming frames are dropped and
/// the output stops after the valid frames. Every count the file states is checked against the
/// file before it is used.
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
    private let source: any ByteSource
    private var packets: CAFPacketReader
    private let decoder: OpusDecoder
    private var buffer: [Float] = []
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toDrop: Int64
    package private(set) var framesOut: Int64 = 0
    /// Every frame libopus decoded, priming included.
    package private(set) var decodedFrames: Int64 = 0

    /// Opens the Opus CAF `file` read from `source`; throws a sentence saying why it cannot be
    /// decoded (not Opus, a rate or channel count Opus has not, a `kuki` or `pakt` that
    /// disagrees with the file, libopus missing).
    package init(file: CAFFile, source: any ByteSource) throws(OpusFormatError) {
        let desc = file.audioDescription
        guard desc.formatID == .opus else { throw OpusFormatError("its audio is '\(desc.formatID)', not Opus") }
        guard desc.sampleRate.isFinite, let rate = Int(exactly: desc.sampleRate), LibOpus.sampleRates.contains(rate) else {
            throw OpusFormatError("its 'desc' declares \(desc.sampleRate) Hz, not a rate Opus codes at (8000, 12000, 16000, 24000, 48000)")
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
                throw OpusFormatError("its 'kuki' chunk is \(kuki.size) bytes or runs past the end of the file, not Apple's \(OpusCookie.size)-byte Opus cookie")
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
                    "its 'kuki' says \(parsed.sampleRate) Hz, \(parsed.channels) channels, \(parsed.framesPerPacket) frames per packet; its 'desc' \(rate) Hz, \(desc.channelsPerFrame), \(framesPerPacket)")
            }
            cookie = parsed
        }
        do { packets = try CAFPacketReader(file: file, source: source) } catch { throw OpusFormatError(error.message) }
        guard let header = file.packetTableHeader, header.numberValidFrames >= 0, header.primingFrames >= 0,
            header.remainderFrames >= 0
        else { throw OpusFormatError("its 'pakt' header has negative frame counts") }
        guard UInt64(header.numberPackets) <= file.audioBytes else {
            throw OpusFormatError(
                "its 'pakt' announces \(header.numberPackets) packets, more than the \(file.audioBytes) bytes of its 'data' chunk can hold")
        }
        let (capacity, overflow) = header.numberPackets.multipliedReportingOverflow(by: Int64(framesPerPacket))
        let (declared, tooMany) = header.numberValidFrames.addingReportingOverflow(Int64(header.primingFrames))
        guard !overflow, !tooMany, declared <= capacity else {
            throw OpusFormatError(
                "its 'pakt' declares \(header.primingFrames) priming + \(header.numberValidFrames) valid frames, more than its \(header.numberPackets) packets of \(framesPerPacket) frames hold")
        }
        do { decoder = try OpusDecoder(sampleRate: rate, channels: Int(desc.channelsPerFrame)) } catch {
            throw OpusFormatError(error.message)
        }
        channels = Int(desc.channelsPerFrame)
        sampleRate = rate
        validFrames = header.numberValidFrames
        primingFrames = Int64(header.primingFrames)
        self.framesPerPacket = framesPerPacket
        self.cookie = cookie
        toDrop = primingFrames
        self.source = source
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
        for index in 0..<(got * channels) { output[index] = pending[pendingStart + index] }
        pendingStart += got * channels
        framesOut += Int64(got)
        if pendingStart > 1 << 16 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        if got < wanted {
            throw OpusFormatError(
                "its \(packets.packetCount) packets decode to \(decodedFrames) frames, but its 'pakt' declares \(primingFrames) priming + \(validFrames) valid frames")
        }
        return got
    }

    /// Decodes the next packet into `pending`; `false` after the last.
    private func decodeNext() throws(OpusFormatError) -> Bool {
        let next: (offset: UInt64, size: Int)?
        do { next = try packets.next() } catch { throw OpusFormatError(error.message) }
        guard let packet = next else { return false }
        let index = packets.packetsRead - 1
        let bytes: [UInt8]
        do { bytes = try source.readExactly(at: packet.offset, count: packet.size) } catch {
            throw OpusFormatError("cannot read packet \(index): \(error)")
        }
        var decoded: Result<Int, OpusError> = .success(0)
        bytes.withUnsafeBytes { raw in
            do throws(OpusError) { decoded = .success(try decoder.decode(raw, into: &buffer)) } catch { decoded = .failure(error) }
        }
        var frames: Int
        switch decoded {
        case .success(let count): frames = count
        case .failure(let error): throw OpusFormatError("packet \(index): \(error.message)")
        }
        guard frames == framesPerPacket else {
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
        if frames > 0 { pending.append(contentsOf: buffer[start..<(start + frames * channels)]) }
        return true
    }
}
