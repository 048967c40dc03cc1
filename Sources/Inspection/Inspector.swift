import BinaryIO
import CAFKit
import WAVEKit

/// What `cafconv info` says about one file. Field names are the JSON keys of DESIGN.md.
public struct AudioFileInfo: Equatable, Sendable, Codable {
    /// One chunk of the file.
    public struct Chunk: Equatable, Sendable, Codable {
        /// The chunk type, spaces trimmed (`fmt`, `desc`, `data`).
        public var type: String
        /// The absolute offset of the chunk header.
        public var offset: UInt64
        /// The body size as declared in the file (-1 for a CAF `data` chunk of unknown size).
        public var size: Int64
    }

    /// A key and its value, in file order.
    public struct Text: Equatable, Sendable, Codable {
        /// The key (`artist`, `INAM`, `NAME`...).
        public var key: String
        /// The value.
        public var value: String
    }

    /// A named position in the audio.
    public struct Marker: Equatable, Sendable, Codable {
        /// Frame position.
        public var frame: Double
        /// The marker's name or type.
        public var name: String
    }

    /// A loop.
    public struct Loop: Equatable, Sendable, Codable {
        /// First frame of the loop.
        public var start: UInt64
        /// Last frame of the loop.
        public var end: UInt64
        /// How often it plays (0 = forever), when known.
        public var playCount: UInt32?
    }

    /// The path as given.
    public var path: String
    /// `caf`, `wav` or `aiff`, from the magic bytes.
    public var container: String?
    /// The four-character format with spaces trimmed: `lpcm` for all linear PCM.
    public var format: String?
    /// The format in words with its byte order: "16-bit signed integer, little-endian".
    public var formatDescription: String?
    /// Frames per second.
    public var sampleRate: Double?
    /// Channels.
    public var channels: Int?
    /// Bits per sample (container size for WAV).
    public var bitsPerChannel: Int?
    /// Valid bits per sample, when a WAVE_FORMAT_EXTENSIBLE header says.
    public var validBitsPerChannel: Int?
    /// Whether linear PCM samples are floats.
    public var isFloat: Bool?
    /// `little`, `big`, or absent when not linear PCM.
    public var byteOrder: String?
    /// Valid frames: from `pakt` when there is one, else audio bytes / bytes per frame, clamped to the file.
    public var frames: UInt64?
    /// Frames / rate.
    public var durationSeconds: Double?
    /// Absolute offset of the first audio byte.
    public var audioOffset: UInt64?
    /// Audio bytes present.
    public var audioBytes: UInt64?
    /// Packets in the packet table (CAF).
    public var packets: Int64?
    /// Priming frames (CAF `pakt`).
    public var primingFrames: Int32?
    /// Remainder frames (CAF `pakt`).
    public var remainderFrames: Int32?
    /// Frames per packet, for compressed formats.
    public var framesPerPacket: UInt32?
    /// Bytes per packet (0 = variable), for compressed formats.
    public var bytesPerPacket: UInt32?
    /// The channel layout tag or bitmap, spelled out, when the file has one.
    public var channelLayout: String?
    /// Every chunk, in file order.
    public var chunks: [Chunk]
    /// Information strings (CAF `info`, WAV `LIST/INFO`, AIFF text chunks).
    public var info: [Text]
    /// Markers and cue points.
    public var markers: [Marker]
    /// Loops (WAV `smpl`).
    public var loops: [Loop]
    /// Recoverable problems.
    public var warnings: [String]
    /// Why the file is unreadable or invalid: the offset and the rule; absent when fine.
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case path, container, format, formatDescription, sampleRate, channels, bitsPerChannel, validBitsPerChannel
        case isFloat, byteOrder, frames, durationSeconds, audioOffset, audioBytes, packets, primingFrames
        case remainderFrames, framesPerPacket, bytesPerPacket, channelLayout, chunks, info, markers, loops, warnings, error
    }

    /// Writes every key of DESIGN.md, with `null` for what is unknown; the extra keys only when known.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(self.container, forKey: .container)
        try container.encode(format, forKey: .format)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channels, forKey: .channels)
        try container.encode(bitsPerChannel, forKey: .bitsPerChannel)
        try container.encode(isFloat, forKey: .isFloat)
        try container.encode(byteOrder, forKey: .byteOrder)
        try container.encode(frames, forKey: .frames)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(audioOffset, forKey: .audioOffset)
        try container.encode(audioBytes, forKey: .audioBytes)
        try container.encode(chunks, forKey: .chunks)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(error, forKey: .error)
        try container.encodeIfPresent(formatDescription, forKey: .formatDescription)
        try container.encodeIfPresent(validBitsPerChannel, forKey: .validBitsPerChannel)
        try container.encodeIfPresent(packets, forKey: .packets)
        try container.encodeIfPresent(primingFrames, forKey: .primingFrames)
        try container.encodeIfPresent(remainderFrames, forKey: .remainderFrames)
        try container.encodeIfPresent(framesPerPacket, forKey: .framesPerPacket)
        try container.encodeIfPresent(bytesPerPacket, forKey: .bytesPerPacket)
        try container.encodeIfPresent(channelLayout, forKey: .channelLayout)
        try container.encode(info, forKey: .info)
        try container.encode(markers, forKey: .markers)
        try container.encode(loops, forKey: .loops)
    }

    init(path: String) {
        self.path = path
        chunks = []
        info = []
        markers = []
        loops = []
        warnings = []
    }
}

