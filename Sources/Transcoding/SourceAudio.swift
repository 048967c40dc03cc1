import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import MPG123
import Opus
import OutputFiles
import SndFile
import WAVEKit

/// A problem with the source's samples as cafconv's own reader decodes them.
package struct SourceError: Error, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// The samples of a WAV file as cafconv's own reader decodes them (independently of
/// libsndfile): linear PCM, or µ-law and A-law codes; where they are, how many frames, and how
/// each sample sits in its slot.
///
/// Samples come out as libsndfile's `sf_read_int` gives them, left-justified in 32 bits (an
/// N-bit sample `s` is `s << (32 - N)`; unsigned 8-bit is centred first; a G.711 code is its
/// level on the 16-bit scale, as `G711Law.decode` gives it), or as `Double`s for float
/// samples, so both decodings compare and convert alike.
package struct WAVESamples: Equatable, Sendable {
    /// Absolute offset of the first audio byte.
    package var offset: UInt64
    /// Frames: whole blocks in the `data` bytes present.
    package var frames: Int64
    /// Channels.
    package var channels: Int
    /// Bits per decoded sample (8, 16, 24 or 32 for integers, 32 or 64 for floats; 16 for G.711
    /// codes, whose levels are on the 16-bit scale).
    package var bits: Int
    /// Bytes per sample slot: `blockAlign / channels`.
    package var slotBytes: Int
    /// Whether samples are IEEE floats.
    package var isFloat: Bool
    /// Whether 8-bit samples are unsigned (always, in WAV).
    package var isUnsigned8Bit: Bool
    /// The byte order of the samples.
    package var byteOrder: ByteOrder
    /// The law, when the samples are µ-law or A-law codes (one byte each) rather than linear PCM.
    package var law: G711Law?

    /// For wide slots: whether the sample sits in the top bytes of its slot (the low bytes are
    /// padding) rather than in the bottom bytes. Set by ``settleSlots(in:)``.
    package var isHighJustified = false

    /// Bytes per frame (the `fmt ` block align).
    package var bytesPerFrame: Int { slotBytes * channels }

    /// Whether each sample sits in a slot wider than it, low-justified, as ALSA's `arecord`
    /// writes 24-bit samples in 4-byte slots (`fmt ` bits 24, block align 4 x channels).
    /// libsndfile reads such files as packed 24-bit samples.
    package var hasWideSlots: Bool { law == nil && slotBytes * 8 > bits }

    /// The libsndfile encoding of these samples.
    package var encoding: Encoding {
        if let law { return law == .muLaw ? .ulaw : .alaw }
        if isFloat { return bits == 64 ? .float64 : .float32 }
        switch bits {
        case 8: return isUnsigned8Bit ? .pcmU8 : .pcmS8
        case 16: return .pcm16
        case 24: return .pcm24
        default: return .pcm32
        }
    }

    /// The packed layout CAFKit decodes, when samples fill their slots.
    package var packedLayout: PCMLayout? {
        hasWideSlots || law != nil
            ? nil
            : PCMLayout(bits: bits, isFloat: isFloat, byteOrder: byteOrder, channels: channels, isUnsigned8Bit: isUnsigned8Bit)
    }

    /// The layout of `wave`'s samples, or `nil` when they are not linear PCM or G.711 codes this
    /// reader decodes (other compressed formats, floats other than 32/64 bits, slots over 4 bytes,
    /// G.711 codes that are not one byte per channel).
    package init?(wave: WAVEFile) {
        let format = wave.format
        let frameBytes = wave.bytesPerFrame
        if let law = G711Law.allCases.first(where: { $0.waveTag == format.effectiveTag }) {
            guard format.channels > 0, format.bitsPerSample == 8, frameBytes == UInt64(format.channels),
                let frames = wave.frames, frames <= UInt64(Int64.max)
            else { return nil }
            offset = wave.audioOffset
            self.frames = Int64(frames)
            channels = Int(format.channels)
            bits = 16
            slotBytes = 1
            isFloat = false
            isUnsigned8Bit = false
            byteOrder = wave.byteOrder
            self.law = law
            return
        }
        guard format.isLinearPCM, format.channels > 0, frameBytes % UInt64(format.channels) == 0, frameBytes <= 4 * 65535,
            let frames = wave.frames, frames <= UInt64(Int64.max)
        else { return nil }
        let channels = Int(format.channels)
        let slot = Int(frameBytes) / channels
        let declared = Int(format.bitsPerSample)
        if format.isFloat {
            guard [32, 64].contains(declared), slot == declared / 8 else { return nil }
            bits = declared
        } else {
            // Wide slots hold 16- or 24-bit samples (an 8-bit sample's sign convention in a wider
            // slot is anyone's guess).
            guard (1...32).contains(declared), slot <= 4, slot * 8 >= declared, slot == (declared + 7) / 8 || declared > 8
            else { return nil }
            // Bits that are not a whole number of bytes (12 in 2 bytes, 20 in 3) sit at the top of
            // their container, as the WAVE specification says: the container is the sample.
            let rounded = (declared + 7) / 8 * 8
            bits = rounded
        }
        offset = wave.audioOffset
        self.frames = Int64(frames)
        self.channels = channels
        slotBytes = slot
        isFloat = format.isFloat
        isUnsigned8Bit = !format.isFloat && bits == 8
        byteOrder = wave.byteOrder
    }

    /// The layout of an AIFF or AIFF-C file's samples (big-endian or `sowt` little-endian
    /// integers, `fl32`/`fl64` floats, `raw ` unsigned 8-bit, `ulaw`/`alaw` codes), or `nil` for
    /// formats this reader does not decode. Frames: the `COMM` count, at most the whole frames the
    /// `SSND` bytes present hold.
    package init?(aiff: AIFFFile) {
        let channels = aiff.channels
        guard channels > 0 else { return nil }
        let type = aiff.compressionType
        var law: G711Law?
        if [FourCC("ulaw"), FourCC("ULAW")].contains(type) { law = .muLaw }
        if [FourCC("alaw"), FourCC("ALAW")].contains(type) { law = .aLaw }
        let declared: Int
        if law != nil {
            declared = 8
            bits = 16
            isFloat = false
            byteOrder = .big
        } else {
            guard aiff.formatID == "lpcm", let depth = aiff.bitsPerChannel, let order = aiff.byteOrder else { return nil }
            declared = depth
            if aiff.isFloat {
                guard [32, 64].contains(depth) else { return nil }
                bits = depth
            } else {
                guard (1...32).contains(depth) else { return nil }
                // Samples of bits that are not whole bytes sit at the top of their bytes (AIFF).
                bits = (depth + 7) / 8 * 8
            }
            isFloat = aiff.isFloat
            byteOrder = order
        }
        let slot = (declared + 7) / 8
        let frameBytes = UInt64(slot * channels)
        let present = aiff.audioBytes / frameBytes
        offset = aiff.audioOffset
        frames = Int64(min(aiff.frames, present))
        self.channels = channels
        slotBytes = slot
        // AIFF samples are signed; AIFF-C 'raw ' is offset binary (unsigned).
        isUnsigned8Bit = law == nil && !isFloat && bits == 8 && type == FourCC("raw ")
        self.law = law
    }

    /// The layout of a CAF file's samples (packed linear PCM in either byte order, `ulaw`/`alaw`
    /// at one byte per channel and frame), or `nil` for other formats. Frames: the valid frames
    /// (whole frames in the `data` bytes present).
    package init?(caf: CAFFile) {
        let description = caf.audioDescription
        // Whole packets in the bytes present (a 'pakt' of linear PCM or G.711 cannot add any).
        guard description.channelsPerFrame > 0, let frames = caf.constantPacketFrames, frames <= UInt64(Int64.max)
        else { return nil }
        let channels = Int(description.channelsPerFrame)
        if description.formatID == .ulaw || description.formatID == .alaw {
            guard description.bytesPerPacket == description.channelsPerFrame, description.framesPerPacket == 1 else {
                return nil
            }
            law = description.formatID == .ulaw ? .muLaw : .aLaw
            bits = 16
            isFloat = false
            byteOrder = .big
        } else {
            guard let layout = PCMLayout(description) else { return nil }
            law = nil
            bits = layout.bits
            isFloat = layout.isFloat
            byteOrder = layout.byteOrder
        }
        offset = caf.audioOffset
        self.frames = Int64(frames)
        self.channels = channels
        slotBytes = law == nil ? bits / 8 : 1
        isUnsigned8Bit = false
    }

    /// For wide slots, reads every slot once and decides where the sample sits: low-justified
    /// when every padding byte above the sample is 0 or its sign extension (as ALSA writes
    /// 24-bit samples in 4-byte slots), else high-justified when every padding byte below it is
    /// 0; throws when neither holds, since the samples' place in the slot cannot be known.
    package mutating func settleSlots(in source: some ByteSource) throws(SourceError) {
        guard hasWideSlots, !isFloat else { return }
        let width = bits / 8
        let padding = slotBytes - width
        let little = byteOrder == .little
        var low = true
        var high = true
        let step = 1 << 16
        var frame: Int64 = 0
        while frame < frames && (low || high) {
            let count = Int(min(Int64(step), frames - frame))
            let bytes: [UInt8]
            do {
                bytes = try source.readExactly(at: offset + UInt64(frame) * UInt64(bytesPerFrame), count: count * bytesPerFrame)
            } catch {
                throw SourceError("cannot read the source's samples: \(error)")
            }
            var at = 0
            while at < bytes.count {
                // Bytes of the slot from the least significant one.
                func byte(_ position: Int) -> UInt8 { bytes[at + (little ? position : slotBytes - 1 - position)] }
                if low {
                    let fill: UInt8 = byte(width - 1) & 0x80 != 0 ? 0xFF : 0
                    for position in width..<slotBytes where byte(position) != 0 && byte(position) != fill { low = false }
                }
                if high {
                    for position in 0..<padding where byte(position) != 0 { high = false }
                }
                at += slotBytes
            }
            frame += Int64(count)
        }
        if low { return }
        if high {
            isHighJustified = true
            return
        }
        throw SourceError(
            "each \(bits)-bit sample sits in a \(slotBytes)-byte slot, but the padding bytes are neither all 0 (or the sign) above the sample nor all 0 below it; cannot tell where the samples are"
        )
    }

    /// Decodes `count` frames from frame `start` of `source` into `ints` (left-justified) or
    /// `doubles` (floats). Throws when a wide slot holds bits that are neither 0 nor the sign
    /// extension of its sample: then the layout is not what the header says.
    package func decode(
        _ source: some ByteSource, from start: Int64, count: Int, ints: inout [Int32], doubles: inout [Double]
    ) throws(SourceError) {
        guard count > 0 else { return }
        let bytes: [UInt8]
        do {
            bytes = try source.readExactly(at: offset + UInt64(start) * UInt64(bytesPerFrame), count: count * bytesPerFrame)
        } catch {
            throw SourceError("cannot read the source's samples: \(error)")
        }
        let samples = count * channels
        if let law {
            let levels = law.decode(bytes[...])
            for index in 0..<samples { ints[index] = Int32(levels[index]) << 16 }
            return
        }
        if isFloat {
            let layout = PCMLayout(bits: bits, isFloat: true, byteOrder: byteOrder, channels: channels)
            let values = layout.decodeFloats(bytes[...])
            for index in 0..<samples { doubles[index] = values[index] }
            return
        }
        let shift = Int32(32 - bits)
        if let layout = packedLayout {
            let values = layout.decodeIntegers(bytes[...])
            for index in 0..<samples { ints[index] = values[index] << shift }
            return
        }
        let width = bits / 8
        let little = byteOrder == .little
        let skip = isHighJustified ? slotBytes - width : 0
        for index in 0..<samples {
            let at = index * slotBytes
            var word: UInt32 = 0
            for position in 0..<slotBytes - skip {
                let byte = UInt32(bytes[at + (little ? position + skip : slotBytes - 1 - position - skip)])
                word |= byte << UInt32(position * 8)
            }
            let unused = UInt32(32 - bits)
            let value = Int32(bitPattern: word << unused) >> Int32(unused)
            let high = word >> UInt32(width * 8)
            let padding = UInt32(slotBytes - width) * 8
            let signFill: UInt32 = value < 0 ? (padding >= 32 ? .max : (1 << padding) - 1) : 0
            if high != 0 && high != signFill {
                let frame = start + Int64(index / channels)
                throw SourceError(
                    "frame \(frame), channel \(index % channels + 1): the \(slotBytes)-byte slot holds bits above its \(bits)-bit sample (0x\(String(word, radix: 16))); the samples are not laid out as the 'fmt ' chunk says"
                )
            }
            ints[index] = value << shift
        }
    }
}

