import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer
import WAVEKit

/// Stage 1 of a conversion, the **Source**: the input opened by cafconv's WAV reader and by
/// libsndfile, the two readings cross-checked, and what the source is (encoding, channels, rate,
/// the header's frame count). Later stages take their samples from here: `pumpAudio` for the
/// encoder, `proofAudio` for the proof's independent decoding.
package struct SourceStage {
    /// The input's path.
    package let path: String
    /// The input's bytes, read at offsets.
    package let input: FileByteSource
    /// What the input is, told by its content: WAV, AIFF, CAF, or something only libsndfile reads.
    package let content: SourceContent
    /// The input as libsndfile opened it (normalisation off); `nil` when libsndfile cannot open a
    /// source cafconv still reads: a lossless stream libavcodec reads (`avcodec`), or a RIFX
    /// WAVE_FORMAT_EXTENSIBLE file whose GUID is in the RIFF layout
    /// (`WAVEFormat.subFormatInRIFFLayout`), which cafconv's own reader decodes alone.
    package let reader: SoundFile?
    /// What libsndfile says the input is (libavcodec, for `avcodec` sources; cafconv's reader
    /// for a source only it reads).
    package let info: SoundInfo
    /// For a lossless source libsndfile refuses: the libavcodec decoding that reads it instead
    /// (its codec name), and the frames it decoded to the end of the file.
    package let avcodec: String?
    /// cafconv's own decoding of the input's samples (linear PCM, µ-law, A-law in WAV, AIFF or
    /// CAF), if it has one (``DecodeRoute/route(for:)`` decides).
    package let samples: WAVESamples?
    /// libsndfile's first and last frames, when its reading agreed with cafconv's.
    package let probe: SampleProbe?
    /// The source's encoding: cafconv's reading where it has one, else libsndfile's.
    package let encoding: Encoding
    /// The header's frame count (`nil` when the header does not say).
    package let headerFrames: Int64?
    /// The decoder of a source whose kind has one of its own (``DecodeRoute/ima4``,
    /// ``DecodeRoute/aac``); `nil` for the others.
    package var codec: CodecSource? = nil
    /// `convert --report`: the meters the first ``proofAudio()`` decoding feeds; `nil` otherwise.
    package var levelTap: LevelTap? = nil
    /// Counts the frames the encoder reads (``pumpAudio()``), for a progress display.
    package var frameProgress: FrameProgress? = nil

    /// The sources a decoder of their own reads, with what it needs.
    package enum CodecSource {
        /// CAFKit's IMA4 decoder.
        case ima4(IMA4Source)
        /// libavcodec's AAC decoder, and the linear PCM the job asks of it.
        case aac(AACSourceRoute.Source)
        /// libopus's decoder of an Opus CAF or Ogg Opus stream.
        case opus(OpusSourceRoute.Source)
        /// libavformat's packets of an MP4 or ADTS AAC source, decoded by libavcodec (``M4ASource``).
        case m4a(M4ASource.Source)

        /// A fresh decoding of the source (each call is an independent decoding).
        package func audio() throws(ConversionError) -> SourceAudio {
            switch self {
            case .ima4(let source): return try source.audio()
            case .aac(let source): return try source.audio()
            case .opus(let source): return try source.audio()
            case .m4a(let source): return try source.audio()
            }
        }
    }

    /// The input as cafconv's WAV reader parses it, when it is WAV.
    package var wave: WAVEFile? {
        if case .wave(let wave) = content { return wave }
        return nil
    }

    /// Whether the pump and the proof get the samples as floats: float PCM, or a lossy codec
    /// (MP3, Vorbis, Opus), whose decoder's floats are read normalised to [-1, 1].
    package var decodesAsFloats: Bool { encoding.isFloat || encoding.isLossy }

    /// The byte order of the source's samples (`--endian source`).
    package var byteOrder: ByteOrder {
        if codec != nil { return .little }
        return content.sampleByteOrder(info)
    }

    /// The encoding an output without `-d` keeps (``TargetFormat/kept(_:)``): the source's, but
    /// AAC, a lossy codec decoded to floats, becomes 16-bit as the other lossy sources do.
    package var encodingToKeep: Encoding {
        if case .aac? = codec { return .pcm16 }
        return encoding
    }

    /// Refuses what `options` ask of this source that it cannot do, once it is open (so the
    /// report says what the source is): an AAC source is not resampled or remixed.
    package func admits(_ options: ConversionOptions, result: inout FileResult) throws(ConversionError) {
        guard case .aac? = codec else { return }
        result.channels = info.channels
        result.sampleRate = info.sampleRate
        if options.sampleRate.map({ $0 != info.sampleRate }) ?? false || options.channels.map({ $0 != info.channels }) ?? false {
            throw .source(.aacNoTransform)
        }
    }

    /// Refuses an output plan this source cannot be written as, once the plan is known (so the
    /// report says what was asked): IMA4 becomes linear PCM or stays IMA4; µ-law, A-law and ALAC
    /// from IMA4 are refused.
    package func admits(_ target: TargetFormat) throws(ConversionError) {
        guard case .ima4? = codec, !target.encoding.isLinearPCM, !target.isIMA4 else { return }
        throw .source(.ima4Target("\(target)"))
    }

    /// Checks the frames the encoder got against what the source declares, for the sources
    /// whose length is exact by construction (an AAC or Opus `pakt`, an Ogg Opus granule
    /// position): fewer or more is an error, not the short-read warning other sources give.
    /// `rate` is the plan's resampling, if any: `frames` are then the output's, and are compared
    /// with the declared frames at the output's rate (``SampleRateMapping/frames(_:)``, the
    /// exact length the transform makes of them).
    package func checkDecoded(frames: Int64, rate: SampleRateMapping?) throws(ConversionError) {
        let declaredBy: FrameDeclaration
        switch codec {
        case .aac?: declaredBy = .pakt
        case .opus(let opus)?: declaredBy = opus.file == nil ? .granule : .pakt
        case .ima4?, .m4a?, nil: return
        }
        guard let declared = headerFrames else { return }
        let expected = rate?.frames(declared) ?? declared
        guard frames != expected else { return }
        throw .source(
            .paktFrames(
                decoded: frames, expected: expected, declared: declared, declaredBy: declaredBy,
                outputRate: rate?.targetRate))
    }

    /// The loops, markers, regions and text the output carries (none with `--strip-metadata`),
    /// placed at `outputRate` in an output of `outputFrames`; what cannot be carried is said in
    /// `warnings`. An AAC source's are not carried: where a position falls with the encoder's
    /// priming is not settled, so it is said, not guessed.
    package func metadata(
        outputRate: Double, outputFrames: UInt64, options: ConversionOptions, warnings: inout [ConversionWarning]
    ) -> [CAFChunk] {
        if options.stripMetadata { return [] }
        if case .aac? = codec {
            if !MetadataMapping.read(input).0.isEmpty { warnings.append(.metadata(.notCarriedFromAAC)) }
            return []
        }
        return ContainerStage.metadata(
            of: input, sourceRate: exactRate, outputRate: outputRate, outputFrames: outputFrames, warnings: &warnings)
    }

    /// Opens `path` for a road that decodes neither IMA4 nor AAC CAF sources (`verify`'s
    /// transformed reference): the container told by content, libsndfile's reading of it, the
    /// two readings cross-checked; an MP4/M4A or ADTS AAC source through libavformat
    /// (``M4ASource``); an Opus CAF or Ogg Opus stream through libopus as `convert` decodes it
    /// (``OpusSourceRoute``). Throws when they disagree, either cannot read it, or the
    /// source is one this road refuses. What the report should say about the source (the
    /// container's warnings, cross-check notes) is appended to `warnings` as it is found, so that
    /// it is kept when a later step fails.
    package static func open(_ path: String, warnings: inout [ConversionWarning]) throws(ConversionError) -> SourceStage {
        let input = try openInput(path)
        let content = try SourceContent.read(input)
        if case .other = content, M4ASource.sniff(input),
            let m4a = try M4ASource.admit(path, input: input, content: content, output: "", warnings: &warnings)
        {
            return m4a
        }
        if OpusSourceRoute.applies(to: content, input: input) {
            return try OpusSourceRoute.admit(path, input: input, content: content, output: "", warnings: &warnings)
        }
        return try open(path, input: input, content: content, warnings: &warnings)
    }

    /// Opens the source of a `convert` job, of any kind the route table (``DecodeRoute``) names:
    /// IMA4, AAC and Opus sources with their own decoders (Opus CAFs and Ogg Opus told by
    /// ``OpusSourceRoute/applies(to:input:)``), after the refusals that depend on what
    /// `options` ask of them (``IMA4Source/admit(_:options:warnings:)``,
    /// ``AACSourceRoute/admit(_:options:)``); every other kind as ``open(_:warnings:)`` opens it.
    package static func open(
        _ job: Job, options: ConversionOptions, warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage {
        let path = job.input
        let input = try openInput(path)
        // `-d aac` meets a broken CAF as any road does; convert's own decoders name it their way.
        let toAAC = options.dataFormat?.kind == .aac
        let content = try SourceContent.read(
            input, brokenCAF: toAAC ? SourceFailure.unreadableCAF : SourceContent.convertsBrokenCAF(input))
        switch Result(catching: { () throws(ConversionError) in try DecodeRoute.route(for: content) }) {
        case .success(.aac):
            return try AACSourceRoute.admit(path, input: input, content: content, output: job.output, options: options)
        case _ where OpusSourceRoute.applies(to: content, input: input):
            return try OpusSourceRoute.admit(path, input: input, content: content, output: job.output, warnings: &warnings)
        case .success(.ima4) where !toAAC:
            return try IMA4Source.admit(path, input: input, content: content, options: options, warnings: &warnings)
        case .success(.libsndfile) where M4ASource.sniff(input):
            if let m4a = try M4ASource.admit(path, input: input, content: content, output: job.output, warnings: &warnings) {
                return m4a
            }
            return try open(path, input: input, content: content, warnings: &warnings)
        default:
            return try open(path, input: input, content: content, warnings: &warnings)
        }
    }

    /// The input's bytes, or why they cannot be read.
    private static func openInput(_ path: String) throws(ConversionError) -> FileByteSource {
        do { return try FileByteSource(path: path) } catch {
            // Opening or reading the input failed: that says nothing about its content.
            guard case .io(_, let code, _) = error else { throw .source(.unusable(reason: error.description)) }
            let missing = [ENOENT, ENOTDIR, EISDIR, EINVAL].contains(code)
            throw .source(missing ? .missing(reason: error.description) : .unopenable(reason: error.description))
        }
    }

    /// The kinds every road takes: cafconv's reader, libsndfile (with the second decoder), or
    /// libavcodec where libsndfile refuses a lossless stream.
    private static func open(
        _ path: String, input: FileByteSource, content: SourceContent, warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage {
        warnings = content.warnings.map(ConversionWarning.source)
        let route = try DecodeRoute.route(for: content)
        if let refusal = route.refusalOutsideConvert(content) { throw .source(refusal) }
        let reader: SoundFile
        do { reader = try SoundFile.open(readingFrom: path) } catch {
            return try openWithoutLibsndfile(
                path, input: input, content: content, route: route, refusal: error.message, warnings: &warnings)
        }
        // Lossy decoders make floats: cafconv reads them as floats in [-1, 1], which needs
        // libsndfile's normalisation on (with it off, libsndfile 1.2's MP3 decoder scales its
        // doubles by 32768 while Vorbis and Opus do not). Every other source: off.
        do { try reader.setNormalisation(reader.info.encoding.isLossy) } catch {
            throw .source(.libsndfileRefuses(error.message))
        }
        var samples: WAVESamples?
        if case .cafconv(let own) = route { samples = own }
        do { try samples?.settleSlots(in: input) } catch { throw .source(.slotsUnreadable(error.message)) }
        let probe = try samples.flatMap { samples throws(ConversionError) in
            try checkedAgainst(samples, content: content, reader: reader, input: input, warnings: &warnings)
        }
        let headerFrames = try frameCount(path, content: content, samples: samples, info: reader.info, warnings: &warnings)
        return SourceStage(
            path: path, input: input, content: content, reader: reader, info: reader.info, avcodec: nil,
            samples: samples, probe: probe, encoding: samples.map(\.encoding) ?? reader.info.encoding,
            headerFrames: headerFrames)
    }

    /// cafconv's own reader decodes linear PCM and G.711: libsndfile must read the same samples,
    /// or the file is not converted (wide slots, which libsndfile cannot read, excepted: then
    /// `nil`, and a warning says cafconv's reader decoded them alone).
    private static func checkedAgainst(
        _ samples: WAVESamples, content: SourceContent, reader: SoundFile, input: FileByteSource,
        warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SampleProbe? {
        var probe: SampleProbe?
        switch try crossCheck(samples, content: content, reader: reader, input: input) {
        case .agree(let agreed): probe = agreed
        case .ownReader(let note): warnings.append(.source(note))
        }
        if reader.info.frames > samples.frames, case .aiff = content {
            warnings.append(.source(.ssndBeyondCOMM(extra: reader.info.frames - samples.frames, declared: samples.frames)))
        }
        return probe
    }

    /// The header's frame count: compressed formats decode to whole blocks, `fact` (or a CAF's
    /// packet table) says how many of those frames are audio; where the container does not say
    /// (FLAC, Ogg, MP3...), libsndfile's count (MP3: encoder delay and padding left out). An
    /// empty 'data' chunk holds no frames, whatever a decoder makes of the bytes after it. Lossy
    /// streams and FLAC: libsndfile and libavcodec decode the whole file and must agree; the
    /// frames are what both decoded, not a header's estimate.
    private static func frameCount(
        _ path: String, content: SourceContent, samples: WAVESamples?, info: SoundInfo,
        warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> Int64? {
        let audioBytes = content.audioBytes
        var headerFrames: Int64? =
            audioBytes == 0 ? 0 : samples?.frames ?? content.declaredFrames ?? (info.frames >= 0 ? info.frames : nil)
        if SecondDecoder.applies(to: info, content: content) {
            let agreement = try SecondDecoder.crossCheck(path, info: info, content: content)
            headerFrames = SecondDecoder.frames(agreed: agreement.frames, content: content, warnings: &warnings)
            // The second decoder's note is its own sentence (`SecondDecoder`).
            if let note = agreement.note { warnings.append(.source(note)) }
        }
        if audioBytes == 0, info.frames > 0 {
            warnings.append(.source(.bytesAfterEmptyData(chunk: content.dataChunkName, frames: info.frames)))
        }
        return headerFrames
    }

    /// The sources libsndfile refuses (`refusal`, its words) that cafconv still reads: a RIFX
    /// WAVE_FORMAT_EXTENSIBLE file whose GUID is in the RIFF layout and a linear PCM CAF whose
    /// `data` size is -1 (cafconv's reader alone), a lossless stream libavcodec reads; any other is refused, naming why.
    private static func openWithoutLibsndfile(
        _ path: String, input: FileByteSource, content: SourceContent, route: DecodeRoute, refusal: String,
        warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage {
        switch (content, route) {
        case (.wave(let wave), .cafconv(var own)) where wave.format.subFormatInRIFFLayout:
            // libsndfile reads RIFX's GUID in the file's byte order only; cafconv's reader
            // decodes the samples, with no second reading to cross-check.
            do { try own.settleSlots(in: input) } catch { throw .source(.slotsUnreadable(error.message)) }
            warnings.append(.source(.rifxExtensibleOwnReader(libsndfile: refusal)))
            let info = SoundInfo(
                frames: own.frames, sampleRate: Int(wave.format.sampleRate), channels: own.channels, major: .wav,
                encoding: own.encoding, endianness: .big)
            return SourceStage(
                path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: own,
                probe: nil, encoding: own.encoding, headerFrames: content.audioBytes == 0 ? 0 : own.frames)
        case (.other(let prefix), _):
            // A lossless stream libsndfile refuses (FLAC of 12 bits...): libavcodec reads it.
            if let read = try openWithAVCodec(path, input: input, content: content, refusal: refusal) { return read }
            throw .source(.notAudio(prefix: prefix, libsndfile: refusal))
        case (.caf(let caf), .cafconv(let own)) where caf.dataChunk?.declaredSize == -1:
            // A streamed CAF (`convert -o -`'s own): libsndfile refuses the `data` size -1 that
            // CAF allows for a last `data` chunk; cafconv's reader decodes it alone.
            warnings.append(.source(.unknownDataSizeOwnReader(libsndfile: refusal)))
            let info = SoundInfo(
                frames: own.frames, sampleRate: Int(exactly: caf.audioDescription.sampleRate.rounded()) ?? 0,
                channels: own.channels, major: .caf, encoding: own.encoding,
                endianness: own.byteOrder == .little ? .little : .big)
            return SourceStage(
                path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: own,
                probe: nil, encoding: own.encoding, headerFrames: content.audioBytes == 0 ? 0 : own.frames)
        case (.caf(let caf), _):
            throw .source(.cafNotDecoded(format: caf.audioDescription.formatName, libsndfile: refusal))
        default:
            throw .source(.libsndfileRefuses(refusal))
        }
    }

    /// Opens a lossless source libsndfile refused (`refusal`) with libavcodec: decoded once to
    /// the end to count its frames and to find damaged packets (refused, naming where). `nil`
    /// when libavcodec cannot read it either or it is lossy (a lossy stream needs two decoders).
    package static func openWithAVCodec(
        _ path: String, input: FileByteSource, content: SourceContent, refusal: String
    ) throws(ConversionError) -> SourceStage? {
        guard let decoder = try? AVFileDecoder(path: path), !AVCodecSource.lossyCodecs.contains(decoder.codec),
            decoder.channels > 0
        else { return nil }
        let frames = try AVCodecSource.count(decoder)
        let encoding: Encoding =
            decoder.isFloat
            ? (decoder.containerBits == 64 ? .float64 : .float32)
            : decoder.containerBits == 8 ? .pcmU8 : decoder.containerBits == 16 ? .pcm16 : (decoder.rawBits ?? 32) <= 24 ? .pcm24 : .pcm32
        let info = SoundInfo(
            frames: frames, sampleRate: decoder.sampleRate, channels: decoder.channels,
            major: decoder.codec == "flac" ? .flac : .other(0), encoding: encoding, endianness: .default)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: decoder.codec, samples: nil,
            probe: nil, encoding: encoding, headerFrames: frames)
    }

    /// The source's rate as its container stores it (``SourceContent/exactRate(integerRate:)``):
    /// what an output at the source's rate says in its `desc`.
    package var exactRate: Double { content.exactRate(integerRate: info.sampleRate) }

    /// The report's `formatIn`: the afconvert-style code, the WAV format tag's name, or the
    /// codec's (`flac16`, `vorbis`, `opus`, `mp3`).
    package var formatCode: String {
        switch codec {
        case .ima4?: return "ima4"
        case .aac(let aac)?: return aac.file.audioDescription.formatID.trimmed
        case .opus?: return "opus"
        case .m4a?: return "aac"
        case nil: return content.formatCode(encoding, info)
        }
    }

    /// The samples the encoder reads: cafconv's decoding when libsndfile cannot read the layout,
    /// libmpg123's for MPEG audio, else libsndfile's (rewound after the cross-check's probe), cut
    /// to the header's frames.
    package func pumpAudio() throws -> SourceAudio {
        let audio = try encoderAudio()
        audio.progress = frameProgress
        return audio
    }

    private func encoderAudio() throws -> SourceAudio {
        if let codec { return try codec.audio() }
        if probe == nil, let samples {
            return SourceAudio(samples: samples, source: input, sampleRate: info.sampleRate)
        }
        guard let reader else {
            if avcodec != nil { return try AVCodecSource.audio(path, limit: headerFrames) }
            throw ConversionError.source(.noReader)
        }
        if info.encoding.isMPEG { return try SecondDecoder.firstDecoding(path, info: info, content: content, limit: headerFrames) }
        if probe != nil { try reader.seek(toFrame: 0) }
        return SourceAudio(reader: reader, limit: headerFrames)
    }

    /// A fresh decoding of a source its own decoder reads (IMA4, AAC), for their roads.
    package func codecAudio() throws(ConversionError) -> SourceAudio {
        guard let codec else { throw .source(.noReader) }
        return try codec.audio()
    }

    /// The proof's independent decoding of the source: cafconv's WAV reader where it applies,
    /// else a second reading by the first decoder (libmpg123 for MPEG audio, else libsndfile).
    package func proofAudio() throws(ConversionError) -> SourceAudio {
        let audio = try independentAudio()
        // `convert --report`: the first full decoding of the source (the loudness plan's or the
        // proof's) feeds the report's meters.
        if let levelTap { audio.attach(levelTap) }
        return audio
    }

    /// ``proofAudio()`` once more, feeding no report meter: `--loudness`'s true-peak pass, when the
    /// first measurement could not rule out that the true peak caps the gain.
    package func proofAudioAgain() throws(ConversionError) -> SourceAudio { try independentAudio() }

    private func independentAudio() throws(ConversionError) -> SourceAudio {
        if let codec { return try codec.audio() }
        if let samples {
            return SourceAudio(samples: samples, source: input, sampleRate: info.sampleRate)
        }
        if reader == nil { return try AVCodecSource.audio(path, limit: headerFrames) }
        if info.encoding.isMPEG { return try SecondDecoder.firstDecoding(path, info: info, content: content, limit: headerFrames) }
        do {
            let again = try SoundFile.open(readingFrom: path)
            try again.setNormalisation(again.info.encoding.isLossy)
            return SourceAudio(reader: again, limit: headerFrames)
        } catch {
            throw ConversionError.libsndfile(
                code: error.code, message: error.message, doing: "libsndfile cannot read it again to check the output")
        }
    }

    /// The result of comparing libsndfile's reading of a linear PCM source with cafconv's.
    package enum CrossCheck {
        /// Same layout, frames and first and last frames: libsndfile's probe of both ends.
        case agree(SampleProbe)
        /// libsndfile cannot read this layout (wide slots, a wrapped 'data' size); cafconv's
        /// reader is the source, and the warning says so.
        case ownReader(SourceWarning)
    }

    /// Compares libsndfile's reading of the source with cafconv's own (layout, frames, the first
    /// and last 2048 frames) and throws, naming the disagreement, when they differ.
    package static func crossCheck(
        _ samples: WAVESamples, content: SourceContent, reader: SoundFile, input: some ByteSource
    ) throws(ConversionError) -> CrossCheck {
        let info = reader.info
        let container = content.name
        let header = content.headerChunkName
        if samples.hasWideSlots {
            return .ownReader(
                .wideSlots(
                    bits: samples.bits, slotBytes: samples.slotBytes, bytesPerFrame: samples.bytesPerFrame,
                    highJustified: samples.isHighJustified))
        }
        if info.channels != samples.channels {
            throw .source(
                .channelsDisagree(container: container, header: header, libsndfile: info.channels, declared: samples.channels))
        }
        if info.encoding != samples.encoding {
            throw .source(
                .encodingDisagrees(
                    container: container, header: header, libsndfile: "\(info.encoding)", declared: "\(samples.encoding)"))
        }
        // AIFF: 'COMM' counts the frames; bytes of 'SSND' after them are not audio, though
        // libsndfile reads them. The first frames must still agree.
        var aiffTail = false
        if case .aiff(let aiff) = content, info.frames > samples.frames, aiff.frames == UInt64(samples.frames) { aiffTail = true }
        // A WAV 'data' chunk whose 32-bit size wrapped (over 4 GiB, as sox writes it): libsndfile
        // reads the wrapped size; cafconv's reader reads the chunk to the end of the file.
        if case .wave(let wave) = content, wave.declaredAudioBytes < wave.audioBytes,
            info.frames == Int64(clamping: wave.declaredAudioBytes / UInt64(max(1, samples.bytesPerFrame)))
        {
            return .ownReader(.wrappedDataSize(libsndfile: info.frames, frames: samples.frames))
        }
        if info.frames != samples.frames && !aiffTail {
            let chunk = content.dataChunkName
            let bytes = content.audioBytes ?? 0
            let extent =
                bytes == 0
                ? "the '\(chunk)' chunk is empty (0 bytes)"
                : "the '\(chunk)' chunk holds \(samples.frames) frames (\(bytes) bytes of \(samples.bytesPerFrame))"
            throw .source(.framesDisagree(container: container, libsndfile: info.frames, extent: extent))
        }
        let probe: SampleProbe?
        do {
            probe = try SampleProbe.read(reader, frames: samples.frames, channels: samples.channels, isFloat: samples.isFloat)
        } catch {
            throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "reading failed")
        }
        guard let probe else { throw .source(.libsndfileShort(container: container, frames: samples.frames)) }
        let difference: (frame: Int64, channel: Int, expected: String, found: String)?
        do { difference = try probe.firstDifference(from: samples, in: input) } catch {
            throw .source(.samplesUndecodable(error.message))
        }
        if let difference {
            throw .source(
                .samplesDisagree(
                    container: container, frame: difference.frame, channel: difference.channel,
                    libsndfile: difference.expected, cafconv: difference.found))
        }
        return .agree(probe)
    }

}
