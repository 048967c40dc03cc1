/// Source warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum SourceWarning: Equatable, Sendable, CustomStringConvertible {
    /// What the container's own parser noticed (a size that lies, a missing pad byte), in its words.
    case container(String)
    /// A RIFX WAVE_FORMAT_EXTENSIBLE file libsndfile cannot read: cafconv's reader decoded it alone.
    case rifxExtensibleOwnReader(libsndfile: String)
    /// A linear PCM CAF whose `data` size is -1 (a streamed CAF), which libsndfile cannot read:
    /// cafconv's reader decoded it alone.
    case unknownDataSizeOwnReader(libsndfile: String)
    /// Samples in wider slots than libsndfile reads: cafconv's reader decoded the slots.
    case wideSlots(bits: Int, slotBytes: Int, bytesPerFrame: Int, highJustified: Bool)
    /// A WAV 'data' size that wrapped at 32 bits: cafconv's reader read to the end of the file.
    case wrappedDataSize(libsndfile: Int64, frames: Int64)
    /// An AIFF 'SSND' chunk holds frames beyond those 'COMM' declares.
    case ssndBeyondCOMM(extra: Int64, declared: Int64)
    /// An empty audio chunk, with bytes after it libsndfile decodes.
    case bytesAfterEmptyData(chunk: String, frames: Int64)
    /// An IMA4 AIFF-C whose 'SSND' holds fewer packets than 'COMM' declares.
    case ima4PacketsMissing(declared: UInt64, held: UInt64, frames: UInt64)
    /// Fewer frames could be read than the header declares.
    case truncated(declared: Int64, read: Int64)
    /// No frames at all.
    case noFrames
    /// More than two channels without a mask were mixed in the WAVE default order.
    case noChannelMask(channels: Int, layout: String)
    /// An MP4 with `count` audio tracks: one was converted.
    case otherAudioTracks(count: Int)
    /// `--loudness`: the true-peak ceiling capped the gain below the target.
    case loudnessCapped(asked: Double, reached: Double, ceiling: Double)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .factSaysMore(let declared, let decoded):
            "the 'fact' chunk says \(declared) frames, but both decoders decode \(decoded) to the end of the 'data' chunk: \(decoded) frames converted"
        case .shortRead(let declared, let read):
            "the header declares \(declared) frames but only \(read) could be read; converted \(read)"
        case .noFrames: "no audio frames: the output holds an empty 'data' chunk"
        case .noAACPacket: "no audio frames: the output holds no AAC packet"
        case .noOpusPacket: "no audio frames: the output holds no Opus packet"
        case .aacPrimingUnknown(let container, let frames):
            "its \(container) records no encoder priming or end trimming, so all \(frames) frames its packets code are taken as audio (priming 0); the first 1024 or 2112 of them are likely the encoder's priming"
        case .samplesNotCompared(let secondRate, let first, let firstRate, let secondFrames):
            "libavcodec decodes Opus at \(secondRate) Hz only, \(first) at \(firstRate) Hz: the second decoder checked the frame count (\(secondFrames) at \(secondRate) Hz), not the samples"
        case .container(let text): text
        case .rifxExtensibleOwnReader(let libsndfile):
            "libsndfile cannot read this RIFX WAVE_FORMAT_EXTENSIBLE file (its sub-format GUID is laid out as in RIFF): cafconv's own WAV reader decoded it alone (\(libsndfile))"
        case .unknownDataSizeOwnReader(let libsndfile):
            "libsndfile cannot read a CAF whose 'data' size is -1 (its audio runs to the end of the file, as a streamed CAF's does): cafconv's own CAF reader decoded it alone (\(libsndfile))"
        case .wideSlots(let bits, let slotBytes, let bytesPerFrame, let highJustified):
            "each \(bits)-bit sample sits in a \(slotBytes)-byte slot (block align \(bytesPerFrame)); libsndfile reads packed \(bits)-bit samples here, so cafconv's own WAV reader decoded the slots (each sample \(highJustified ? "in its top bytes, the low bytes being 0" : "in its low bytes, as ALSA writes them"))"
        case .wrappedDataSize(let libsndfile, let frames):
            "libsndfile reads only the \(libsndfile) frames of the wrapped 32-bit 'data' size; cafconv's own WAV reader decoded all \(frames) frames to the end of the file"
        case .ssndBeyondCOMM(let extra, let declared):
            "the 'SSND' chunk holds \(extra) frames more than the \(declared) 'COMM' declares; they are not audio (libsndfile reads them): \(declared) frames converted"
        case .bytesAfterEmptyData(let chunk, let frames):
            "the '\(chunk)' chunk is empty, but libsndfile reads \(frames) frames from the bytes after it; they are not audio: nothing is converted from them"
        case .ima4PacketsMissing(let declared, let held, let frames):
            "'COMM' declares \(declared) packets but 'SSND' holds \(held); converted \(frames) frames"
        case .truncated(let declared, let read):
            "the header declares \(declared) frames but only \(read) could be read; converted \(read)"
        case .noChannelMask(let channels, let layout):
            "the source has no channel mask (it is not WAVE_FORMAT_EXTENSIBLE): its \(channels) channels were mixed as the WAVE default order \(layout)"
        case .opusFrameCountUntrusted(let packets, let framesPerPacket, let validFrames):
            "its 'pakt' declares no priming and \(validFrames) valid frames, exactly its \(packets) packets of \(framesPerPacket) frames (ffmpeg's layout, which drops the encoder's pre-skip): the frame count cannot be trusted, and the encoder's priming is decoded as audio at the start"
        case .opusDurationsByTOC(let packets, let declared, let frames):
            "its 'desc' declares \(declared) frames per packet, but its \(packets) packets' TOC bytes say they hold \(frames) frames (ffmpeg's native Opus encoder's CAF): they are decoded by those durations, \(frames) frames, the encoder's priming included"
        case .otherAudioTracks(let count):
            "it holds \(count) audio tracks: only one is converted (libavformat's choice, `av_find_best_stream`); \(count == 2 ? "the other is" : "the other \(count - 1) are") left out"
        case .loudnessCapped(let asked, let reached, let ceiling):
            "\(Decibels.tenth(asked)) LUFS asked, \(Decibels.tenth(reached)) reached: true peak limited to \(Decibels.tenth(ceiling)) dBTP"
        }
    }

    public var description: String { message }

    // Cases of the files outside the source stage (SecondDecoder, the output codecs).
    /// A WAV's 'fact' chunk says `declared` frames, but both decoders decode `decoded` to the end
    /// of the 'data' chunk: `decoded` frames are converted.
    case factSaysMore(declared: Int64, decoded: Int64)
    /// The header declares `declared` frames but only `read` could be read and were converted.
    case shortRead(declared: Int64, read: Int64)
    /// No audio frames: the AAC output holds no packet.
    case noAACPacket
    /// The source had no audio frames: the Opus output holds no packet.
    case noOpusPacket
    /// An AAC source in `container` (ADTS, or MP4 without an edit list or `iTunSMPB`) records no
    /// encoder priming or end trimming: all `frames` it codes are taken as audio.
    case aacPrimingUnknown(container: String, frames: Int64)
    /// libavcodec decodes Opus at 48 kHz only: at another rate the second decoder checked the
    /// frame count (`secondFrames` at `secondRate`), not the samples of `first` (at `firstRate`).
    case samplesNotCompared(secondRate: Int, first: String, firstRate: Int, secondFrames: Int64)
    /// An Opus CAF whose `pakt` declares no priming and `validFrames` = its `packets` packets of
    /// `framesPerPacket` frames (ffmpeg's layout, which drops the encoder's pre-skip): its frame
    /// count cannot be trusted, and the encoder's priming is decoded as audio.
    case opusFrameCountUntrusted(packets: Int64, framesPerPacket: Int, validFrames: Int64)
    /// An Opus CAF in ffmpeg's layout whose `desc` declares `declared` frames per packet while its
    /// `packets` packets' TOC bytes add up to `frames` (ffmpeg's native encoder: 120 declared, 960
    /// coded): it is decoded by the TOC durations, `frames` frames.
    case opusDurationsByTOC(packets: Int64, declared: Int, frames: Int64)
}