/// A source's samples as `convert` and `verify --against` use them: decoded by cafconv's own WAV
/// reader when it can (linear PCM, µ-law, A-law), else by libsndfile; never more frames than the header says
/// (`fact` for compressed WAV: decoder padding is left out).
package final class SourceAudio {
    /// Where each channel plays, when the file says (a WAVE channel mask, a CAF `chan`, AIFF's
    /// fixed orders; set by ``open(_:)``): `nil` when the order is only assumed.
    package var speakers: SpeakerLayout?

    /// Who decodes the samples.
    package enum Decoder {
        case cafconv(WAVESamples, FileByteSource)
        case libsndfile(SoundFile)
        /// CAFKit's IMA4 decoder (an IMA4 CAF source, see `IMA4Source`).
        case ima4(IMA4PullReader)
        /// libavformat + libavcodec: a lossless source libsndfile refuses (12-bit FLAC...).
        case libavcodec(AVFileDecoder)
        /// A lossy codec's decoder behind CAFKit's packets: libavcodec's for an AAC CAF source (see
        /// `AACSourceRoute`), libopus's for an Opus source (see `OpusSourceRoute`).
        case packets(any LossyFileDecoder)
        /// libmpg123, called directly: MPEG audio (MP3), decoded to its end (see `SecondDecoder`).
        case mpg123(MPG123Decoder)
    }

    package let decoder: Decoder
    package let channels: Int
    package let sampleRate: Int
    /// The rate exactly as the container stores it (``SourceContent/storedRate``), set by `open`;
    /// `Double(sampleRate)` otherwise.
    package var exactSampleRate: Double
    /// Whether samples come as `Double`s (float sources) rather than left-justified integers.
    package let isFloat: Bool
    /// Frames to read at most; `nil` reads until the decoder stops.
    package let limit: Int64?
    /// Counts the frames read, for a progress display (the encoder's reading only).
    package var progress: FrameProgress? = nil
    /// Bits of a sample (for naming rules): 8, 16, 24 or 32 for integers (16 for what libsndfile
    /// decodes from compressed formats), 32 or 64 for floats.
    package let bits: Int
    package private(set) var position: Int64 = 0
    /// The report's meters, fed every block read (``attach(_:)``); `nil` measures nothing.
    package internal(set) var tap: LevelTap?

    /// The law of the source's codes, when cafconv decodes µ-law or A-law codes itself.
    package var law: G711Law? {
        if case .cafconv(let samples, _) = decoder { return samples.law }
        return nil
    }

    /// The source's own µ-law or A-law codes of `count` frames from frame `start`, when cafconv
    /// decodes a G.711 source itself; `nil` otherwise.
    package func codes(from start: Int64, count: Int) throws(SourceError) -> [UInt8]? {
        guard case .cafconv(let samples, let source) = decoder, samples.law != nil else { return nil }
        do {
            return try source.readExactly(
                at: samples.offset + UInt64(start) * UInt64(samples.bytesPerFrame), count: count * samples.bytesPerFrame)
        } catch {
            throw SourceError("cannot read the source's samples: \(error)")
        }
    }

    /// The proof names it.
    package var decoderName: String {
        switch decoder {
        case .cafconv: return "cafconv"
        case .libsndfile: return "libsndfile"
        case .ima4: return "cafkit-ima4"
        case .libavcodec: return "libavcodec"
        case .packets(let decoder): return decoder.decoderName
        case .mpg123: return "libmpg123"
        }
    }

    package init(ima4 reader: IMA4PullReader, sampleRate: Int) {
        decoder = .ima4(reader)
        channels = reader.stream.channels
        self.sampleRate = sampleRate
        exactSampleRate = Double(sampleRate)
        isFloat = false
        limit = Int64(clamping: reader.stream.validFrames)
        bits = 16
    }

    package init(avcodec decoder: AVFileDecoder, limit: Int64?) {
        self.decoder = .libavcodec(decoder)
        channels = decoder.channels
        sampleRate = decoder.sampleRate
        isFloat = decoder.isFloat
        self.limit = limit
        bits = decoder.containerBits
        exactSampleRate = Double(decoder.sampleRate)
    }

    /// An MPEG audio source: libmpg123's floats, at most `limit` frames.
    package init(mpg123 decoder: MPG123Decoder, limit: Int64?) {
        self.decoder = .mpg123(decoder)
        channels = decoder.channels
        sampleRate = decoder.sampleRate
        exactSampleRate = Double(decoder.sampleRate)
        isFloat = true
        self.limit = limit
        bits = 32
    }

    /// A lossy source decoded packet by packet (AAC or Opus): floats as its decoder decodes them,
    /// the priming dropped.
    package init(packets decoder: any LossyFileDecoder) {
        self.decoder = .packets(decoder)
        channels = decoder.channels
        sampleRate = decoder.sampleRate
        isFloat = true
        limit = decoder.validFrames
        bits = 32
        exactSampleRate = Double(decoder.sampleRate)
    }

    package init(samples: WAVESamples, source: FileByteSource, sampleRate: Int) {
        decoder = .cafconv(samples, source)
        channels = samples.channels
        self.sampleRate = sampleRate
        exactSampleRate = Double(sampleRate)
        isFloat = samples.isFloat
        limit = samples.frames
        bits = samples.bits
    }

    package init(reader: SoundFile, limit: Int64?) {
        decoder = .libsndfile(reader)
        channels = max(reader.info.channels, 1)
        sampleRate = reader.info.sampleRate
        exactSampleRate = Double(reader.info.sampleRate)
        // Lossy decoders' floats are read as floats (the reader's normalisation is on for them).
        isFloat = reader.info.encoding.isFloat || reader.info.encoding.isLossy
        self.limit = limit
        bits =
            reader.info.encoding.isLossy ? 32 : reader.info.encoding.isLinearPCM ? (reader.info.encoding.bits ?? 16) : 16
    }

    /// Opens `path` for reading as `convert` reads it: the container told by content, once, and
    /// the decoder ``DecodeRoute/route(for:)`` picks (cafconv's own for linear PCM and G.711 in
    /// WAV, AIFF and CAF; CAFKit for IMA4; libavcodec for AAC; else libsndfile limited to the
    /// header's frame count, or its own count).
    package static func open(_ path: String) throws(SourceError) -> SourceAudio {
        let byteSource: FileByteSource
        let content: SourceContent
        let route: DecodeRoute
        do {
            byteSource = try FileByteSource(path: path)
        } catch {
            throw SourceError("\(path): \(error)")
        }
        do {
            content = try SourceContent.read(byteSource, brokenCAF: SourceContent.convertsBrokenCAF(byteSource))
            route = try DecodeRoute.route(for: content)
        } catch {
            throw SourceError("\(path): \(error.message)")
        }
        let audio = try decoding(path, input: byteSource, content: content, route: route)
        // Where the channels play, when the file says (a loudness meter weighs them by it).
        let (layout, assumed) = content.speakerLayout(channels: audio.channels, input: byteSource)
        if !assumed { audio.speakers = layout }
        return audio
    }

    /// The decoding ``open(_:)`` picks for the file at `path` (read as `content`, by `route`).
    private static func decoding(
        _ path: String, input byteSource: FileByteSource, content: SourceContent, route: DecodeRoute
    ) throws(SourceError) -> SourceAudio {
        do {
            if let audio = try codecAudio(route, content: content, input: byteSource, path: path) { return audio }
        } catch {
            throw SourceError("\(path): \(error.message)")
        }
        if case .cafconv(var samples) = route {
            try samples.settleSlots(in: byteSource)
            let declared: Double
            switch content {
            case .wave(let wave): declared = Double(wave.format.sampleRate)
            case .aiff(let aiff): declared = aiff.sampleRate
            case .caf(let caf): declared = caf.audioDescription.sampleRate
            case .other: declared = 0
            }
            // An AIFF's 80-bit rate or a CAF's Float64 can be 1e300 (finite and positive, so the
            // readers take it): `Int(_:)` of it would trap.
            guard let rate = Int(exactly: declared.rounded()), rate >= 0 else {
                throw SourceError("\(path): the sample rate \(declared) Hz is out of range")
            }
            let audio = SourceAudio(samples: samples, source: byteSource, sampleRate: rate)
            audio.exactSampleRate = content.exactRate(integerRate: rate)
            return audio
        }
        let reader: SoundFile
        do {
            reader = try SoundFile.open(readingFrom: path)
            try reader.setNormalisation(reader.info.encoding.isLossy)
        } catch {
            // A lossless stream libsndfile refuses: libavcodec reads it, as `convert` does.
            if case .other = content {
                do {
                    if let stage = try SourceStage.openWithAVCodec(
                        path, input: byteSource, content: content, refusal: error.message)
                    {
                        return try AVCodecSource.audio(path, limit: stage.headerFrames)
                    }
                } catch let refusal {
                    throw SourceError("\(path): \(refusal.message)")
                }
            }
            throw SourceError("\(path): \(error.message)")
        }
        var limit: Int64? = content.audioBytes == 0 ? 0 : content.declaredFrames ?? reader.info.frames
        // Lossy streams and FLAC: the frames both decoders read to the end (`SecondDecoder`), so
        // that an output cut short is never compared with a source cut short the same way.
        var audio = SourceAudio(reader: reader, limit: limit)
        if SecondDecoder.applies(to: reader.info, content: content) {
            do {
                let agreed = try SecondDecoder.crossCheck(path, info: reader.info, content: content).frames
                var ignored: [ConversionWarning] = []
                limit = SecondDecoder.frames(agreed: agreed, content: content, warnings: &ignored)
                // MPEG audio: libmpg123's decoding, as `convert` wrote it; else libsndfile's.
                audio =
                    reader.info.encoding.isMPEG
                    ? try SecondDecoder.firstDecoding(path, info: reader.info, content: content, limit: limit)
                    : SourceAudio(reader: reader, limit: limit)
            } catch {
                throw SourceError("\(path): \(error.message)")
            }
        }
        audio.exactSampleRate = content.exactRate(integerRate: reader.info.sampleRate)
        return audio
    }

    /// The decoding of an IMA4, AAC (CAF, MP4/M4A, ADTS) or Opus source (CAFKit's, libavcodec's
    /// behind libavformat's packets, libopus's), as `convert` decodes it (the source table's
    /// roads in `SourceStage.open`); `nil` for the other kinds (an ALAC M4A among them: the
    /// libavcodec lossless road reads it).
    private static func codecAudio(
        _ route: DecodeRoute, content: SourceContent, input: FileByteSource, path: String
    ) throws(ConversionError) -> SourceAudio? {
        switch (route, content) {
        case (.ima4, _): return try IMA4Source(content, input: input).audio()
        case (.aac, .caf(let file)):
            try LibAVCodecLoad.load()
            return SourceAudio(packets: try AACSourceRoute.decoder(file, input))
        case _ where OpusSourceRoute.applies(to: content, input: input):
            do { try LibOpus.load() } catch { throw .source(.opusUndecodable(error.message)) }
            var file: CAFFile?
            if case .caf(let caf) = content { file = caf }
            return SourceAudio(packets: try OpusSourceRoute.decoder(file, input))
        case (.libsndfile, _) where M4ASource.sniff(input):
            try LibAVCodecLoad.load()
            guard let stream = try M4ASource.scan(path) else { return nil }
            return try M4ASource.Source(path: path, stream: stream).audio()
        default: return nil
        }
    }

    /// Reads up to `frames` frames into `ints` or `doubles` (by `isFloat`); 0 at the end.
    package func read(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(SourceError) -> Int {
        var wanted = frames
        if let limit { wanted = Int(min(Int64(wanted), max(0, limit - position))) }
        guard wanted > 0 else {
            tap?.finish()
            return 0
        }
        let got: Int
        switch decoder {
        case .cafconv(let samples, let source):
            try samples.decode(source, from: position, count: wanted, ints: &ints, doubles: &doubles)
            got = wanted
        case .ima4(let reader):
            got = try reader.read(into: &ints, frames: wanted)
        case .libavcodec(let reader):
            do { got = try reader.read(ints: &ints, doubles: &doubles, frames: wanted) } catch {
                throw SourceError("libavcodec cannot decode it: \(error.message)")
            }
        case .packets(let reader):
            var floats: [Float] = []
            do { got = try reader.readFloats(into: &floats, frames: wanted) } catch {
                throw SourceError("cannot decode its \(reader.codecName): \(error.message)")
            }
            if doubles.count < got * channels { doubles = [Double](repeating: 0, count: got * channels) }
            for index in 0..<(got * channels) { doubles[index] = Double(floats[index]) }
        case .mpg123(let reader):
            do { got = try reader.read(into: &doubles, frames: wanted) } catch {
                throw SourceError("libmpg123 cannot decode it: \(error.message)")
            }
        case .libsndfile(let reader):
            do {
                got = isFloat ? try reader.read(into: &doubles, frames: wanted) : try reader.read(into: &ints, frames: wanted)
            } catch {
                throw SourceError("reading failed: \(error.message)")
            }
        }
        position += Int64(got)
        if got == 0 { tap?.finish() } else { tap?.add(ints: ints, doubles: doubles, frames: got, isFloat: isFloat) }
        progress?.add(got)
        return got
    }
}

/// Compares a written output with its source, sample by sample, over every frame.
package enum OutputProof {
    /// What the output decodes with.
    package enum OutputDecoder {
        /// CAFKit's linear PCM decoder over the file's bytes.
        case cafkit(PCMLayout, FileByteSource, offset: UInt64, frames: Int64)
        /// CAFKit's G.711 decoder over the file's codes (one byte per channel and frame), checked
        /// against the source as `check` says.
        case g711(G711Law, FileByteSource, offset: UInt64, frames: Int64, check: G711Check)
        /// libsndfile (ALAC), compared at `bits` of precision.
        case libsndfile(SoundFile, bits: Int)
    }

    /// How the codes of a µ-law or A-law output are checked against the source's samples.
    package enum G711Check: Equatable {
        /// Every code is the nearest level of the same sign to the source's exact sample
        /// (``G711Law/follows(_:for:)``): the `g711-ulaw` / `g711-alaw` rule.
        case rule
        /// Every code decodes to the source's level: a source of the same law, whose µ-law -0
        /// may have been re-coded as +0.
        case levels
        /// Every code is the source's own code, byte for byte: a source of the same law whose
        /// codes were copied (µ-law -0 stays 0x7F). Falls back to ``levels`` when cafconv does
        /// not read the source's codes itself.
        case codes

        /// The check for `law` codes of a source of `sourceLaw`: the rule for any other source;
        /// the codes when they were copied, else the levels.
        package init(law: G711Law, sourceLaw: G711Law?, copied: Bool) {
            self = sourceLaw != law ? .rule : copied ? .codes : .levels
        }
    }

    /// A difference: a sample (where and what), or the frame counts.
    package struct Mismatch: Equatable {
        package var frame: Int64
        package var channel: Int
        package var expected: String
        package var found: String
        /// The byte offset of the sample in the output, when known.
        package var offset: UInt64?
        /// Set when the frame counts differ instead: the source's and the output's.
        package var frames: FrameCounts?
    }

    /// Frames in the source and in the output.
    package struct FrameCounts: Equatable {
        package var expected: Int64
        package var found: Int64
    }

    /// Reads `source` and `output` side by side to the end and returns the first mismatch, or
    /// `nil` when every frame matches and both hold as many frames. `isCancelled` is asked
    /// between blocks (a cancelled run returns `nil` early; the caller checks cancellation).
    /// `levelTap` (a started `LevelTap`, and the layout `SourceAudio` decodes the output's bytes
    /// by) is fed every output frame as it is compared, and finished when every frame matched.
    package static func firstMismatch(
        source: any FrameSource, output: OutputDecoder, blockSamples: Int = 1 << 16,
        levelTap: (tap: LevelTap, layout: WAVESamples?)? = nil, isCancelled: () -> Bool = { false },
        loudnessTap: OutputLoudnessTap? = nil
    ) throws(SourceError) -> Mismatch? {
        var meter = levelTap.map { OutputMeter(tap: $0.tap, layout: $0.layout) }
        let channels = source.channels
        // `--loudness`: the output's own decoding, block by block, to the tap's meter (not G.711's).
        var tap = loudnessTap
        if case .g711 = output { tap = nil }
        tap?.begin(channels: channels, sampleRate: source.sampleRate)
        let blockFrames = max(1, blockSamples / channels)
        // Both buffers are full size: the comparison maps float sources into integers in place.
        var ints = [Int32](repeating: 0, count: blockFrames * channels)
        var doubles = [Double](repeating: 0, count: blockFrames * channels)
        var found = [Int32](repeating: 0, count: blockFrames * channels)
        var mapped = [Int32](repeating: 0, count: blockFrames * channels)
        var frame: Int64 = 0
        while true {
            if isCancelled() { return nil }
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            switch output {
            case .cafkit(_, let bytes, let offset, let total), .g711(_, let bytes, let offset, let total, _):
                // Bytes per sample: a linear PCM layout's, or one G.711 code.
                var sampleBytes = 1
                if case .cafkit(let layout, _, _, _) = output { sampleBytes = layout.bytesPerSample }
                let frameBytes = sampleBytes * channels
                let available = Int(min(Int64(got), max(0, total - frame)))
                if available > 0 {
                    let start = offset + UInt64(frame) * UInt64(frameBytes)
                    let slice: [UInt8]
                    do { slice = try bytes.readExactly(at: start, count: available * frameBytes) } catch {
                        throw SourceError("cannot read the output: \(error)")
                    }
                    if let difference = try firstDifference(
                        output, slice: slice, source: source, from: frame, ints: ints, doubles: doubles,
                        samples: available * channels)
                    {
                        return Mismatch(
                            frame: frame + Int64(difference.index / channels), channel: difference.index % channels + 1,
                            expected: difference.expected, found: difference.found,
                            offset: start + UInt64(difference.index * sampleBytes))
                    }
                    try meter?.add(bytes: slice, frames: available)
                    if case .cafkit(let layout, _, _, _) = output {
                        tap?.add(layout, bytes: slice[...], samples: available * channels)
                    }
                }
                if available < got || got == 0 {
                    let sourceFrames = frame + Int64(got) + (got == 0 ? 0 : try remaining(source, blockFrames))
                    if sourceFrames != total {
                        return Mismatch(
                            frame: frame + Int64(available), channel: 1, expected: "", found: "",
                            frames: FrameCounts(expected: sourceFrames, found: total))
                    }
                    meter?.tap.finish()
                    return nil
                }
            case .libsndfile(let reader, let bits):
                let back: Int
                do { back = try reader.read(into: &found, frames: got == 0 ? blockFrames : got) } catch {
                    throw SourceError("cannot decode the output: \(error.message)")
                }
                if back != got {
                    let sourceFrames = frame + Int64(got) + (back < got ? try remaining(source, blockFrames) : 0)
                    let outputFrames = frame + Int64(back) + (back > got ? try remaining(reader, blockFrames) : 0)
                    return Mismatch(
                        frame: frame, channel: 1, expected: "", found: "",
                        frames: FrameCounts(expected: sourceFrames, found: outputFrames))
                }
                if got == 0 {
                    meter?.tap.finish()
                    return nil
                }
                meter?.tap.add(ints: found, doubles: [], frames: got, isFloat: false)
                let count = got * channels
                if source.isFloat {
                    SampleScaling.floatsToIntegers(doubles, into: &mapped, count: count, bits: bits)
                } else {
                    for index in 0..<count { mapped[index] = ints[index] }
                }
                let drop = Int32(32 - bits)
                for index in 0..<count where mapped[index] >> drop != found[index] >> drop {
                    return Mismatch(
                        frame: frame + Int64(index / channels), channel: index % channels + 1,
                        expected: "\(mapped[index] >> drop)", found: "\(found[index] >> drop)")
                }
                tap?.add(leftJustified: found, count: count)
            }
            frame += Int64(got)
        }
    }

    /// Where the output's bytes of a block (`slice`, decoded by CAFKit) first differ from the
    /// source's `samples` samples of that block, which start at frame `start`.
    private static func firstDifference(
        _ output: OutputDecoder, slice: [UInt8], source: any FrameSource, from start: Int64, ints: [Int32], doubles: [Double],
        samples: Int
    ) throws(SourceError) -> SampleComparison.Difference? {
        switch output {
        case .cafkit(let layout, _, _, _):
            return SampleComparison.firstDifference(
                layout: layout, bytes: slice[...], sourceIsFloat: source.isFloat, ints: ints, doubles: doubles,
                samples: samples)
        case .g711(let law, _, _, _, let check):
            // The source's own codes, for a copy cafconv can read them from.
            let sourceCodes = check == .codes ? try source.codes(from: start, count: samples / source.channels) : nil
            for index in 0..<samples {
                let code = slice[index]
                // The source's sample on the 16-bit scale, exact.
                let value = source.isFloat ? doubles[index] * 32768 : Double(ints[index]) / 65536
                if let sourceCodes {
                    if sourceCodes[index] == code { continue }
                    return SampleComparison.Difference(
                        index: index, expected: law.describe(sourceCodes[index]), found: law.describe(code))
                }
                if check == .rule {
                    if law.follows(code, for: value) { continue }
                    return SampleComparison.Difference(
                        index: index,
                        expected:
                            "\(G711Law.level(value)), whose nearest \(law) level of the same sign (the G.711 rule) is \(law.describe(law.encode(float: value / 32768)))",
                        found: law.describe(code))
                }
                if Double(law.decode(code)) == value { continue }
                return SampleComparison.Difference(index: index, expected: G711Law.level(value), found: law.describe(code))
            }
            return nil
        case .libsndfile:
            return nil
        }
    }

    /// Frames left in `source` (read and thrown away).
    package static func remaining(_ source: any FrameSource, _ blockFrames: Int) throws(SourceError) -> Int64 {
        var ints = [Int32](repeating: 0, count: source.isFloat ? 0 : blockFrames * source.channels)
        var doubles = [Double](repeating: 0, count: source.isFloat ? blockFrames * source.channels : 0)
        var total: Int64 = 0
        while true {
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            if got == 0 { return total }
            total += Int64(got)
        }
    }

    /// Frames left in `reader`.
    private static func remaining(_ reader: SoundFile, _ blockFrames: Int) throws(SourceError) -> Int64 {
        var buffer = [Int32](repeating: 0, count: blockFrames * max(reader.info.channels, 1))
        var total: Int64 = 0
        do {
            while true {
                let got = try reader.read(into: &buffer, frames: blockFrames)
                if got == 0 { return total }
                total += Int64(got)
            }
        } catch {
            throw SourceError("cannot decode the output: \(error.message)")
        }
    }
}
