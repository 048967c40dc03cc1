import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import WAVEKit

/// IMA4 sources: a CAF or AIFF-C file of `ima4` audio, decoded by CAFKit's IMA4 decoder
/// (libsndfile has no IMA4 in CAF, and decodes IMA4 in AIFF-C wrongly). The route table
/// (``DecodeRoute``) tells them; ``admit(_:input:content:options:warnings:)`` opens one as a
/// `SourceStage` whose `pumpAudio` and `proofAudio` give the samples as every other source gives
/// them (left-justified 16-bit integers), cut by the `pakt` to exactly the valid frames.
///
/// The preamble rule follows the file's writer (``IMA4Proof/rule(for:)``): ffmpeg's files (4 bits
/// per channel, no `pakt`) with ffmpeg's rule, because ffmpeg's encoder continues from its
/// full-precision predictor; all others with the reload rule, because Apple's encoder (and
/// libsndfile's decoder) treat every packet as starting from its preamble. Under the other rule,
/// Apple's files play with per-packet offsets of up to 127 LSB. AIFF-C has no `pakt` (its `COMM`
/// counts packets): its length is whole packets; ffmpeg's AIFF-C (sample size 4 in `COMM`, as its
/// CAF says 4 bits per channel) decodes with ffmpeg's rule, any other with the reload rule.
package struct IMA4Source {
    /// The input's bytes.
    package let input: FileByteSource
    /// Where the packets are and which frames are audio.
    package let stream: IMA4Extent
    /// The preamble rule for this file.
    package let rule: IMA4Decoder.PreambleRule
    /// What the report should say about the source.
    package var warnings: [SourceWarning] = []

    /// The IMA4 source `content` holds (the route table, ``DecodeRoute/route(for:)``, told it
    /// IMA4): its packets and the rule for its writer; throws when it cannot be decoded (a
    /// `pakt` beyond the packets, a bad `desc`, an AIFF-C `COMM` out of range) or its rate is
    /// not a whole number of Hz up to 2^31 - 1 (cafconv's rates are integers; a hostile rate
    /// must not trap).
    package init(_ content: SourceContent, input: FileByteSource) throws(ConversionError) {
        self.input = input
        switch content {
        case .aiff(let aiff):
            guard (1...1024).contains(aiff.channels) else { throw .source(.ima4Channels(aiff.channels)) }
            guard aiff.sampleRate.isFinite, aiff.sampleRate > 0 else { throw .source(.ima4AIFFRate(aiff.sampleRate)) }
            let packetBytes = UInt64(IMA4.bytesPerPacket(channels: aiff.channels))
            let available = aiff.audioBytes / packetBytes * UInt64(IMA4.framesPerPacket)
            stream = IMA4Extent(
                channels: aiff.channels, sampleRate: aiff.sampleRate, audioOffset: aiff.audioOffset, primingFrames: 0,
                validFrames: min(aiff.frames, available))
            // ffmpeg's AIFF-C says 4 bits per sample, as its CAF does.
            rule = aiff.common.sampleSize == 4 ? .continueWhenClose : .reload
            if aiff.frames > available {
                warnings.append(.ima4PacketsMissing(declared: aiff.frames / 64, held: available / 64, frames: available))
            }
        case .caf(let file):
            do { stream = IMA4Extent(try IMA4Stream(file)) } catch { throw .source(.ima4Undecodable("\(error)")) }
            rule = IMA4Proof.rule(for: file)
        case .wave, .other:
            throw .source(.ima4Undecodable("not an IMA4 CAF or AIFF-C"))
        }
        let rate = stream.sampleRate
        guard rate >= 1, rate <= Double(Int32.max), rate == rate.rounded() else { throw .source(.ima4Rate(rate)) }
    }

    /// A `convert` job's IMA4 source (``SourceStage/open(_:options:warnings:)``): its warnings
    /// reported, refused when the job asks for another rate or channel count.
    package static func admit(
        _ path: String, input: FileByteSource, content: SourceContent, options: ConversionOptions,
        warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage {
        let source = try IMA4Source(content, input: input)
        warnings += source.warnings.map(ConversionWarning.source)
        let rate = source.sampleRate
        if options.sampleRate.map({ $0 != rate }) ?? false || options.channels.map({ $0 != source.stream.channels }) ?? false {
            throw .source(.ima4NoTransform)
        }
        let frames = Int64(clamping: source.stream.validFrames)
        let info = SoundInfo(
            frames: frames, sampleRate: rate, channels: source.stream.channels, major: .caf, encoding: .imaADPCM,
            endianness: .little)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: nil, probe: nil,
            encoding: .imaADPCM, headerFrames: frames, codec: .ima4(source))
    }

    /// The rate, a whole number of Hz (``init(_:input:)`` checked it).
    package var sampleRate: Int { Int(exactly: stream.sampleRate) ?? 0 }

    /// The samples, decoded afresh from the file (each call is an independent decoding).
    package func audio() throws(ConversionError) -> SourceAudio {
        SourceAudio(ima4: IMA4PullReader(stream: stream, bytes: input, rule: rule), sampleRate: sampleRate)
    }
}

