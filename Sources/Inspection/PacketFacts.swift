import BinaryIO
import CAFKit
import WAVEKit

/// The fields afinfo prints that the readers do not state directly: the file type ID, the Core
/// Audio format flags, the packet sizes, the bit rate, whether the file is "optimized" and the
/// source bit depth. Computed once from a report's packet layout, for every container (CAF, WAV
/// and AIFF here; libsndfile's formats through `SourceInspection`).
extension Inspector {
    /// afinfo's `File type ID` of a container cafconv parses (Apple's `kAudioFile...Type` codes).
    static func fileTypeID(_ container: Container, prefix: [UInt8]) -> String {
        switch container {
        case .caf: "caff"
        case .wav, .rifx: "WAVE"
        case .rf64: prefix.starts(with: Array("BW64".utf8)) ? "BW64" : "RF64"
        case .aiff: "AIFF"
        case .aifc: "AIFC"
        }
    }

    /// Core Audio's flags for linear PCM: float 1, big-endian 2 (only where a sample has more
    /// than one byte), signed integer 4, packed 8.
    public static func linearPCMFlags(isFloat: Bool, bigEndian: Bool, signed: Bool, packed: Bool = true) -> UInt32 {
        (isFloat ? 1 : 0) | (bigEndian ? 2 : 0) | (signed && !isFloat ? 4 : 0) | (packed ? 8 : 0)
    }

    /// Fills the packet fields from the layout of packets: `bytesPerPacket` and `framesPerPacket`
    /// both above 0 for constant packets (linear PCM is one frame a packet; IMA4 64 frames in 34
    /// bytes a channel), and for packets that vary (AAC, Opus) their count and the largest.
    /// A constant-packet compressed format's packet count is the audio bytes over the packet
    /// size: its `pakt`, when it has one, lists no packets (an IMA4 CAF's says 0).
    public static func addPacketFacts(
        _ info: inout AudioFileInfo, bytesPerPacket: UInt32, framesPerPacket: UInt32, flags: UInt32,
        packets variable: Int64? = nil, maximumPacket: UInt32? = nil
    ) {
        info.formatFlags = flags
        info.bytesPerFrame = framesPerPacket == 1 ? bytesPerPacket : 0
        let rate = info.sampleRate ?? 0
        if bytesPerPacket > 0, framesPerPacket > 0 {
            info.packetSizeUpperBound = bytesPerPacket
            info.maximumPacketSize = bytesPerPacket
            if framesPerPacket > 1, let bytes = info.audioBytes { info.packets = Int64(clamping: bytes / UInt64(bytesPerPacket)) }
            info.bitRate = wholeBits(Double(bytesPerPacket) * 8 * rate / Double(framesPerPacket))
        } else {
            if let variable { info.packets = variable }
            info.maximumPacketSize = maximumPacket
            info.packetSizeUpperBound = maximumPacket
            if let packets = info.packets, packets > 0, framesPerPacket > 0, let bytes = info.audioBytes {
                info.bitRate = wholeBits(Double(bytes) * 8 * rate / (Double(packets) * Double(framesPerPacket)))
            }
        }
        if info.format == "lpcm", let bits = info.validBitsPerChannel ?? info.bitsPerChannel {
            info.sourceBitDepth = (info.isFloat == true ? "F" : "I") + String(bits)
        }
        if let last = info.chunks.last { info.optimized = last.type == "data" || last.type == "SSND" }
    }

    /// ALAC's (and FLAC's, in Core Audio) format flags name the source's bit depth: 1 for 16 bits,
    /// 2 for 20, 3 for 24, 4 for 32.
    public static func losslessSourceDepth(flags: UInt32) -> String? {
        switch flags {
        case 1: "I16"
        case 2: "I20"
        case 3: "I24"
        case 4: "I32"
        default: nil
        }
    }

    /// A bit rate truncated to whole bits per second, as afinfo prints it; `nil` when not finite.
    public static func wholeBits(_ value: Double) -> Int64? {
        guard value.isFinite, value >= 0, value < 9e18 else { return nil }
        return Int64(exactly: value.rounded(.down))
    }

