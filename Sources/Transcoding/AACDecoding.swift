import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer

/// An AAC CAF decoded frame by frame: CAFKit finds the packets (`pakt`) and the
/// AudioSpecificConfig (`kuki`), libavcodec decodes them; the `pakt` priming frames are dropped
/// and the output stops at its valid frames, so what comes out is the audio the file declares.
/// Memory is bounded: the packet table is read a window at a time, one packet is decoded at a time.
package final class AACFileDecoder {
    package let channels: Int
    package let sampleRate: Int
    /// The valid frames the `pakt` declares.
    package let validFrames: Int64
    /// The priming frames the `pakt` declares (dropped).
    package let primingFrames: Int64
    /// Frames per packet (`desc`).
    package let framesPerPacket: Int
    /// The next packet's bytes, `nil` after the last.
    private let nextPacket: () throws(AACFormatError) -> [UInt8]?
    /// Packets the container declares (for messages).
    private let packetCount: Int64
    private var packetsRead: Int64 = 0
    private let decoder: AACDecoder
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toDrop: Int64
    package private(set) var framesOut: Int64 = 0
    /// Every frame libavcodec decoded, priming included.
    package private(set) var decodedFrames: Int64 = 0
    private var finished = false

    /// The AAC format IDs cafconv decodes: AAC (LC and the others libavcodec decodes) and AAC-LD.
    package static let formatIDs: Set<FourCC> = [.aac, FourCC("aacl")]

    /// Opens the AAC CAF `file` read from `source`; throws a sentence saying why it cannot be
    /// decoded (not AAC, no usable `kuki` or `pakt`, libavcodec missing).
    package convenience init(file: CAFFile, source: any ByteSource) throws(AACFormatError) {
        let desc = file.audioDescription
        guard Self.formatIDs.contains(desc.formatID) else {
            throw AACFormatError("its audio is '\(desc.formatID)', not AAC")
        }
        guard desc.channelsPerFrame > 0, desc.channelsPerFrame <= 64 else {
            throw AACFormatError("its 'desc' declares \(desc.channelsPerFrame) channels")
        }
        guard desc.sampleRate.isFinite, desc.sampleRate >= 1, desc.sampleRate <= 1_000_000,
            desc.sampleRate == desc.sampleRate.rounded()
        else {
            throw AACFormatError("its 'desc' declares a sample rate of \(desc.sampleRate) Hz")
        }
        guard let kuki = file.chunks.first(where: { $0.type == .kuki }) else {
            throw AACFormatError("it has no 'kuki' chunk, so its AudioSpecificConfig is unknown")
        }
        guard kuki.size <= 1 << 16, kuki.bodyOffset + kuki.size <= source.length else {
            throw AACFormatError("its 'kuki' chunk of \(kuki.size) bytes is too large or runs past the end of the file")
        }
        let cookieBytes: [UInt8]
        do { cookieBytes = try source.readExactly(at: kuki.bodyOffset, count: Int(kuki.size)) } catch {
            throw AACFormatError("cannot read its 'kuki' chunk: \(error)")
        }
        let cookie = try MPEG4ESDescriptor(parsing: cookieBytes)
        try Self.check(cookie.audioSpecificConfig, against: desc)
        var reader = try CAFPacketReader(file: file, source: source)
        guard let header = file.packetTableHeader, header.numberValidFrames >= 0, header.primingFrames >= 0,
            header.remainderFrames >= 0
        else {
            throw AACFormatError("its 'pakt' header has negative frame counts")
        }
        // Never trust the counts before checking them against the file: every packet takes at
        // least one byte of the 'data' chunk, and the valid frames fit in the packets.
        guard UInt64(header.numberPackets) <= file.audioBytes else {
            throw AACFormatError(
                "its 'pakt' announces \(header.numberPackets) packets, more than the \(file.audioBytes) bytes of its 'data' chunk can hold")
        }
        let (capacity, overflow) = header.numberPackets.multipliedReportingOverflow(by: Int64(desc.framesPerPacket))
        let (declared, tooMany) = header.numberValidFrames.addingReportingOverflow(Int64(header.primingFrames))
        guard !overflow, !tooMany, declared <= capacity else {
            throw AACFormatError(
                "its 'pakt' declares \(header.primingFrames) priming + \(header.numberValidFrames) valid frames, more than its \(header.numberPackets) packets of \(desc.framesPerPacket) frames hold")
        }
        let next = { () throws(AACFormatError) -> [UInt8]? in
            guard let packet = try reader.next() else { return nil }
            do { return try source.readExactly(at: packet.offset, count: packet.size) } catch {
                throw AACFormatError("cannot read packet \(reader.packetsRead - 1): \(error)")
            }
        }
        try self.init(
            packets: next, count: header.numberPackets, config: cookie.audioSpecificConfig,
            sampleRate: Int(desc.sampleRate), channels: Int(desc.channelsPerFrame), framesPerPacket: Int(desc.framesPerPacket),
            priming: Int64(header.primingFrames), validFrames: header.numberValidFrames)
    }

    /// A decoder of the packets `packets` hands out (`count` of them, for messages), whose
    /// AudioSpecificConfig is `config`: the first `priming` frames dropped, `validFrames` kept.
    package init(
        packets: @escaping () throws(AACFormatError) -> [UInt8]?, count: Int64, config: [UInt8], sampleRate: Int,
        channels: Int, framesPerPacket: Int, priming: Int64, validFrames: Int64
    ) throws(AACFormatError) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.validFrames = validFrames
        primingFrames = priming
        self.framesPerPacket = framesPerPacket
        toDrop = priming
        nextPacket = packets
        packetCount = count
        do {
            decoder = try AACDecoder(config: config, sampleRate: sampleRate, channels: channels)
        } catch {
            throw AACFormatError(error.message)
        }
    }

    /// The MPEG-4 sampling frequency table (ISO/IEC 14496-3, 1.6.3.4).
    package static let frequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Checks the AudioSpecificConfig's object type, rate and channel configuration against `desc`:
    /// explicitly signalled SBR or PS (HE-AAC) is refused, and a rate or channel count that
    /// disagrees with `desc` is refused naming both.
    package static func check(_ asc: [UInt8], against desc: AudioDescription) throws(AACFormatError) {
        var bit = 0
        func read(_ count: Int) throws(AACFormatError) -> Int {
            var value = 0
            for _ in 0..<count {
                guard bit / 8 < asc.count else { throw AACFormatError("its AudioSpecificConfig is cut short") }
                value = value << 1 | Int(asc[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
                bit += 1
            }
            return value
        }
        func objectType() throws(AACFormatError) -> Int {
            let type = try read(5)
            return type == 31 ? 32 + (try read(6)) : type
        }
        func frequency() throws(AACFormatError) -> Int {
            let index = try read(4)
            if index == 15 { return try read(24) }
            guard index < frequencies.count else { throw AACFormatError("its AudioSpecificConfig has sampling frequency index \(index), which is reserved") }
            return frequencies[index]
        }
        let type = try objectType()
        let rate = try frequency()
        let configuration = try read(4)
        if type == 5 || type == 29 {
            let output = try frequency()
            throw AACFormatError(
                "its AudioSpecificConfig signals HE-AAC (\(type == 29 ? "SBR and PS" : "SBR"): core \(rate) Hz, output \(output) Hz; 'desc' says \(Int(desc.sampleRate)) Hz, \(desc.framesPerPacket) frames per packet); cafconv decodes AAC-LC and AAC-LD only")
        }
        guard Double(rate) == desc.sampleRate else {
            throw AACFormatError("its AudioSpecificConfig says \(rate) Hz, its 'desc' \(desc.sampleRate) Hz")
        }
        let channels = configuration == 7 ? 8 : configuration
        if (1...7).contains(configuration), channels != Int(desc.channelsPerFrame) {
            throw AACFormatError(
                "its AudioSpecificConfig says \(channels) channels (configuration \(configuration)), its 'desc' \(desc.channelsPerFrame)")
        }
    }

    /// Reads up to `frames` frames (interleaved floats) into `output` (resized as needed); 0 at
    /// the end of the valid frames. Throws when a packet cannot be read or decoded, or when the
    /// packets decode to fewer frames than the `pakt` declares.
    package func read(into output: inout [Float], frames: Int) throws(AACFormatError) -> Int {
        let wanted = Int(min(Int64(frames), validFrames - framesOut))
        guard wanted > 0 else { return 0 }
        while (pending.count - pendingStart) / channels < wanted && !finished {
            try decodeNext()
        }
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
            throw AACFormatError(
                "its \(packetCount) packets decode to \(decodedFrames) frames, but its 'pakt' declares \(primingFrames) priming + \(validFrames) valid frames"
            )
        }
        return got
    }

    private func decodeNext() throws(AACFormatError) {
        var decoded: [Float] = []
        if let bytes = try nextPacket() {
            packetsRead += 1
            do {
                try decoder.decode(bytes, into: &decoded)
            } catch {
                throw AACFormatError("packet \(packetsRead - 1): \(error.message)")
            }
        } else {
            do { try decoder.finish(into: &decoded) } catch { throw AACFormatError(error.message) }
            finished = true
        }
        var frames = decoded.count / channels
        // Every packet decodes to the frames per packet the 'desc' declares (HE-AAC's SBR gives twice as many).
        if !finished, frames != framesPerPacket {
            throw AACFormatError(
                "libavcodec decodes \(frames) frames from packet \(packetsRead - 1), the file's 'desc' declares \(framesPerPacket) frames per packet")
        }
        decodedFrames += Int64(frames)
        var start = 0
        if toDrop > 0 {
            let dropped = Int(min(toDrop, Int64(frames)))
            toDrop -= Int64(dropped)
            start = dropped * channels
            frames -= dropped
        }
        if frames > 0 { pending.append(contentsOf: decoded[start...]) }
    }
}

