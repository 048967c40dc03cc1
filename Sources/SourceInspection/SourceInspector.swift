import BinaryIO
import Inspection
import MPG123
import OggOpus
import SndFile
import WAVEKit

/// `info` and `afinfo` over every source `convert` reads: CAF, WAV and AIFF from cafconv's own
/// readers (`Inspector`), the rest through the libraries that decode them for `convert`: Ogg Opus
/// from its pages (`OggOpusReader`), FLAC, Ogg Vorbis, MP3, Wave64 and Sun/NeXT `.au` from
/// libsndfile's `sf_info` (MP3's frame count from libmpg123, as `convert` counts it).
public enum SourceInspector {
    /// Describes one file; never throws: problems land in `error`.
    public static func inspect(path: String) -> AudioFileInfo {
        guard let source = try? FileByteSource(path: path) else { return Inspector.inspect(path: path) }
        let prefix = (try? source.read(at: 0, count: 22)) ?? []
        if prefix.isEmpty || Container.detect(Array(prefix.prefix(12))) != nil { return Inspector.inspect(path: path) }
        var info = AudioFileInfo(path: PathBytes.display(path))
        if prefix.starts(with: Array("OggS".utf8)), describeOggOpus(source, into: &info) { return info }
        describeWithLibsndfile(path, prefix: prefix, length: source.length, into: &info)
        return info
    }

    /// An Ogg Opus stream, read to its end: packets, their bytes and the largest, the granule
    /// position of the last page less the pre-skip. `false` when it is not Ogg Opus (Vorbis, or a
    /// layout the reader refuses): libsndfile is asked instead.
    static func describeOggOpus(_ source: FileByteSource, into info: inout AudioFileInfo) -> Bool {
        guard var reader = try? OggOpusReader(source: source) else { return false }
        info.container = "ogg"
        info.fileTypeID = "Ogg "
        info.format = "opus"
        info.formatDescription = "Opus"
        info.sampleRate = 48000
        info.channels = reader.head.channels
        var bytes: UInt64 = 0
        var largest = 0
        var firstFrames: Int?
        do {
            while let packet = try reader.next() {
                bytes += UInt64(packet.bytes.count)
                largest = max(largest, packet.bytes.count)
                if firstFrames == nil { firstFrames = packet.frames }
            }
        } catch {
            info.error = "\(error)"
        }
        let preSkip = Int64(reader.head.preSkip)
        let valid = max(0, (reader.lastGranule >= 0 ? reader.lastGranule : reader.framesRead) - preSkip)
        info.frames = UInt64(valid)
        info.primingFrames = Int32(clamping: preSkip)
        info.remainderFrames = Int32(clamping: max(0, reader.framesRead - preSkip - valid))
        info.audioBytes = bytes
        info.framesPerPacket = firstFrames.map { UInt32(clamping: $0) }
        Inspector.addPacketFacts(
            &info, bytesPerPacket: 0, framesPerPacket: UInt32(clamping: firstFrames ?? 0), flags: 0, packets: reader.packetsRead,
            maximumPacket: UInt32(clamping: largest))
        // Opus packets vary in duration: the rate is the bytes over the frames they decode to.
        if reader.framesRead > 0 { info.bitRate = Inspector.wholeBits(Double(bytes) * 8 * 48000 / Double(reader.framesRead)) }
        Inspector.setDuration(&info)
        return true
    }