    /// afinfo's fields for a CAF file: the `desc` layout, and for packets that vary the `pakt`
    /// count and its largest entry.
    static func addCAFPacketFacts(_ document: CAFDocument, into info: inout AudioFileInfo) {
        let desc = document.file.audioDescription
        if desc.isLinearPCM {
            let bytes = desc.bytesPerFrame ?? 0
            let wordBytes = desc.channelsPerFrame > 0 ? bytes / desc.channelsPerFrame : 0
            let flags = linearPCMFlags(
                isFloat: desc.isFloat, bigEndian: desc.byteOrder == .big && wordBytes > 1, signed: true,
                packed: desc.bitsPerChannel % 8 == 0 && wordBytes == desc.bitsPerChannel / 8)
            addPacketFacts(&info, bytesPerPacket: bytes, framesPerPacket: 1, flags: flags)
            return
        }
        let table = document.contents.packetTable
        let largest = table?.entries.compactMap(\.byteSize).max().map { UInt32(clamping: $0) }
        addPacketFacts(
            &info, bytesPerPacket: desc.bytesPerPacket, framesPerPacket: desc.framesPerPacket, flags: desc.formatFlags,
            packets: table?.header.numberPackets, maximumPacket: largest)
        if desc.formatID == .alac { info.sourceBitDepth = losslessSourceDepth(flags: desc.formatFlags) }
    }
}

extension Inspector {
    /// afinfo's fields for a WAV file: one frame a packet for linear PCM (8-bit samples are
    /// unsigned), the block for ADPCM, a byte a channel for G.711.
    static func addWAVEPacketFacts(_ file: WAVEFile, into info: inout AudioFileInfo) {
        let format = file.format
        let channels = UInt32(format.channels)
        if format.isLinearPCM {
            let bytes = UInt32(format.blockAlign)
            let bits = UInt32(format.bitsPerSample)
            let flags = linearPCMFlags(
                isFloat: format.isFloat, bigEndian: file.byteOrder == .big && bits > 8, signed: bits > 8,
                packed: channels > 0 && bytes == channels * ((bits + 7) / 8) && bits % 8 == 0)
            addPacketFacts(&info, bytesPerPacket: bytes, framesPerPacket: 1, flags: flags)
        } else if info.format == "ulaw" || info.format == "alaw" {
            addPacketFacts(&info, bytesPerPacket: channels, framesPerPacket: 1, flags: 0)
        } else {
            addPacketFacts(
                &info, bytesPerPacket: UInt32(format.blockAlign), framesPerPacket: info.framesPerPacket ?? 0, flags: 0)
        }
    }

    /// afinfo's fields for an AIFF or AIFF-C file: linear PCM (8-bit samples signed, `raw `
    /// excepted), G.711 a byte a channel, IMA4 34 bytes a channel for 64 frames.
    static func addAIFFPacketFacts(_ file: AIFFFile, into info: inout AudioFileInfo) {
        let channels = UInt32(clamping: file.channels)
        if let bits = file.bitsPerChannel.map({ UInt32(clamping: $0) }) {
            let word = (bits + 7) / 8
            let flags = linearPCMFlags(
                isFloat: file.isFloat, bigEndian: file.byteOrder == .big && word > 1,
                signed: file.compressionType != FourCC("raw "), packed: bits % 8 == 0)
            addPacketFacts(&info, bytesPerPacket: word * channels, framesPerPacket: 1, flags: flags)
        } else if info.format == "ulaw" || info.format == "alaw" {
            addPacketFacts(&info, bytesPerPacket: channels, framesPerPacket: 1, flags: 0)
        } else if file.compressionType == FourCC("ima4") {
            addPacketFacts(&info, bytesPerPacket: 34 * channels, framesPerPacket: 64, flags: 0)
        } else {
            addPacketFacts(&info, bytesPerPacket: 0, framesPerPacket: UInt32(clamping: file.framesPerPacket), flags: 0)
        }
    }
}