/// What comparing a lossy output with its source measured.
package struct LossyComparison {
    /// Signal-to-noise ratio over every frame and channel, in dB; `nil` for a silent source.
    package var snr: Double?
    /// The lag of the cross-correlation peak (output against source, channels summed) over the
    /// source's loudest windows (see `Accumulator`), ties within `peakTolerance` going to the lag
    /// nearest 0; `nil` when the source is near-silent or the peak's normalised correlation is
    /// under `minimumCorrelation` (too little of the source survived to measure the alignment).
    package var peakLag: Int?
    /// Whether no window of the source reaches `loudWindowLevel`: digital silence, or audio too
    /// quiet to align on or to measure an SNR of. Such a file passes when its error is at most
    /// `nearSilentErrorLevel`.
    package var isNearSilent = false
    /// The error's RMS over every sample, in dBFS (`-infinity` when there is none).
    package var errorLevel = -Double.infinity
    /// How far the output's energy strays from the source's, window by window: the mean of
    /// |10 log10(output energy / source energy)| over the loud windows (channels summed, at lag
    /// 0), dB; `nil` when no window was loud enough.
    package var envelopeError: Double?
    /// The largest of those window differences, dB.
    package var envelopeWorst: Double?

    /// What breaks the lossy proof's rules, the one judgement `convert` and `verify --against` share.
    package enum Finding: Equatable {
        /// The cross-correlation peak is not at lag 0.
        case lag(Int)
        /// The SNR (rounded) is below the floor.
        case snr(Double, floor: Double)
        /// The source is near-silent but the error reaches this level (dBFS, rounded).
        case loudError(Double)
    }

    /// The first rule broken, or `nil`: a near-silent source needs its error at most
    /// `nearSilentErrorLevel` (its SNR and alignment mean nothing); any other the peak at lag 0
    /// (within `lagTolerance` frames, which the decoder states for what it decoded: 0 but for
    /// Opus's hybrid packets, see `OpusFileDecoder.lagTolerance`; when measurable) and the SNR at
    /// `snrFloor` or above.
    package func finding(snrFloor: Double, lagTolerance: Int = 0) -> Finding? {
        if isNearSilent {
            guard errorLevel <= Self.nearSilentErrorLevel else { return .loudError((errorLevel * 100).rounded() / 100) }
            return nil
        }
        if let peakLag, abs(peakLag) > lagTolerance { return .lag(peakLag) }
        if let snr = roundedSNR, snr < snrFloor {
            // Noise (hiss, wind, rain, cymbals): a perceptual codec rebuilds each band's energy,
            // not its waveform (Opus's band folding and energy preservation, AAC's noise
            // substitution), so the SNR of a correct encoding is near 0 dB. Such an output
            // passes when its energy follows the source's window by window within 3 dB on
            // average and 6 dB in every window (it keeps half the energy or more: what it loses
            // is the band above the codec's cut-off, 1-2 dB of white noise at 32-48 kb/s), and
            // its waveform still follows the source's in part: an SNR of -1 dB or more, where
            // audio unrelated to the source (another noise of the same level, swapped channels)
            // gives -3 dB. A silent, dropped-out or wrongly scaled decoding fails.
            guard let envelopeError, let envelopeWorst, envelopeError <= Self.envelopeTolerance,
                envelopeWorst <= Self.envelopeWindowTolerance, snr >= Self.relatedSNR
            else { return .snr(snr, floor: snrFloor) }
        }
        return nil
    }

    /// What a proof's rule adds when the output passed below `snrFloor` by its energy envelope
    /// (see ``finding(snrFloor:lagTolerance:)``); empty otherwise.
    package func envelopeNote(snrFloor: Double) -> String {
        guard let snr = roundedSNR, snr < snrFloor, let envelopeError else { return "" }
        let shown = (envelopeError * 100).rounded() / 100
        return "; noise-like: below the \(snrFloor) dB SNR floor, its energy within \(shown) dB of the source's window by window"
    }

    /// The largest ``envelopeError`` with which an output below its SNR floor still passes, dB.
    package static let envelopeTolerance = 3.0
    /// The largest window difference with which it still passes, dB.
    package static let envelopeWindowTolerance = 6.0
    /// The lowest SNR with which it still passes, dB: audio unrelated to the source at its level
    /// measures -3 dB (the error is the sum of two unrelated signals).
    package static let relatedSNR = -1.0

    /// The SNR as reports show it: rounded to 0.01 dB, 200 standing for identical.
    package var roundedSNR: Double? { snr.map { ($0.isFinite ? min($0, 200) : 200) }.map { ($0 * 100).rounded() / 100 } }

    /// Lags searched for the cross-correlation peak: more than one AAC packet either way.
    package static let maximumLag = 1100
    /// Frames per window correlated; windows start at multiples of `window`.
    package static let window = 4096
    /// How many of the source's loudest windows are correlated.
    package static let windowsCorrelated = 3
    /// A window takes part in the alignment only when its RMS per channel reaches this level, in
    /// dBFS: below it, dither or the tail of a fade has no features to align on.
    package static let loudWindowLevel = -60.0
    /// A near-silent source's output passes when its error RMS is at most this level, in dBFS.
    package static let nearSilentErrorLevel = -50.0
    /// Correlations within this fraction of the highest count as the peak (the nearest to lag 0 wins).
    package static let peakTolerance = 0.05
    /// Below this normalised correlation the alignment is not measured.
    package static let minimumCorrelation = 0.2

    /// Accumulates sums over blocks of source and output frames.
    ///
    /// The alignment is measured where the source has energy, never where it is silent: the
    /// source is cut into windows of `window` frames, each window whose RMS per channel reaches
    /// `loudWindowLevel` is a candidate, and the `windowsCorrelated` loudest candidates are kept
    /// with `maximumLag` output frames either side. At the end the cross-correlation over those
    /// windows is normalised at every lag by the energies it multiplies, so a fade-in (louder
    /// output at later lags) does not pull the peak late. Memory holds a few windows, whatever
    /// the length.
    package struct Accumulator {
        package let channels: Int
        private var signal = 0.0
        private var noise = 0.0
        private var samples: Int64 = 0
        /// Channels summed, and each frame's source power (summed over channels), from frame
        /// `bufferStart` on.
        private var sourceMono: [Float] = []
        private var outputMono: [Float] = []
        private var sourcePower: [Double] = []
        private var bufferStart: Int64 = -Int64(LossyComparison.maximumLag)
        private var framesSeen: Int64 = 0
        private var nextWindow: Int64 = 0
        private var chosen: [Segment] = []
        /// The sum of the loud windows' |dB| differences of output and source energy, and how
        /// many there were (``LossyComparison/envelopeError``).
        private var envelopeDeviation = 0.0
        private var envelopeWindows = 0
        private var envelopeWorst = 0.0
        /// Every window judged, for tests (windows are judged in order).
        package private(set) var windowsJudged = 0

        /// One candidate window: the source's `window` frames (fewer at the end) and the output
        /// from `maximumLag` before to `maximumLag` after, zero outside the file.
        package struct Segment {
            package var energy: Double
            package var source: [Float]
            package var output: [Float]
        }

        package init(channels: Int) {
            self.channels = channels
            // The output before frame 0 is zero.
            sourceMono = [Float](repeating: 0, count: LossyComparison.maximumLag)
            outputMono = sourceMono
            sourcePower = [Double](repeating: 0, count: LossyComparison.maximumLag)
        }

        /// Adds `frames` frames of interleaved `source` and `output` samples.
        package mutating func add(source: [Float], output: [Float], frames: Int) {
            let frames = max(0, min(frames, source.count / channels, output.count / channels))
            let start = sourceMono.count
            sourceMono.append(contentsOf: repeatElement(0, count: frames))
            outputMono.append(contentsOf: repeatElement(0, count: frames))
            sourcePower.append(contentsOf: repeatElement(0, count: frames))
            let channels = self.channels
            let sums = source.withUnsafeBufferPointer { source in
                output.withUnsafeBufferPointer { output in
                    sourceMono.withUnsafeMutableBufferPointer { sourceMono in
                        outputMono.withUnsafeMutableBufferPointer { outputMono in
                            sourcePower.withUnsafeMutableBufferPointer { power in
                                Self.mix(
                                    source, output, frames: frames, channels: channels,
                                    into: (
                                        UnsafeMutableBufferPointer(rebasing: sourceMono[start...]),
                                        UnsafeMutableBufferPointer(rebasing: outputMono[start...]),
                                        UnsafeMutableBufferPointer(rebasing: power[start...])))
                            }
                        }
                    }
                }
            }
            signal += sums.signal
            noise += sums.noise
            framesSeen += Int64(frames)
            samples += Int64(frames * channels)
            let lag = Int64(LossyComparison.maximumLag)
            while nextWindow + Int64(LossyComparison.window) + lag <= framesSeen { judgeWindow() }
            // Keep from `maximumLag` before the next window on.
            let drop = Int(nextWindow - lag - bufferStart)
            if drop > 1 << 16 {
                sourceMono.removeFirst(drop)
                outputMono.removeFirst(drop)
                sourcePower.removeFirst(drop)
                bufferStart += Int64(drop)
            }
        }

        /// One block's sums, on buffers rather than arrays so the loop carries no bounds checks
        /// or reallocation: each frame's channels summed (`mono.source`, `mono.output`) and its
        /// source power, and the source's and the error's energies over the block.
        private static func mix(
            _ source: UnsafeBufferPointer<Float>, _ output: UnsafeBufferPointer<Float>, frames: Int, channels: Int,
            into mono: (source: UnsafeMutableBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                power: UnsafeMutableBufferPointer<Double>)
        ) -> (signal: Double, noise: Double) {
            var signal = 0.0
            var noise = 0.0
            if channels == 2 {
                // The usual case, unrolled, with the sums split between even and odd frames so
                // that no loop iteration waits for the previous one's additions.
                var odd = (signal: 0.0, noise: 0.0)
                for frame in 0..<frames {
                    let left = Double(source[2 * frame])
                    let right = Double(source[2 * frame + 1])
                    let dLeft = left - Double(output[2 * frame])
                    let dRight = right - Double(output[2 * frame + 1])
                    let power = left * left + right * right
                    if frame & 1 == 0 {
                        signal += power
                        noise += dLeft * dLeft + dRight * dRight
                    } else {
                        odd.signal += power
                        odd.noise += dLeft * dLeft + dRight * dRight
                    }
                    mono.source[frame] = source[2 * frame] + source[2 * frame + 1]
                    mono.output[frame] = output[2 * frame] + output[2 * frame + 1]
                    mono.power[frame] = power
                }
                return (signal + odd.signal, noise + odd.noise)
            }
            for frame in 0..<frames {
                var s: Float = 0
                var o: Float = 0
                var power = 0.0
                var error = 0.0
                for index in (frame * channels)..<(frame * channels + channels) {
                    let value = Double(source[index])
                    let d = value - Double(output[index])
                    power += value * value
                    error += d * d
                    s += source[index]
                    o += output[index]
                }
                signal += power
                noise += error
                mono.source[frame] = s
                mono.output[frame] = o
                mono.power[frame] = power
            }
            return (signal, noise)
        }

        /// Judges the window at `nextWindow` (cut at the end of the file) and moves on.
        private mutating func judgeWindow() {
            let lag = LossyComparison.maximumLag
            let start = Int(nextWindow - bufferStart)
            let count = Int(min(Int64(LossyComparison.window), framesSeen - nextWindow))
            nextWindow += Int64(LossyComparison.window)
            windowsJudged += 1
            var sums = (0.0, 0.0)
            sourcePower.withUnsafeBufferPointer { power in
                var index = start
                while index + 1 < start + count {
                    sums.0 += power[index]
                    sums.1 += power[index + 1]
                    index += 2
                }
                if index < start + count { sums.0 += power[index] }
            }
            let energy = sums.0 + sums.1
            let threshold = pow(10, LossyComparison.loudWindowLevel / 10) * Double(count * channels)
            guard count > 0, energy >= threshold else { return }
            envelope(start: start, count: count, energy: energy)
            if chosen.count == LossyComparison.windowsCorrelated {
                guard let quietest = chosen.indices.min(by: { chosen[$0].energy < chosen[$1].energy }),
                    chosen[quietest].energy < energy
                else { return }
                chosen.remove(at: quietest)
            }
            var output = [Float](repeating: 0, count: count + 2 * lag)
            let available = min(outputMono.count, start + count + lag) - (start - lag)
            for index in 0..<available { output[index] = outputMono[start - lag + index] }
            chosen.append(Segment(energy: energy, source: Array(sourceMono[start..<start + count]), output: output))
        }

        /// Adds a loud window's |dB| difference of output and source energy (channels summed, so
        /// a window whose channels cancel in the sum, anti-phase stereo, is left out).
        private mutating func envelope(start: Int, count: Int, energy: Double) {
            let (source, output) = sourceMono.withUnsafeBufferPointer { source in
                outputMono.withUnsafeBufferPointer { output in
                    let source = UnsafeBufferPointer(rebasing: source[start..<start + count])
                    let end = min(output.count, start + count)
                    let output = UnsafeBufferPointer(rebasing: output[min(start, end)..<end])
                    return (Self.dot(source, source), Self.dot(output, output))
                }
            }
            guard source >= 0.1 * energy else { return }
            let deviation = output > 0 ? abs(10 * log10(output / source)) : 100
            envelopeDeviation += deviation
            envelopeWindows += 1
            envelopeWorst = max(envelopeWorst, deviation)
        }

        /// The sum of `a[i] * b[i]` over `a`'s indices (`b` at least as long), in doubles, in four
        /// independent partial sums so the loop is not one long chain of dependent additions.
        private static func dot(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>) -> Double {
            var sums = (0.0, 0.0, 0.0, 0.0)
            let count = min(a.count, b.count)
            var index = 0
            while index + 4 <= count {
                sums.0 += Double(a[index]) * Double(b[index])
                sums.1 += Double(a[index + 1]) * Double(b[index + 1])
                sums.2 += Double(a[index + 2]) * Double(b[index + 2])
                sums.3 += Double(a[index + 3]) * Double(b[index + 3])
                index += 4
            }
            while index < count {
                sums.0 += Double(a[index]) * Double(b[index])
                index += 1
            }
            return (sums.0 + sums.1) + (sums.2 + sums.3)
        }

        /// The measures.
        package mutating func result() -> LossyComparison {
            while nextWindow < framesSeen { judgeWindow() }
            let snr: Double? = signal == 0 ? nil : noise == 0 ? .infinity : 10 * log10(signal / noise)
            let errorLevel = noise == 0 ? -Double.infinity : 10 * log10(noise / Double(max(1, samples)))
            let envelopeError = envelopeWindows == 0 ? nil : envelopeDeviation / Double(envelopeWindows)
            let envelopeWorst = envelopeWindows == 0 ? nil : self.envelopeWorst
            guard !chosen.isEmpty else {
                return LossyComparison(
                    snr: snr, peakLag: nil, isNearSilent: true, errorLevel: errorLevel, envelopeError: envelopeError,
                    envelopeWorst: envelopeWorst)
            }
            let maximumLag = LossyComparison.maximumLag
            var correlations = [Double](repeating: 0, count: 2 * maximumLag + 1)
            var outputEnergies = [Double](repeating: 0, count: 2 * maximumLag + 1)
            var sourceEnergy = 0.0
            for segment in chosen {
                segment.source.withUnsafeBufferPointer { source in
                    segment.output.withUnsafeBufferPointer { output in
                        for value in source { sourceEnergy += Double(value) * Double(value) }
                        // The output's energy under the window at each lag, slid one frame at a time.
                        var sliding = 0.0
                        for index in 0..<source.count { sliding += Double(output[index]) * Double(output[index]) }
                        for offset in 0...(2 * maximumLag) {
                            correlations[offset] += Self.dot(source, UnsafeBufferPointer(rebasing: output[offset...]))
                            outputEnergies[offset] += max(0, sliding)
                            if offset < 2 * maximumLag {
                                let leaving = Double(output[offset])
                                let entering = Double(output[offset + source.count])
                                sliding += entering * entering - leaving * leaving
                            }
                        }
                    }
                }
            }
            var normalised = [Double](repeating: 0, count: correlations.count)
            for offset in correlations.indices where outputEnergies[offset] > 0 && sourceEnergy > 0 {
                normalised[offset] = correlations[offset] / (sourceEnergy * outputEnergies[offset]).squareRoot()
            }
            let best = normalised.max() ?? 0
            // Too little of the source survives in the output (an encoder that cut the band, a
            // silent decode) for a peak to mean anything: the alignment is not measurable.
            guard best >= LossyComparison.minimumCorrelation else {
                return LossyComparison(
                    snr: snr, peakLag: nil, isNearSilent: false, errorLevel: errorLevel, envelopeError: envelopeError,
                    envelopeWorst: envelopeWorst)
            }
            // Periodic audio correlates as well one period off: the peak is the lag nearest 0
            // whose correlation is within `peakTolerance` of the highest.
            var bestLag = Int.max
            for (offset, value) in normalised.enumerated() where value >= (1 - LossyComparison.peakTolerance) * best {
                let lag = offset - maximumLag
                if abs(lag) < abs(bestLag) || (abs(lag) == abs(bestLag) && lag > bestLag) { bestLag = lag }
            }
            return LossyComparison(
                snr: snr, peakLag: bestLag, isNearSilent: false, errorLevel: errorLevel, envelopeError: envelopeError,
                envelopeWorst: envelopeWorst)
        }
    }
}
