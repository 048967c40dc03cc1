import AACCodec
import BinaryIO
import CAFKit
import SystemLayer

/// An AAC CAF decoded frame by frame: CAFKit finds the packets (`pakt`) and the
/// AudioSpecificConfig (`kuki`), libavcodec decodes them; the `pakt` priming frames are dropped
/// and the output stops at its valid frames, so what comes out is the audio the file declares.
/// Memory is bounded: the packet table is read a window at a time, one packet is decoded at a time.
final class AACFileDecoder {
    let channels: Int
    let sampleRate: Int
    /// The valid frames the `pakt` declares.
    let validFrames: Int64
    /// The priming frames the `pakt` declares (dropped).
    let primingFrames: Int64
    /// Frames per packet (`desc`).
    let framesPerPacket: Int
    private let source: any ByteSource
    private var packets: CAFPacketReader
    private let decoder: AACDecoder
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toDrop: Int64
    private(set) var framesOut: Int64 = 0
    /// Every frame libavcodec decoded, priming included.
    private(set) var decodedFrames: Int64 = 0
    private var finished = false

    /// The AAC format IDs cafconv decodes: AAC (LC and the others libavcodec decodes) and AAC-LD.
    static let formatIDs: Set<FourCC> = [.aac, FourCC("aacl")]

    /// Opens the AAC CAF `file` read from `source`; throws a sentence saying why it cannot be
    /// decoded (not AAC, no usable `kuki` or `pakt`, libavcodec missing).
    init(file: CAFFile, source: any ByteSource) throws(AACFormatError) {
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
        packets = try CAFPacketReader(file: file, source: source)
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
        channels = Int(desc.channelsPerFrame)
        sampleRate = Int(desc.sampleRate)
        validFrames = header.numberValidFrames
        primingFrames = Int64(header.primingFrames)
        framesPerPacket = Int(desc.framesPerPacket)
        toDrop = primingFrames
        self.source = source
        do {
            decoder = try AACDecoder(config: cookie.audioSpecificConfig, sampleRate: sampleRate, channels: channels)
        } catch {
            throw AACFormatError(error.message)
        }
    }

