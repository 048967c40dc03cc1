import AACCodec
import BinaryIO
import SndFile
import SystemLayer
import WAVEKit

/// Stage 1 of a conversion, the **Source**: the input opened by cafconv's WAV reader and by
/// libsndfile, the two readings cross-checked, and what the source is (encoding, channels, rate,
/// the header's frame count). Later stages take their samples from here: `pumpAudio` for the
/// encoder, `proofAudio` for the proof's independent decoding.
struct SourceStage {
    /// The input's path.
    let path: String
    /// The input's bytes, read at offsets.
    let input: FileByteSource
    /// What the input is, told by its content: WAV, AIFF, CAF, or something only libsndfile reads.
    let content: SourceContent
    /// The input as libsndfile opened it (normalisation off); `nil` when libsndfile cannot open a
    /// source cafconv still reads: a lossless stream libavcodec reads (`avcodec`), or a RIFX
    /// WAVE_FORMAT_EXTENSIBLE file whose GUID is in the RIFF layout
    /// (`WAVEFormat.subFormatInRIFFLayout`), which cafconv's own reader decodes alone.
    let reader: SoundFile?
    /// What libsndfile says the input is (libavcodec, for `avcodec` sources; cafconv's reader
    /// for a source only it reads).
    let info: SoundInfo
    /// For a lossless source libsndfile refuses: the libavcodec decoding that reads it instead
    /// (its codec name), and the frames it decoded to the end of the file.
    let avcodec: String?
    /// cafconv's own decoding of the input's samples (linear PCM, µ-law, A-law in WAV, AIFF or
    /// CAF), if it has one (``DecodeRoute/route(for:)`` decides).
    let samples: WAVESamples?
    /// libsndfile's first and last frames, when its reading agreed with cafconv's.
    let probe: SampleProbe?
    /// The source's encoding: cafconv's reading where it has one, else libsndfile's.
    let encoding: Encoding
    /// The header's frame count (`nil` when the header does not say).
    let headerFrames: Int64?

    /// The input as cafconv's WAV reader parses it, when it is WAV.
    var wave: WAVEFile? {
        if case .wave(let wave) = content { return wave }
        return nil
    }

    /// Whether the pump and the proof get the samples as floats: float PCM, or a lossy codec
    /// (MP3, Vorbis, Opus), whose decoder's floats are read normalised to [-1, 1].
    var decodesAsFloats: Bool { encoding.isFloat || encoding.isLossy }

    /// The byte order of the source's samples (`--endian source`).
    var byteOrder: ByteOrder { content.sampleByteOrder(info) }