/// Where an IMA4 file's packets are and which of their frames are audio.
package struct IMA4Extent {
    package var channels: Int
    package var sampleRate: Double
    package var audioOffset: UInt64
    package var primingFrames: UInt64
    package var validFrames: UInt64
    package var bytesPerPacket: Int { IMA4.bytesPerPacket(channels: channels) }

    package init(channels: Int, sampleRate: Double, audioOffset: UInt64, primingFrames: UInt64, validFrames: UInt64) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.audioOffset = audioOffset
        self.primingFrames = primingFrames
        self.validFrames = validFrames
    }

    package init(_ stream: IMA4Stream) {
        self.init(
            channels: stream.channels, sampleRate: stream.sampleRate, audioOffset: stream.audioOffset,
            primingFrames: stream.primingFrames, validFrames: stream.validFrames)
    }
}

/// IMA4 packets decoded on demand, for `SourceAudio.read`: at most about 1 MiB of packets at a
/// time, priming frames skipped, exactly the valid frames delivered.
package final class IMA4PullReader {
    package let stream: IMA4Extent
    package let bytes: FileByteSource
    private var decoder: IMA4Decoder
    private var nextPacket: UInt64 = 0
    private var buffer: [Int16] = []
    private var used = 0
    /// Frames decoded so far, priming included.
    private var decodedFrames: UInt64 = 0
    private var delivered: UInt64 = 0

    package init(stream: IMA4Extent, bytes: FileByteSource, rule: IMA4Decoder.PreambleRule) {
        self.stream = stream
        self.bytes = bytes
        decoder = IMA4Decoder(channels: stream.channels, rule: rule)
    }

    /// Reads up to `frames` frames into `ints` (left-justified); 0 at the end.
    package func read(into ints: inout [Int32], frames: Int) throws(SourceError) -> Int {
        let channels = stream.channels
        var got = 0
        while got < frames && delivered < stream.validFrames {
            if used == buffer.count {
                let needed = IMA4.packets(forFrames: stream.primingFrames + stream.validFrames)
                guard nextPacket < needed else { break }
                let count = min(UInt64(max(1, IMA4Stream.maxBlockBytes / stream.bytesPerPacket)), needed - nextPacket)
                let packetBytes: [UInt8]
                do {
                    packetBytes = try bytes.readExactly(
                        at: stream.audioOffset + nextPacket * UInt64(stream.bytesPerPacket),
                        count: Int(count) * stream.bytesPerPacket)
                } catch {
                    throw SourceError("cannot read the IMA4 packets: \(error)")
                }
                buffer.removeAll(keepingCapacity: true)
                decoder.decode(packetBytes[...], appendingTo: &buffer)
                used = 0
                // Priming frames are not audio.
                let first = decodedFrames
                decodedFrames += count * UInt64(IMA4.framesPerPacket)
                if first < stream.primingFrames {
                    used = Int(min(stream.primingFrames - first, count * UInt64(IMA4.framesPerPacket))) * channels
                }
                nextPacket += count
                continue
            }
            let available = (buffer.count - used) / channels
            let take = Int(min(UInt64(min(available, frames - got)), stream.validFrames - delivered))
            for index in 0..<take * channels { ints[got * channels + index] = Int32(buffer[used + index]) << 16 }
            used += take * channels
            got += take
            delivered += UInt64(take)
        }
        return got
    }
}