/// Reads any CAF, WAV or AIFF file with the pure-Swift readers and describes it.
public enum Inspector {
    /// A report for `path` that holds only `error`: what `info --json` lists for an input that
    /// names no file it could describe (a folder with no audio file).
    public static func failure(_ path: String, error: String) -> AudioFileInfo {
        var report = AudioFileInfo(path: path)
        report.error = error
        return report
    }

    /// Describes one file; never throws: problems land in `error` and `warnings`.
    public static func inspect(path: String) -> AudioFileInfo {
        var info = describe(path: path)
        // Bytes of a name that are not UTF-8 are shown as \xHH.
        info.path = PathBytes.display(path)
        return info
    }

    private static func describe(path: String) -> AudioFileInfo {
        var info = AudioFileInfo(path: path)
        let source: FileByteSource
        do { source = try FileByteSource(path: path) } catch {
            // The report names the file already: keep only what went wrong.
            if case .io(_, _, let message) = error { info.error = message } else { info.error = "\(error)" }
            return info
        }
        let prefix = (try? source.read(at: 0, count: 12)) ?? []
        guard let container = Container.detect(prefix) else {
            info.error = source.length == 0 ? "empty file (0 bytes)" : "not a CAF, WAV or AIFF file"
            return info
        }
        switch container {
        case .caf: describeCAF(source, into: &info)
        case .wav, .rifx, .rf64: describeWAVE(source, into: &info)
        case .aiff, .aifc: describeAIFF(source, into: &info)
        }
        return info
    }