    /// Opens `path`, tells its container by content, opens it with libsndfile too and
    /// cross-checks the two readings; throws when they disagree, either cannot read it, or the
    /// source is one cafconv refuses (``DecodeRoute/route(for:)``). What the report should say
    /// about the source (the container's warnings, cross-check notes) is appended to `warnings`
    /// as it is found, so that it is kept when a later step fails.
    static func open(_ path: String, warnings: inout [ConversionWarning]) throws -> SourceStage {
        let input: FileByteSource
        do {
            input = try FileByteSource(path: path)
        } catch {
            // Opening or reading the input failed: that says nothing about its content.
            if case .io(_, let code, _) = error {
                throw ConversionError([ENOENT, ENOTDIR, EISDIR, EINVAL].contains(code) ? .input : .io, error.description)
            }
            throw ConversionError(.notAudio, error.description)
        }
        let content = try SourceContent.read(input)
        warnings = content.warnings.map(ConversionWarning.note)
        let route = try DecodeRoute.route(for: content)

        let opened: SoundFile
        do { opened = try SoundFile.open(readingFrom: path) } catch {
            if case .wave(let wave) = content, wave.format.subFormatInRIFFLayout, case .cafconv(var own) = route {
                // libsndfile reads RIFX's GUID in the file's byte order only; cafconv's reader
                // decodes the samples, with no second reading to cross-check.
                do { try own.settleSlots(in: input) } catch { throw ConversionError(.io, error.message) }
                warnings.append(
                    "libsndfile cannot read this RIFX WAVE_FORMAT_EXTENSIBLE file (its sub-format GUID is laid out as in RIFF): cafconv's own WAV reader decoded it alone (\(error.message))"
                )
                let info = SoundInfo(
                    frames: own.frames, sampleRate: Int(wave.format.sampleRate), channels: own.channels, major: .wav,
                    encoding: own.encoding, endianness: .big)
                return SourceStage(
                    path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: own,
                    probe: nil, encoding: own.encoding, headerFrames: content.audioBytes == 0 ? 0 : own.frames)
            }
            if case .other(let prefix) = content {
                // A lossless stream libsndfile refuses (FLAC of 12 bits...): libavcodec reads it.
                if let read = try openWithAVCodec(path, input: input, content: content, refusal: error.message) {
                    return read
                }
                throw ConversionError(
                    .notAudio,
                    "not audio cafconv can read (\(prefix)): not WAV, AIFF or CAF, and libsndfile cannot read it either (\(error.message))"
                )
            }
            if case .caf(let caf) = content {
                throw ConversionError(
                    .unsupported,
                    "libsndfile cannot read this CAF (\(caf.audioDescription.formatName)), and cafconv does not decode it itself: \(error.message)"
                )
            }
            throw ConversionError(.notAudio, "libsndfile cannot read it: \(error.message)")
        }
        let reader = opened
        // Lossy decoders make floats: cafconv reads them as floats in [-1, 1], which needs
        // libsndfile's normalisation on (with it off, libsndfile 1.2's MP3 decoder scales its
        // doubles by 32768 while Vorbis and Opus do not). Every other source: off.
        do { try reader.setNormalisation(reader.info.encoding.isLossy) } catch {
            throw ConversionError(.notAudio, "libsndfile cannot read it: \(error.message)")
        }
        let source = reader.info
        // cafconv's own reader decodes linear PCM and G.711; libsndfile must read the same
        // samples, or the file is not converted (wide slots, which libsndfile cannot read, excepted).
        var samples: WAVESamples?
        if case .cafconv(let own) = route { samples = own }
        do { try samples?.settleSlots(in: input) } catch { throw ConversionError(.io, error.message) }
        var probe: SampleProbe?
        if let samples {
            switch try crossCheck(samples, content: content, reader: reader, input: input) {
            case .agree(let agreed): probe = agreed
            case .ownReader(let note): warnings.append(.note(note))
            }
            if source.frames > samples.frames, case .aiff = content {
                warnings.append(
                    "the 'SSND' chunk holds \(source.frames - samples.frames) frames more than the \(samples.frames) 'COMM' declares; they are not audio (libsndfile reads them): \(samples.frames) frames converted"
                )
            }
        }
        // The header's frame count: compressed formats decode to whole blocks, `fact` (or a
        // CAF's packet table) says how many of those frames are audio; where the container does
        // not say (FLAC, Ogg, MP3...), libsndfile's count (MP3: encoder delay and padding left out).
        // An empty 'data' chunk holds no frames, whatever a decoder makes of the bytes after it.
        let audioBytes = content.audioBytes
        var headerFrames: Int64? =
            audioBytes == 0 ? 0 : samples?.frames ?? content.declaredFrames ?? (source.frames >= 0 ? source.frames : nil)
        // Lossy streams and FLAC: libsndfile and libavcodec decode the whole file and must agree;
        // the frames are what both decoded, not a header's estimate.
        if SecondDecoder.applies(to: source, content: content) {
            let agreement = try SecondDecoder.crossCheck(path, info: source, content: content)
            headerFrames = SecondDecoder.frames(agreed: agreement.frames, content: content, warnings: &warnings)
            if let note = agreement.note { warnings.append(.note(note)) }
        }
        if audioBytes == 0, source.frames > 0 {
            warnings.append(
                "the '\(content.dataChunkName)' chunk is empty, but libsndfile reads \(source.frames) frames from the bytes after it; they are not audio: nothing is converted from them"
            )
        }
        return SourceStage(
            path: path, input: input, content: content, reader: reader, info: source, avcodec: nil, samples: samples,
            probe: probe, encoding: samples.map(\.encoding) ?? source.encoding, headerFrames: headerFrames)
    }

