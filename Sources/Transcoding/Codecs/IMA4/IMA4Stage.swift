import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles

/// The Encoder and Container stages of `-d ima4`: the samples the chain delivers (any channel
/// count, any rate: whatever `SourceAudio` says, so a rate/channel transform placed before it is
/// taken as it is) are encoded by CAFKit's `IMA4Encoder` block by block and written by CAFKit's
/// IMA4 layout (`CAFWriter.ima4Header`: Apple's `desc`, `pakt`, `free`, audio at byte 4096)
/// straight onto the temporary file's descriptor. libsndfile has no IMA4 in CAF and is not used.
///
/// Memory is bounded by the block size (the encoder holds one packet per channel and a fixed
/// beam). The header is written first with the frame count the source announces and rewritten
/// at the end with the frames actually encoded (the header's length does not depend on the count),
/// so a source that ends early still gets an exact `pakt`.
package enum IMA4Stage {
    /// The revision of the encoder's search. It is part of the fingerprint of `-d ima4` outputs:
    /// bump it whenever `IMA4Encoder` would write other bytes for the same samples and options,
    /// so outputs made by an older encoder are converted again.
    package static let encoderRevision = 1

    /// Encodes every frame of `audio` into an IMA4 CAF written at the start of `descriptor` (an
    /// empty temporary file). Returns the frames written, or `nil` when `isCancelled` said stop
    /// (asked before every block).
    package static func write(
        from audio: any FrameSource, announcedFrames: UInt64, to descriptor: Int32, search: IMA4Encoder.Options,
        channelLayout: ChannelLayout? = nil, metadata: [CAFChunk] = [], blockSamples: Int, sampleRate: Double? = nil,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Int64? {
        let channels = audio.channels
        guard (1...1024).contains(channels) else {
            throw ConversionError.encoding(.ima4Channels(channels))
        }
        guard audio.sampleRate > 0 else {
            throw ConversionError.encoding(.ima4SampleRate(audio.sampleRate))
        }
        // The exact rate the caller names (a source's 22254.545 Hz), else the audio's.
        let rate = sampleRate.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? Double(audio.sampleRate)
        let announced = announcedFrames
        let header = CAFWriter.ima4Header(
            sampleRate: rate, channels: channels, frames: announced, channelLayout: channelLayout, metadata: metadata)
        try FileSystem.writeAll(descriptor, header, at: 0)
        var offset = UInt64(header.count)
        var encoder = IMA4Encoder(channels: channels, options: search)
        let blockFrames = max(1, blockSamples / channels)
        var ints = [Int32](repeating: 0, count: audio.isFloat ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: audio.isFloat ? blockFrames * channels : 0)
        var samples = [Int16](repeating: 0, count: audio.isFloat ? blockFrames * channels : 0)
        var packets: [UInt8] = []
        packets.reserveCapacity((blockFrames / IMA4.framesPerPacket + 1) * encoder.bytesPerPacket)
        var total: Int64 = 0
        while true {
            if isCancelled() { return nil }
            let got: Int
            do { got = try audio.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                throw ConversionError.encoding(.sourceRead(reason: error.message))
            }
            if got == 0 { break }
            let count = got * channels
            if audio.isFloat {
                for index in 0..<count { samples[index] = Self.sample(doubles[index]) }
                encoder.encode(samples[0..<count], appendingTo: &packets)
            } else {
                // Left-justified integers keep their top 16 bits, rounded to nearest.
                encoder.encode(int32: ints[0..<count], appendingTo: &packets)
            }
            if !packets.isEmpty {
                try FileSystem.writeAll(descriptor, packets, at: offset)
                offset += UInt64(packets.count)
                packets.removeAll(keepingCapacity: true)
            }
            total += Int64(got)
        }
        encoder.finish(appendingTo: &packets)
        if !packets.isEmpty { try FileSystem.writeAll(descriptor, packets, at: offset) }
        if UInt64(total) != announced {
            let exact = CAFWriter.ima4Header(
                sampleRate: rate, channels: channels, frames: UInt64(total), channelLayout: channelLayout,
                metadata: metadata)
            guard exact.count == header.count else {
                throw ConversionError.proof(.ima4HeaderLengthChanged)
            }
            try FileSystem.writeAll(descriptor, exact, at: 0)
        }
        return total
    }

    /// The Container's check: the written file read back by CAFKit and validated against what it
    /// must say.
    package static func checkLayout(
        _ path: String, channels: Int, sampleRate: Double, frames: Int64
    ) throws(ConversionError) -> CAFDocument {
        let document = try ContainerStage.readBack(path)
        let problems = CAFValidator.validate(
            document, expecting: expectations(channels: channels, sampleRate: sampleRate, frames: UInt64(frames)))
        if let first = problems.first {
            throw ConversionError.proof(.invalid(finding: "\(first)"))
        }
        return document
    }

    /// The Proof: the file at `path` decoded by CAFKit and measured against `source` (the
    /// source's independent decoding) by ``IMA4Proof``; `nil` when cancelled.
    package static func prove(
        _ path: String, document: CAFDocument, against source: any FrameSource, sourceDecoder: String? = nil,
        options: ConversionOptions, levelTap: LevelTap? = nil, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        let measurement: IMA4Proof.Measurement
        let file = document.file
        levelTap?.start(
            channels: source.channels, rate: Int(exactly: file.audioDescription.sampleRate.rounded()) ?? 0,
            exactRate: file.audioDescription.sampleRate, expectedFrames: file.validFrames.map { Int64(clamping: $0) },
            decoder: "cafkit-ima4")
        do {
            measurement = try IMA4Proof.measure(
                file, bytes: try FileByteSource(path: path), against: source, rule: .continueWhenClose,
                blockSamples: options.blockSamples, levelTap: levelTap, isCancelled: isCancelled)
        } catch let error as SourceError {
            if isCancelled() { return nil }
            throw ConversionError.proof(.decoding(reason: error.message))
        } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
        if isCancelled() { return nil }
        switch IMA4Proof.proof(measurement, floor: options.ima4MinimumSNR, sourceDecoder: sourceDecoder ?? source.decoderName) {
        case .success(let proof): return proof
        case .failure(let error): throw error
        }
    }

    /// A float sample (full scale ±1.0) on the 16-bit scale: `round(x * 32768)`, clipped; NaN is 0.
    @inline(__always)
    package static func sample(_ value: Double) -> Int16 {
        guard !value.isNaN else { return 0 }
        return Int16(max(-32768, min(32767, (value * 32768).rounded())))
    }

    /// What the written file must say (`CAFValidator` checks it, as for every other format):
    /// `ima4`, the channels and rate, and `frames` valid frames in the `pakt`.
    package static func expectations(channels: Int, sampleRate: Double, frames: UInt64) -> CAFExpectations {
        var expected = CAFExpectations(channels: UInt32(channels), sampleRate: sampleRate)
        expected.formatID = .ima4
        expected.validFrames = frames
        return expected
    }
}

