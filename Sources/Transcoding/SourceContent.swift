import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer
import WAVEKit

/// What an input is, told by its content (its first bytes), never by its name: a container
/// cafconv parses itself (WAV in its RIFF, RIFX and RF64 forms, AIFF and AIFF-C, CAF), or
/// something only libsndfile reads (FLAC, Ogg Vorbis and Opus, MP3, Sun/NeXT `.au`, Wave64...).
package enum SourceContent {
    /// RIFF, RIFX or RF64 WAVE.
    case wave(WAVEFile)
    /// AIFF or AIFF-C.
    case aiff(AIFFFile)
    /// Core Audio Format.
    case caf(CAFFile)
    /// A file cafconv does not parse; libsndfile decides whether it is audio. `prefix` says what
    /// it starts with, for messages.
    case other(prefix: String)

    /// Parses the container of `input`. A file that starts like WAV, AIFF or CAF and is broken
    /// fails with its parser's reason (a CAF's in the words `brokenCAF` makes of it); anything
    /// else is left to libsndfile.
    package static func read(
        _ input: some ByteSource, brokenCAF: (String) -> SourceFailure = SourceFailure.unreadableCAF
    ) throws(ConversionError) -> SourceContent {
        let prefix: [UInt8]
        do { prefix = try input.read(at: 0, count: 12) } catch { throw .source(.unreadable(reason: "\(error)")) }
        guard !prefix.isEmpty else { throw .source(.empty) }
        switch Container.detect(prefix) {
        case .wav?, .rifx?, .rf64?:
            do { return .wave(try WAVEFile(reading: input)) } catch { throw .source(.brokenContainer(reason: error.message)) }
        case .aiff?, .aifc?:
            do { return .aiff(try AIFFFile(reading: input)) } catch { throw .source(.brokenContainer(reason: error.message)) }
        case .caf?:
            do { return .caf(try CAFFile(reading: input)) } catch { throw .source(brokenCAF("\(error)")) }
        case nil:
            // A header cut short is still told by its first four bytes, and its parser says so.
            let head = prefix.prefix(4)
            if ["RIFF", "RIFX", "RF64", "BW64"].contains(where: { Array($0.utf8) == Array(head) }) {
                do { _ = try WAVEFile(reading: input) } catch { throw .source(.brokenContainer(reason: error.message)) }
            }
            if Array("FORM".utf8) == Array(head) {
                do { _ = try AIFFFile(reading: input) } catch { throw .source(.brokenContainer(reason: error.message)) }
            }
            return .other(prefix: describe(prefix))
        }
    }

    /// How `convert` and `verify --against` name a CAF CAFKit cannot parse: in the words of the
    /// IMA4 and AAC readers, which look at a CAF first, once its first 12 bytes are there;
    /// shorter, as every reader names it.
    package static func convertsBrokenCAF(_ input: FileByteSource) -> (String) -> SourceFailure {
        if input.length >= 12 { return { reason in .cannotReadCAF(reason: reason) } }
        return { reason in .unreadableCAF(reason: reason) }
    }

    /// `starts with 'OggS'`, `only 3 bytes`.
    package static func describe(_ prefix: [UInt8]) -> String {
        if prefix.count < 4 { return "only \(prefix.count) byte\(prefix.count == 1 ? "" : "s")" }
        let printable = prefix.prefix(4).allSatisfy { (0x20...0x7E).contains($0) }
        if printable { return "starts with '\(String(decoding: prefix.prefix(4), as: UTF8.self))'" }
        return "starts with bytes "
            + prefix.prefix(4).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined(separator: " ")
    }

    /// The name of cafconv's reader of this container, for messages: `WAV` (RIFF, RIFX, RF64),
    /// `AIFF` (AIFF and AIFF-C), `CAF`.
    package var name: String {
        switch self {
        case .wave: return "WAV"
        case .aiff: return "AIFF"
        case .caf: return "CAF"
        case .other: return "libsndfile"
        }
    }

    /// The chunk that holds the audio: `data` (WAV, CAF) or `SSND` (AIFF).
    package var dataChunkName: String {
        if case .aiff = self { return "SSND" }
        return "data"
    }

    /// The chunk that describes the samples: `fmt ` (WAV), `COMM` (AIFF) or `desc` (CAF).
    package var headerChunkName: String {
        switch self {
        case .aiff: return "COMM"
        case .caf: return "desc"
        default: return "fmt "
        }
    }

    /// The container's own warnings (size lies, missing pad bytes...).
    package var warnings: [SourceWarning] {
        switch self {
        case .wave(let wave): return wave.warnings.map { .container($0.message) }
        case .aiff(let aiff): return aiff.warnings.map { .container($0.message) }
        case .caf(let caf): return caf.warnings.map { .container($0.message) }
        case .other: return []
        }
    }

    /// Bytes of audio the container declares present (`nil`: it does not say).
    package var audioBytes: UInt64? {
        switch self {
        case .wave(let wave): return wave.audioBytes
        case .aiff(let aiff): return aiff.audioBytes
        case .caf(let caf): return caf.audioBytes
        case .other: return nil
        }
    }

    /// The header's frame count where cafconv's own reader does not decode the samples: `fact`
    /// for compressed WAV, the valid frames of a CAF; `nil` when the container does not say
    /// (then libsndfile's count is used).
    package var declaredFrames: Int64? {
        switch self {
        case .wave(let wave): return wave.frames.map { Int64(clamping: $0) }
        case .caf(let caf): return caf.validFrames.map { Int64(clamping: $0) }
        case .aiff, .other: return nil
        }
    }

    /// The sample rate exactly as the container stores it (WAV's integer, AIFF's 80-bit float
    /// rounded to the nearest `Double`, CAF's `Double`), which libsndfile's integer
    /// `SF_INFO.samplerate` cannot hold (22254.545 Hz, 22050.5 Hz); `nil` for libsndfile's formats.
    package var storedRate: Double? {
        switch self {
        case .wave(let wave): return Double(wave.format.sampleRate)
        case .aiff(let aiff): return aiff.sampleRate
        case .caf(let caf): return caf.audioDescription.sampleRate
        case .other: return nil
        }
    }

    /// The rate an output that keeps the source's rate says: the stored rate when it is a usable
    /// one within a hertz of `integerRate` (libsndfile's reading, which the audio is pumped at),
    /// else `integerRate`.
    package func exactRate(integerRate: Int) -> Double {
        guard let stored = storedRate, stored.isFinite, stored > 0, abs(stored - Double(integerRate)) < 1 else {
            return Double(integerRate)
        }
        return stored
    }

    /// The byte order of the source's samples, for `--endian source`: the container's, else
    /// big-endian for `.au` (as libsndfile reports it), else little-endian.
    package func sampleByteOrder(_ info: SoundInfo) -> ByteOrder {
        switch self {
        case .wave(let wave): return wave.byteOrder
        case .aiff(let aiff): return aiff.byteOrder ?? .big
        case .caf(let caf): return caf.audioDescription.byteOrder ?? .big
        case .other: return info.endianness == .big || (info.major == .au && info.endianness != .little) ? .big : .little
        }
    }

    /// The source's format as the report's `formatIn` names it.
    package func formatCode(_ encoding: Encoding, _ info: SoundInfo) -> String {
        switch self {
        case .wave(let wave):
            if case .other = encoding { return wave.formatID }
            return ConversionModel.formatCode(encoding, wave.byteOrder)
        case .aiff, .caf:
            return ConversionModel.formatCode(encoding, sampleByteOrder(info))
        case .other:
            if info.major == .flac { return "flac\(encoding.bits.map(String.init) ?? "")" }
            switch encoding {
            case .vorbis: return "vorbis"
            case .opus: return "opus"
            case .mp3: return "mp3"
            default: return ConversionModel.formatCode(encoding, sampleByteOrder(info))
            }
        }
    }
}