    static func describeCAF(_ source: FileByteSource, into info: inout AudioFileInfo) {
        info.container = "caf"
        let document: CAFDocument
        do { document = try CAFDocument(reading: source) } catch {
            info.error = "\(error)"
            return
        }
        let file = document.file
        let desc = file.audioDescription
        info.format = desc.formatID.trimmed
        info.formatDescription = desc.formatName
        info.sampleRate = desc.sampleRate
        info.channels = Int(desc.channelsPerFrame)
        info.bitsPerChannel = Int(desc.bitsPerChannel)
        if desc.isLinearPCM {
            info.isFloat = desc.isFloat
            info.byteOrder = desc.byteOrder?.rawValue
        } else {
            info.framesPerPacket = desc.framesPerPacket
            info.bytesPerPacket = desc.bytesPerPacket
        }
        info.frames = file.validFrames
        info.audioOffset = file.audioOffset
        info.audioBytes = file.audioBytes
        if let table = document.contents.packetTable {
            info.packets = table.header.numberPackets
            info.primingFrames = table.header.primingFrames
            info.remainderFrames = table.header.remainderFrames
        }
        if let layout = document.contents.channelLayout {
            info.channelLayout = describeLayout(tag: layout.tag, bitmap: layout.bitmap)
        }
        info.chunks = file.chunks.map { AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: $0.declaredSize) }
        info.info = (document.contents.infoStrings?.entries ?? []).map { AudioFileInfo.Text(key: $0.key, value: $0.value) }
        info.markers = document.contents.markers.map {
            AudioFileInfo.Marker(frame: $0.framePosition, name: "'\($0.type)' #\($0.markerID)")
        }
        info.warnings = document.warnings.map(\.description)
        if let first = CAFValidator.validate(document, expecting: CAFExpectations()).first {
            info.error = "\(first)"
        }
        setDuration(&info)
    }

    static func describeWAVE(_ source: FileByteSource, into info: inout AudioFileInfo) {
        info.container = "wav"
        let file: WAVEFile
        do { file = try WAVEFile(reading: source) } catch {
            info.error = "at byte \(error.offset): \(error.message)"
            return
        }
        let format = file.format
        info.format = file.formatID
        info.sampleRate = Double(format.sampleRate)
        info.channels = Int(format.channels)
        info.bitsPerChannel = Int(format.bitsPerSample)
        info.validBitsPerChannel = file.validBitsPerSample
        if format.isLinearPCM {
            info.isFloat = format.isFloat
            info.byteOrder = file.sampleByteOrder?.rawValue
            let bits = Int(format.bitsPerSample)
            let kind = format.isFloat ? "floating point" : (bits == 8 ? "unsigned integer" : "signed integer")
            let order = bits <= 8 ? "" : ", \(file.byteOrder == .little ? "little" : "big")-endian"
            info.formatDescription = "\(bits)-bit \(kind)\(order)"
        } else {
            info.formatDescription = format.encodingName
            if let perBlock = format.samplesPerBlock, perBlock > 0 {
                info.framesPerPacket = UInt32(perBlock)
                info.bytesPerPacket = UInt32(format.blockAlign)
            }
        }
        info.frames = file.frames
        info.audioOffset = file.audioOffset
        info.audioBytes = file.audioBytes
        if let mask = format.channelMask { info.channelLayout = "WAVE channel mask 0x\(String(mask, radix: 16))" }
        info.chunks = file.chunks.map {
            AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: Int64($0.declaredSize))
        }
        info.info = file.infoStrings.map { AudioFileInfo.Text(key: $0.key, value: $0.value) }
        info.markers = file.cuePoints.map { AudioFileInfo.Marker(frame: Double($0.position), name: "cue \($0.id)") }
        info.loops = (file.sampler?.loops ?? []).map {
            AudioFileInfo.Loop(start: UInt64($0.start), end: UInt64($0.end), playCount: $0.playCount)
        }
        info.warnings = file.warnings.map(\.message)
        setDuration(&info)
    }

    static func describeAIFF(_ source: FileByteSource, into info: inout AudioFileInfo) {
        info.container = "aiff"
        let file: AIFFFile
        do { file = try AIFFFile(reading: source) } catch {
            info.error = "at byte \(error.offset): \(error.message)"
            return
        }
        info.format = file.formatID
        info.sampleRate = file.sampleRate
        info.channels = file.channels
        info.bitsPerChannel = Int(file.common.sampleSize)
        if file.formatID == "lpcm" {
            info.isFloat = file.isFloat
            info.byteOrder = file.byteOrder?.rawValue
            let bits = file.bitsPerChannel ?? Int(file.common.sampleSize)
            // AIFF-C 'raw ' is offset binary: unsigned 8-bit samples.
            let unsigned = bits == 8 && file.compressionType == FourCC("raw ")
            let kind = file.isFloat ? "floating point" : unsigned ? "unsigned integer" : "signed integer"
            let order = bits <= 8 ? "" : ", \(file.byteOrder == .little ? "little" : "big")-endian"
            info.formatDescription = "\(bits)-bit \(kind)\(order)"
        } else {
            // An empty compression name (as ffmpeg writes) adds nothing, not "()".
            info.formatDescription =
                "'\(file.compressionType)'" + (file.common.compressionName.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? "")
            if file.framesPerPacket > 1 {
                info.framesPerPacket = UInt32(file.framesPerPacket)
                info.packets = Int64(file.common.sampleFrames)
            }
        }
        info.frames = file.frames
        info.audioOffset = file.audioOffset
        info.audioBytes = file.audioBytes
        info.chunks = file.chunks.map {
            AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: Int64($0.declaredSize))
        }
        info.info = file.texts.map { AudioFileInfo.Text(key: $0.type.trimmed, value: $0.text) }
        info.markers = file.markers.map { AudioFileInfo.Marker(frame: Double($0.position), name: $0.name) }
        info.warnings = file.warnings.map(\.message)
        setDuration(&info)
    }

    static func setDuration(_ info: inout AudioFileInfo) {
        if let frames = info.frames, let rate = info.sampleRate, rate > 0 {
            info.durationSeconds = Double(frames) / rate
        }
    }

    /// Spells out common Core Audio channel layout tags.
    static func describeLayout(tag: UInt32, bitmap: UInt32) -> String {
        let names: [UInt32: String] = [
            (100 << 16) | 1: "Mono", (101 << 16) | 2: "Stereo", (102 << 16) | 2: "StereoHeadphones",
            (108 << 16) | 4: "Quadraphonic", (113 << 16) | 3: "MPEG 3.0 A", (117 << 16) | 5: "MPEG 5.0 A",
            (121 << 16) | 6: "MPEG 5.1 A", (128 << 16) | 8: "MPEG 7.1 A",
        ]
        if tag == 0 { return "channel descriptions" }
        if tag == 1 << 16 { return "bitmap 0x\(String(bitmap, radix: 16))" }
        return names[tag] ?? "tag 0x\(String(tag, radix: 16)) (\(tag >> 16), \(tag & 0xFFFF) channels)"
    }
}

extension Inspector {
    /// Whether `info` picks a file name up from a folder: `*.caf`, `*.wav`, `*.wave`, `*.aif`,
    /// `*.aiff` and `*.aifc` in any case, hidden files excepted.
    public static func isAudioName(_ name: String) -> Bool {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
        return ["caf", "wav", "wave", "aif", "aiff", "aifc"].contains(name[name.index(after: dot)...].lowercased())
    }
}