    /// What libsndfile's `sf_info` says, with the packet layout of each kind: linear PCM and
    /// G.711 one frame a packet (an `.au` header's data offset read), FLAC's block size and
    /// largest frame from its STREAMINFO, MPEG audio's 1152 (or 576) frames a packet; the bit
    /// rate of a compressed stream is estimated from the file's length.
    static func describeWithLibsndfile(_ path: String, prefix: [UInt8], length: UInt64, into info: inout AudioFileInfo) {
        let file: SoundFile
        do { file = try SoundFile.open(readingFrom: path) } catch {
            info.error = "not a CAF, WAV or AIFF file, nor a format libsndfile reads (\(error.message))"
            return
        }
        let sound = file.info
        let kind = Kind(sound)
        info.container = kind.container
        info.fileTypeID = kind.fileTypeID
        info.format = kind.format(sound.encoding)
        info.formatDescription = sound.encoding.description
        info.sampleRate = Double(sound.sampleRate)
        info.channels = sound.channels
        info.frames = UInt64(max(sound.frames, 0))
        if sound.encoding.isMPEG, let decoder = try? MPG123Decoder(path: path), let frames = decoder.frames {
            info.frames = UInt64(max(frames, 0))
        }
        Inspector.setDuration(&info)
        let channels = UInt32(clamping: max(sound.channels, 0))
        if let bits = sound.encoding.bits, sound.encoding.isLinearPCM || kind == .flac {
            info.bitsPerChannel = bits
            info.isFloat = sound.encoding.isFloat
        }
        switch kind {
        case .flac:
            describeFLAC(prefix, bits: sound.encoding.bits, length: length, into: &info)
        case _ where sound.encoding.isLinearPCM || info.format == "ulaw" || info.format == "alaw":
            let bits = UInt32(clamping: sound.encoding.bits ?? 8)
            let bigEndian = sound.endianness == .big || (kind == .au && sound.endianness != .little)
            info.byteOrder = info.isFloat == nil || bits <= 8 ? nil : bigEndian ? "big" : "little"
            let frameBytes = channels * ((bits + 7) / 8)
            info.audioBytes = info.frames.map { $0 &* UInt64(frameBytes) }
            if kind == .au, prefix.count >= 8 {
                info.audioOffset = UInt64(prefix[4]) << 24 | UInt64(prefix[5]) << 16 | UInt64(prefix[6]) << 8 | UInt64(prefix[7])
            }
            let flags =
                info.isFloat == nil
                ? 0
                : Inspector.linearPCMFlags(
                    isFloat: sound.encoding.isFloat, bigEndian: bigEndian && bits > 8, signed: sound.encoding != .pcmU8)
            Inspector.addPacketFacts(&info, bytesPerPacket: frameBytes, framesPerPacket: 1, flags: flags)
        default:
            let perPacket: UInt32 = sound.encoding.isMPEG ? (sound.sampleRate >= 32000 ? 1152 : 576) : 0
            info.framesPerPacket = perPacket > 0 ? perPacket : nil
            Inspector.addPacketFacts(&info, bytesPerPacket: 0, framesPerPacket: perPacket, flags: 0)
            info.bitRate = estimatedBitRate(length, info)
        }
    }

    /// FLAC: Core Audio's flags name the source depth; STREAMINFO (the first metadata block, at
    /// byte 8) gives the largest block in frames and the largest frame in bytes.
    static func describeFLAC(_ prefix: [UInt8], bits: Int?, length: UInt64, into info: inout AudioFileInfo) {
        let depthCode: UInt32 =
            switch bits {
            case 16?: 1
            case 20?: 2
            case 24?: 3
            case 32?: 4
            default: 0
            }
        info.sourceBitDepth = Inspector.losslessSourceDepth(flags: depthCode)
        var maximumFrame: UInt32?
        if prefix.count >= 18, prefix[4] & 0x7F == 0 {
            info.framesPerPacket = UInt32(prefix[10]) << 8 | UInt32(prefix[11])
            let largest = UInt32(prefix[15]) << 16 | UInt32(prefix[16]) << 8 | UInt32(prefix[17])
            maximumFrame = largest > 0 ? largest : nil
        }
        let depth = info.sourceBitDepth
        Inspector.addPacketFacts(
            &info, bytesPerPacket: 0, framesPerPacket: info.framesPerPacket ?? 0, flags: depthCode, maximumPacket: maximumFrame)
        info.sourceBitDepth = depth
        info.bitRate = estimatedBitRate(length, info)
    }

    /// The file's bits over its duration: what a compressed stream's bit rate is, headers and
    /// tags included (they are a small part of any file long enough for the rate to matter).
    static func estimatedBitRate(_ length: UInt64, _ info: AudioFileInfo) -> Int64? {
        guard let seconds = info.durationSeconds, seconds > 0 else { return nil }
        return Inspector.wholeBits(Double(length) * 8 / seconds)
    }

    /// The kinds of file libsndfile reads that `info` names.
    enum Kind: Equatable {
        case flac, mpeg, ogg, au, w64, other(String)

        init(_ sound: SoundInfo) {
            switch sound.major {
            case .flac: self = .flac
            case .mpeg: self = .mpeg
            case .ogg: self = .ogg
            case .au: self = .au
            case .w64: self = .w64
            default: self = .other(sound.major.name)
            }
        }

        /// The report's `container`.
        var container: String {
            switch self {
            case .flac: "flac"
            case .mpeg: "mp3"
            case .ogg: "ogg"
            case .au: "au"
            case .w64: "w64"
            case .other(let name): name.lowercased()
            }
        }

        /// Apple's `kAudioFile...Type` code (`Ogg `: cafconv's, for the Ogg formats).
        var fileTypeID: String? {
            switch self {
            case .flac: "flac"
            case .mpeg: "MPG3"
            case .ogg: "Ogg "
            case .au: "NeXT"
            case .w64: "W64f"
            case .other: nil
            }
        }

        /// The format code: `lpcm`, `ulaw`, `alaw`, `flac`, `.mp3`, `vorb`, `opus`.
        func format(_ encoding: Encoding) -> String {
            if self == .flac { return "flac" }
            if encoding.isLinearPCM { return "lpcm" }
            if encoding.isMPEG { return ".mp3" }
            switch encoding {
            case .ulaw: return "ulaw"
            case .alaw: return "alaw"
            case .vorbis: return "vorb"
            case .opus: return "opus"
            default: return encoding.description
            }
        }
    }
}