    /// Reads up to `frames` frames (interleaved floats) into `output` (resized as needed); 0 at
    /// the end of the valid frames. Throws when a packet cannot be read or decoded, or when the
    /// packets decode to fewer frames than the `pakt` declares.
    func read(into output: inout [Float], frames: Int) throws(AACFormatError) -> Int {
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
                "its \(packets.packetCount) packets decode to \(decodedFrames) frames, but its 'pakt' declares \(primingFrames) priming + \(validFrames) valid frames"
            )
        }
        return got
    }

    private func decodeNext() throws(AACFormatError) {
        var decoded: [Float] = []
        if let packet = try packets.next() {
            let bytes: [UInt8]
            do { bytes = try source.readExactly(at: packet.offset, count: packet.size) } catch {
                throw AACFormatError("cannot read packet \(packets.packetsRead - 1): \(error)")
            }
            do {
                try decoder.decode(bytes, into: &decoded)
            } catch {
                throw AACFormatError("packet \(packets.packetsRead - 1): \(error.message)")
            }
        } else {
            do { try decoder.finish(into: &decoded) } catch { throw AACFormatError(error.message) }
            finished = true
        }
        var frames = decoded.count / channels
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
struct LossyComparison {
    /// Signal-to-noise ratio over every frame and channel, in dB; `nil` for a silent source.
    var snr: Double?
    /// The lag of the cross-correlation peak (output against source, channels summed) over the
    /// first `window` frames from the first sound, ties within `peakTolerance` going to the lag
    /// nearest 0; `nil` when the source is silent there or the peak's normalised correlation is
    /// under `minimumCorrelation` (too little of the source survived to measure the alignment).
    var peakLag: Int?

    /// The SNR as reports show it: rounded to 0.01 dB, 200 standing for identical.
    var roundedSNR: Double? { snr.map { ($0.isFinite ? min($0, 200) : 200) }.map { ($0 * 100).rounded() / 100 } }

    /// Lags searched for the cross-correlation peak: more than one AAC packet either way.
    static let maximumLag = 1100
    /// Frames correlated.
    static let window = 4096
    /// Correlations within this fraction of the highest count as the peak (the nearest to lag 0 wins).
    static let peakTolerance = 0.05
    /// Below this normalised correlation (peak against the two windows' energies) the alignment
    /// is not measured.
    static let minimumCorrelation = 0.2

    /// Accumulates sums over blocks of source and output frames.
    struct Accumulator {
        let channels: Int
        private var signal = 0.0
        private var noise = 0.0
        private var sourceMono: [Float] = []
        private var outputMono: [Float] = []
        private var started = false

        init(channels: Int) { self.channels = channels }

        /// Adds `frames` frames of interleaved `source` and `output` samples.
        mutating func add(source: [Float], output: [Float], frames: Int) {
            for index in 0..<(frames * channels) {
                let s = Double(source[index])
                let d = s - Double(output[index])
                signal += s * s
                noise += d * d
            }
            let needed = LossyComparison.window + 2 * LossyComparison.maximumLag
            guard sourceMono.count < needed else { return }
            for frame in 0..<frames {
                var s: Float = 0
                var o: Float = 0
                for channel in 0..<channels {
                    s += source[frame * channels + channel]
                    o += output[frame * channels + channel]
                }
                if !started {
                    if s == 0 {
                        // Keep the last `maximumLag` frames before the first sound.
                        sourceMono.append(s)
                        outputMono.append(o)
                        if sourceMono.count > LossyComparison.maximumLag {
                            sourceMono.removeFirst()
                            outputMono.removeFirst()
                        }
                        continue
                    }
                    started = true
                }
                if sourceMono.count < needed {
                    sourceMono.append(s)
                    outputMono.append(o)
                }
            }
        }

        /// The measures.
        func result() -> LossyComparison {
            let snr: Double? = signal == 0 ? nil : noise == 0 ? .infinity : 10 * log10(signal / noise)
            guard started else { return LossyComparison(snr: snr, peakLag: nil) }
            // The window starts at the first sound (after the silent frames kept before it).
            let first = sourceMono.firstIndex { $0 != 0 } ?? 0
            let end = min(sourceMono.count, first + LossyComparison.window)
            var correlations: [Double] = []
            correlations.reserveCapacity(2 * LossyComparison.maximumLag + 1)
            for lag in -LossyComparison.maximumLag...LossyComparison.maximumLag {
                var sum = 0.0
                for index in first..<end {
                    let other = index + lag
                    if other < 0 || other >= outputMono.count { continue }
                    sum += Double(sourceMono[index]) * Double(outputMono[other])
                }
                correlations.append(sum)
            }
            var sourceEnergy = 0.0
            var outputEnergy = 0.0
            for index in first..<end {
                sourceEnergy += Double(sourceMono[index]) * Double(sourceMono[index])
                if index < outputMono.count { outputEnergy += Double(outputMono[index]) * Double(outputMono[index]) }
            }
            let best = correlations.max() ?? 0
            // Too little of the source survives in the output (an encoder that cut the band, a
            // silent decode) for a peak to mean anything: the alignment is not measurable.
            guard best > 0, best >= LossyComparison.minimumCorrelation * (sourceEnergy * outputEnergy).squareRoot() else {
                return LossyComparison(snr: snr, peakLag: nil)
            }
            // Periodic audio correlates as well one period off: the peak is the lag nearest 0
            // whose correlation is within `peakTolerance` of the highest.
            var bestLag = Int.max
            for (offset, value) in correlations.enumerated() where value >= (1 - LossyComparison.peakTolerance) * best {
                let lag = offset - LossyComparison.maximumLag
                if abs(lag) < abs(bestLag) || (abs(lag) == abs(bestLag) && lag > bestLag) { bestLag = lag }
            }
            return LossyComparison(snr: snr, peakLag: bestLag)
        }
    }
}
