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

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// A named position in the audio.
    public struct Marker: Equatable, Sendable, Codable {
        /// Frame position.
        public var frame: Double
        /// The marker's name (CAF `strg`, WAV `labl`/`note`/`ltxt`, AIFF `MARK`), empty when it has none.
        public var name: String
        /// What the marker is: `generic`, `sustain loop start`, `region end`... (CAF marker types);
        /// `cue` for a WAV cue point, `marker` for an AIFF one.
        public var type: String = "generic"
        /// The marker's ID (CAF marker ID, WAV cue point ID, AIFF marker ID).
        public var id: Int64 = 0

        /// Creates a marker.
        public init(frame: Double, name: String, type: String = "generic", id: Int64 = 0) {
            self.frame = frame
            self.name = name
            self.type = type
            self.id = id
        }
    }

    /// A loop.
    public struct Loop: Equatable, Sendable, Codable {
        /// First frame of the loop.
        public var start: UInt64
        /// Last frame of the loop (WAV `smpl`: the last frame played; AIFF and CAF: the end marker).
        public var end: UInt64
        /// How often it plays (0 = forever), when known.
        public var playCount: UInt32?
        /// `forward`, `alternating` or `backward` (or `type N` for a vendor's WAV loop type).
        public var kind: String = "forward"
        /// `sustain` or `release` when the file says (AIFF `INST`, CAF `inst`), else absent.
        public var role: String?
        /// The loop's name, when the file gives one.
        public var name: String?

        /// Creates a loop.
        public init(
            start: UInt64, end: UInt64, playCount: UInt32? = nil, kind: String = "forward", role: String? = nil,
            name: String? = nil
        ) {
            self.start = start
            self.end = end
            self.playCount = playCount
            self.kind = kind
            self.role = role
            self.name = name
        }
    }

    /// A CAF region (`regn`): its markers bound it.
    public struct Region: Equatable, Sendable, Codable {
        /// The region ID.
        public var id: UInt32
        /// The name from `strg`, empty when it has none.
        public var name: String
        /// The flags: 1 loop enable, 2 play forward, 4 play backward.
        public var flags: UInt32
        /// The first marker's frame.
        public var start: Double?
        /// The last marker's frame.
        public var end: Double?
    }

    /// How a sampler plays the sound (CAF `inst`, WAV `smpl`, AIFF `INST`).
    public struct Instrument: Equatable, Sendable, Codable {
        /// The MIDI note of the recorded pitch, with the fine tuning as a fraction.
        public var baseNote: Double
        /// The lowest and highest MIDI notes, when the file says.
        public var lowNote: Int?, highNote: Int?
        /// The lowest and highest velocities, when the file says.
        public var lowVelocity: Int?, highVelocity: Int?
        /// The gain in decibels, when the file says.
        public var gain: Double?
        /// The IDs of the sustain and release regions (CAF), when set.
        public var sustainRegion: UInt32?, releaseRegion: UInt32?
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
    /// An Opus CAF's `kuki` (Apple's 28 bytes), spelled out: application, rate, frames per packet,
    /// bit rate, channels (docs/opus.md).
    public var opusHeader: String?
    /// afinfo's `File type ID`: `caff`, `WAVE`, `RF64`, `AIFF`, `AIFC`, `flac`, `MPG3`, `NeXT`,
    /// `W64f`, `Ogg ` (see `PacketFacts`).
    public var fileTypeID: String?
    /// The Core Audio format flags of the samples (for linear PCM: float 1, big-endian 2, signed
    /// integer 4, packed 8), as afinfo's data format line shows them.
    public var formatFlags: UInt32?
    /// Bytes per frame (0 when packets are not made of whole frames: compressed formats).
    public var bytesPerFrame: UInt32?
    /// Bits per second of the audio: bytes per frame x 8 x rate for linear PCM, else the audio
    /// bytes over the duration of the whole packets (afinfo's `bit rate`, truncated).
    public var bitRate: Int64?
    /// The largest a packet of this format can be, in bytes (afinfo's `packet size upper bound`).
    public var packetSizeUpperBound: UInt32?
    /// The largest packet in the file, in bytes (afinfo's `maximum packet size`).
    public var maximumPacketSize: UInt32?
    /// Whether the audio chunk is the file's last (afinfo's `optimized`): audio can be appended
    /// without moving anything.
    public var optimized: Bool?
    /// The bit depth the samples came from, as afinfo spells it: `I16`, `I24`, `F32`...
    public var sourceBitDepth: String?
    /// Every chunk, in file order.
    public var chunks: [Chunk]
    /// Information strings (CAF `info`, WAV `LIST/INFO`, AIFF text chunks).
    public var info: [Text]
    /// Markers and cue points.
    public var markers: [Marker]
    /// Loops (WAV `smpl`, AIFF `INST`, CAF `regn` regions with loop enable set).
    public var loops: [Loop]
    /// Regions (CAF `regn`).
    public var regions: [Region] = []
    /// Sampler settings, when the file has them.
    public var instrument: Instrument?
    /// Recoverable problems.
    public var warnings: [InfoWarning]
    /// Why the file is unreadable or invalid: the offset and the rule; absent when fine.
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case path, container, format, formatDescription, sampleRate, channels, bitsPerChannel, validBitsPerChannel
        case isFloat, byteOrder, frames, durationSeconds, audioOffset, audioBytes, packets, primingFrames
        case remainderFrames, framesPerPacket, bytesPerPacket, channelLayout, chunks, info, markers, loops, warnings, error
        case regions, instrument, opusHeader
        case fileTypeID, formatFlags, bytesPerFrame, bitRate, packetSizeUpperBound, maximumPacketSize, optimized
        case sourceBitDepth
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
        try container.encodeIfPresent(opusHeader, forKey: .opusHeader)
        try container.encodeIfPresent(fileTypeID, forKey: .fileTypeID)
        try container.encodeIfPresent(formatFlags, forKey: .formatFlags)
        try container.encodeIfPresent(bytesPerFrame, forKey: .bytesPerFrame)
        try container.encodeIfPresent(bitRate, forKey: .bitRate)
        try container.encodeIfPresent(packetSizeUpperBound, forKey: .packetSizeUpperBound)
        try container.encodeIfPresent(maximumPacketSize, forKey: .maximumPacketSize)
        try container.encodeIfPresent(optimized, forKey: .optimized)
        try container.encodeIfPresent(sourceBitDepth, forKey: .sourceBitDepth)
        try container.encode(info, forKey: .info)
        try container.encode(markers, forKey: .markers)
        try container.encode(loops, forKey: .loops)
        try container.encode(regions, forKey: .regions)
        try container.encodeIfPresent(instrument, forKey: .instrument)
    }

    /// An empty report for `path`: what a reader outside this target (libsndfile's formats) fills in.
    public init(path: String) {
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

    /// Describes the bytes of `source`, reported under `path` (shown as given): what `inspect`
    /// does once the file is open, for bytes from anywhere (the Inspection fuzz target).
    public static func inspect(_ source: some ByteSource, path: String) -> AudioFileInfo {
        var info = AudioFileInfo(path: path)
        describe(source, into: &info)
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
        describe(source, into: &info)
        return info
    }

    private static func describe(_ source: some ByteSource, into info: inout AudioFileInfo) {
        let prefix = (try? source.read(at: 0, count: 12)) ?? []
        guard let container = Container.detect(prefix) else {
            info.error = source.length == 0 ? "empty file (0 bytes)" : "not a CAF, WAV or AIFF file"
            return
        }
        switch container {
        case .caf: describeCAF(source, into: &info)
        case .wav, .rifx, .rf64: describeWAVE(source, into: &info)
        case .aiff, .aifc: describeAIFF(source, into: &info)
        }
        if info.format != nil { info.fileTypeID = fileTypeID(container, prefix: prefix) }
    }

    static func describeCAF(_ source: some ByteSource, into info: inout AudioFileInfo) {
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
        if desc.formatID == .opus, let kuki = document.contents.magicCookie {
            if let cookie = try? OpusCookie(parsing: kuki.bytes) {
                let rate = cookie.bitRate == OpusCookie.automaticBitRate ? "auto" : "\(cookie.bitRate) b/s"
                info.opusHeader =
                    "application \(cookie.applicationName), \(cookie.sampleRate) Hz, \(cookie.framesPerPacket) frames per packet, bit rate \(rate), \(cookie.channels) channel\(cookie.channels == 1 ? "" : "s")"
            } else {
                info.opusHeader = "not Apple's Opus cookie (\(kuki.bytes.count) bytes)"
            }
        }
        info.chunks = file.chunks.map { AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: $0.declaredSize) }
        addCAFPacketFacts(document, into: &info)
        info.info = (document.contents.infoStrings?.entries ?? []).map { AudioFileInfo.Text(key: $0.key, value: $0.value) }
        describeCAFMetadata(document.contents, into: &info)
        info.warnings = document.warnings.map(InfoWarning.caf)
        if let first = CAFValidator.validate(document, expecting: CAFExpectations()).first {
            info.error = "\(first)"
        }
        setDuration(&info)
    }

    static func describeWAVE(_ source: some ByteSource, into info: inout AudioFileInfo) {
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
            AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: Int64(clamping: $0.declaredSize))
        }
        info.info = file.infoStrings.map { AudioFileInfo.Text(key: $0.key, value: $0.value) }
        var names: [UInt32: String] = [:]
        let adtl = file.associatedData
        for entry in adtl.labeledTexts where !entry.text.isEmpty && names[entry.cueID] == nil { names[entry.cueID] = entry.text }
        for entry in adtl.notes where !entry.text.isEmpty { names[entry.cueID] = entry.text }
        for entry in adtl.labels where !entry.text.isEmpty { names[entry.cueID] = entry.text }
        info.markers = file.cuePoints.map {
            AudioFileInfo.Marker(frame: Double($0.position), name: names[$0.id] ?? "", type: "cue", id: Int64($0.id))
        }
        info.loops = (file.sampler?.loops ?? []).map {
            AudioFileInfo.Loop(
                start: UInt64($0.start), end: UInt64($0.end), playCount: $0.playCount,
                kind: ["forward", "alternating", "backward"][safe: Int($0.type)] ?? "type \($0.type)",
                name: names[$0.cuePointID])
        }
        if let sampler = file.sampler {
            info.instrument = AudioFileInfo.Instrument(
                baseNote: Double(sampler.midiUnityNote) + Double(sampler.midiPitchFraction) / 4_294_967_296)
        }
        info.warnings = file.warnings.map(InfoWarning.wave)
        addWAVEPacketFacts(file, into: &info)
        // An RF64 `ds64` can declare 2^63 bytes or more: the report's signed size holds the
        // largest it can, and says so.
        for chunk in file.chunks where chunk.declaredSize > UInt64(Int64.max) {
            info.warnings.append(.chunkTooLarge(type: chunk.type.trimmed, offset: chunk.offset, declared: chunk.declaredSize))
        }
        setDuration(&info)
    }

    static func describeAIFF(_ source: some ByteSource, into info: inout AudioFileInfo) {
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
            AudioFileInfo.Chunk(type: $0.type.trimmed, offset: $0.offset, size: Int64(clamping: $0.declaredSize))
        }
        info.info = file.texts.map { AudioFileInfo.Text(key: $0.type.trimmed, value: $0.text) }
        info.markers = file.markers.map {
            AudioFileInfo.Marker(frame: Double($0.position), name: $0.name, type: "marker", id: Int64($0.id))
        }
        if let inst = file.instrument {
            info.instrument = AudioFileInfo.Instrument(
                baseNote: Double(inst.baseNote) + Double(inst.detune) / 100, lowNote: Int(inst.lowNote),
                highNote: Int(inst.highNote), lowVelocity: Int(inst.lowVelocity), highVelocity: Int(inst.highVelocity),
                gain: Double(inst.gain))
            for (role, loop) in [("sustain", inst.sustainLoop), ("release", inst.releaseLoop)] where loop.playMode != 0 {
                guard let start = file.markers.first(where: { $0.id == loop.beginMarker }),
                    let end = file.markers.first(where: { $0.id == loop.endMarker })
                else { continue }
                info.loops.append(
                    AudioFileInfo.Loop(
                        start: UInt64(start.position), end: UInt64(end.position),
                        kind: loop.playMode == 2 ? "alternating" : "forward", role: role,
                        name: start.name.isEmpty ? nil : start.name))
            }
        }
        info.warnings = file.warnings.map(InfoWarning.wave)
        addAIFFPacketFacts(file, into: &info)
        setDuration(&info)
    }

    /// The names CAFKit's marker types have in `info`.
    static let markerTypeNames: [String: String] = [
        "rbeg": "region start", "rend": "region end", "rsyc": "region sync point", "slbg": "sustain loop start",
        "slen": "sustain loop end", "rlbg": "release loop start", "rlen": "release loop end", "indx": "index",
        "pbeg": "program start", "pend": "program end", "tbeg": "track start", "tend": "track end",
        "sbeg": "selection start", "send": "selection end", "sply": "saved play position",
    ]

    static func markerType(_ type: FourCC) -> String {
        if type.rawValue == 0 { return "generic" }
        return markerTypeNames[type.description] ?? type.description
    }

    /// Markers named from `strg`, regions, loops (regions with loop enable set) and `inst`.
    static func describeCAFMetadata(_ contents: CAFContents, into info: inout AudioFileInfo) {
        let strings = contents.strings?.lookup()
        func name(_ id: UInt32) -> String { strings?.string(for: id) ?? "" }
        info.markers = contents.markers.map {
            AudioFileInfo.Marker(
                frame: $0.framePosition, name: name(UInt32(bitPattern: $0.markerID)), type: markerType($0.type),
                id: Int64($0.markerID))
        }
        let instrument = contents.instrument
        for region in contents.regions {
            let start = region.markers.first?.framePosition
            let end = region.markers.last?.framePosition
            info.regions.append(
                AudioFileInfo.Region(
                    id: region.regionID, name: name(region.regionID), flags: region.flags, start: start, end: end))
            guard region.flags & 1 != 0, let start, let end, start.isFinite, end.isFinite, start >= 0, end >= 0 else { continue }
            let kind =
                switch region.flags & 6 {
                case 6: "alternating"
                case 4: "backward"
                default: "forward"
                }
            let role: String? =
                region.regionID == 0
                ? nil
                : instrument?.sustainRegionID == region.regionID
                    ? "sustain" : instrument?.releaseRegionID == region.regionID ? "release" : nil
            let regionName = name(region.regionID)
            info.loops.append(
                AudioFileInfo.Loop(
                    start: UInt64(min(start, 1e18)), end: UInt64(min(end, 1e18)), kind: kind, role: role,
                    name: regionName.isEmpty ? nil : regionName))
        }
        if let inst = instrument {
            info.instrument = AudioFileInfo.Instrument(
                baseNote: Double(inst.baseNote), lowNote: Int(inst.midiLowNote), highNote: Int(inst.midiHighNote),
                lowVelocity: Int(inst.midiLowVelocity), highVelocity: Int(inst.midiHighVelocity),
                gain: Double(inst.decibelGain), sustainRegion: inst.sustainRegionID == 0 ? nil : inst.sustainRegionID,
                releaseRegion: inst.releaseRegionID == 0 ? nil : inst.releaseRegionID)
        }
    }

    /// Sets `durationSeconds` to frames / rate, when both are known.
    public static func setDuration(_ info: inout AudioFileInfo) {
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

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