    /// Opens a lossless source libsndfile refused (`refusal`) with libavcodec: decoded once to
    /// the end to count its frames and to find damaged packets (refused, naming where). `nil`
    /// when libavcodec cannot read it either or it is lossy (a lossy stream needs two decoders).
    static func openWithAVCodec(
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
    var exactRate: Double { content.exactRate(integerRate: info.sampleRate) }

    /// The report's `formatIn`: the afconvert-style code, the WAV format tag's name, or the
    /// codec's (`flac16`, `vorbis`, `opus`, `mp3`).
    var formatCode: String { content.formatCode(encoding, info) }

    /// The samples the encoder reads: cafconv's decoding when libsndfile cannot read the layout,
    /// libmpg123's for MPEG audio, else libsndfile's (rewound after the cross-check's probe), cut
    /// to the header's frames.
    func pumpAudio() throws -> SourceAudio {
        if probe == nil, let samples {
            return SourceAudio(samples: samples, source: input, sampleRate: info.sampleRate)
        }
        guard let reader else {
            if avcodec != nil { return try AVCodecSource.audio(path, limit: headerFrames) }
            throw ConversionError(.unsupported, "libsndfile cannot read the source")
        }
        if info.encoding.isMPEG { return try SecondDecoder.firstDecoding(path, info: info, content: content, limit: headerFrames) }
        if probe != nil { try reader.seek(toFrame: 0) }
        return SourceAudio(reader: reader, limit: headerFrames)
    }

    /// The proof's independent decoding of the source: cafconv's WAV reader where it applies,
    /// else a second reading by the first decoder (libmpg123 for MPEG audio, else libsndfile).
    func proofAudio() throws(ConversionError) -> SourceAudio {
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
    enum CrossCheck {
        /// Same layout, frames and first and last frames: libsndfile's probe of both ends.
        case agree(SampleProbe)
        /// libsndfile cannot read this layout (wide slots); cafconv's reader is the source, and
        /// the note says so.
        case ownReader(String)
    }

    /// Compares libsndfile's reading of the source with cafconv's own (layout, frames, the first
    /// and last 2048 frames) and throws, naming the disagreement, when they differ.
    static func crossCheck(
        _ samples: WAVESamples, content: SourceContent, reader: SoundFile, input: some ByteSource
    ) throws(ConversionError) -> CrossCheck {
        let info = reader.info
        let what = "libsndfile and cafconv's \(content.name) reader disagree about this file"
        let chunk = content.dataChunkName
        let header = content.headerChunkName
        if samples.hasWideSlots {
            let place =
                samples.isHighJustified
                ? "in its top bytes, the low bytes being 0" : "in its low bytes, as ALSA writes them"
            return .ownReader(
                "each \(samples.bits)-bit sample sits in a \(samples.slotBytes)-byte slot (block align \(samples.bytesPerFrame)); libsndfile reads packed \(samples.bits)-bit samples here, so cafconv's own WAV reader decoded the slots (each sample \(place))"
            )
        }
        if info.channels != samples.channels {
            throw ConversionError(
                .readersDisagree,
                "\(what): libsndfile reads \(info.channels) channels, the '\(header)' chunk says \(samples.channels); not converted"
            )
        }
        if info.encoding != samples.encoding {
            throw ConversionError(
                .readersDisagree,
                "\(what): libsndfile reads \(info.encoding), the '\(header)' chunk says \(samples.encoding); not converted")
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
            return .ownReader(
                "libsndfile reads only the \(info.frames) frames of the wrapped 32-bit 'data' size; cafconv's own WAV reader decoded all \(samples.frames) frames to the end of the file"
            )
        }
        if info.frames != samples.frames && !aiffTail {
            let bytes = content.audioBytes ?? 0
            let extent =
                bytes == 0
                ? "the '\(chunk)' chunk is empty (0 bytes)"
                : "the '\(chunk)' chunk holds \(samples.frames) frames (\(bytes) bytes of \(samples.bytesPerFrame))"
            throw ConversionError(.readersDisagree, "\(what): libsndfile reads \(info.frames) frames, \(extent); not converted")
        }
        let probe: SampleProbe?
        do {
            probe = try SampleProbe.read(reader, frames: samples.frames, channels: samples.channels, isFloat: samples.isFloat)
        } catch {
            throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "reading failed")
        }
        guard let probe else {
            throw ConversionError(
                .readersDisagree, "\(what): libsndfile reads fewer than the \(samples.frames) frames it announces; not converted")
        }
        do {
            if let difference = try probe.firstDifference(from: samples, in: input) {
                throw ConversionError(
                    .readersDisagree,
                    "\(what): at frame \(difference.frame), channel \(difference.channel) libsndfile decodes \(difference.expected), cafconv \(difference.found); not converted"
                )
            }
        } catch let error as SourceError {
            throw ConversionError(.notAudio, error.message)
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError(.io, "\(error)")
        }
        return .agree(probe)
    }

}
