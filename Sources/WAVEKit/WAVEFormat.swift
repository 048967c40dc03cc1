import BinaryIO

/// The `fmt ` chunk of a WAVE file, including the WAVE_FORMAT_EXTENSIBLE fields.
public struct WAVEFormat: Equatable, Sendable {
    /// `WAVE_FORMAT_PCM`.
    public static let pcm: UInt16 = 0x0001
    /// `WAVE_FORMAT_IEEE_FLOAT`.
    public static let ieeeFloat: UInt16 = 0x0003
    /// `WAVE_FORMAT_ALAW`.
    public static let aLaw: UInt16 = 0x0006
    /// `WAVE_FORMAT_MULAW`.
    public static let muLaw: UInt16 = 0x0007
    /// `WAVE_FORMAT_EXTENSIBLE`.
    public static let extensible: UInt16 = 0xFFFE

    /// The format tag as written.
    public var formatTag: UInt16
    /// Channels.
    public var channels: UInt16
    /// Frames per second.
    public var sampleRate: UInt32
    /// Average bytes per second.
    public var byteRate: UInt32
    /// Bytes per frame.
    public var blockAlign: UInt16
    /// Bits per sample (the container size).
    public var bitsPerSample: UInt16
    /// The size of the extension, when the chunk has one.
    public var extensionSize: UInt16?
    /// Valid bits per sample (WAVE_FORMAT_EXTENSIBLE).
    public var validBitsPerSample: UInt16?
    /// Speaker positions (WAVE_FORMAT_EXTENSIBLE).
    public var channelMask: UInt32?
    /// The sub-format GUID as 16 bytes in its canonical (little-endian) layout, whatever the
    /// file's byte order: a RIFX file stores the GUID's first three fields big-endian, and they
    /// are put back in little-endian order when read (WAVE_FORMAT_EXTENSIBLE).
    public var subFormat: [UInt8]?
    /// Whether a RIFX file stored the sub-format GUID in the RIFF layout (its first three fields
    /// little-endian, as most writers other than libsndfile do), which libsndfile cannot read.
    public var subFormatInRIFFLayout = false
    /// Frames per block of a block-based codec (IMA and Microsoft ADPCM, GSM 6.10), from the
    /// `fmt ` extension, when it says.
    public var samplesPerBlock: UInt16?

    /// The effective format tag: the sub-format's first two bytes for WAVE_FORMAT_EXTENSIBLE,
    /// when the rest of the GUID is the one tags are mapped into (or the ambisonic B-format
    /// one); any other sub-format GUID is not a tag, and the tag stays 0xFFFE (unknown).
    public var effectiveTag: UInt16 {
        if formatTag == Self.extensible, let guid = subFormat, guid.count == 16 {
            let tail = guid[2...]
            if tail.elementsEqual(Self.tagGUIDTail) || tail.elementsEqual(Self.ambisonicGUIDTail) {
                return UInt16(guid[0]) | UInt16(guid[1]) << 8
            }
        }
        return formatTag
    }

    /// Whether `guid` (16 bytes, canonical layout) is a sub-format GUID made from a format tag.
    static func isKnownGUID(_ guid: [UInt8]) -> Bool {
        guard guid.count == 16 else { return false }
        let tail = guid[2...]
        return tail.elementsEqual(tagGUIDTail) || tail.elementsEqual(ambisonicGUIDTail)
    }

    /// Bytes 2...15 (canonical layout) of KSDATAFORMAT_SUBTYPE GUIDs made from a format tag:
    /// `0000TTTT-0000-0010-8000-00AA00389B71`.
    static let tagGUIDTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
    /// The same for the ambisonic B-format sub-formats: `0000000T-0721-11D3-8644-C8C1CA000000`.
    static let ambisonicGUIDTail: [UInt8] = [0, 0, 0x21, 0x07, 0xD3, 0x11, 0x86, 0x44, 0xC8, 0xC1, 0xCA, 0, 0, 0]

    /// Tags whose `fmt ` extension starts with the frames per block: Microsoft ADPCM, IMA ADPCM,
    /// GSM 6.10.
    static let blockCodecs: [UInt16] = [0x0002, 0x0011, 0x0031]

    /// Whether the samples are G.711 µ-law or A-law (one byte per sample, one frame per block).
    public var isG711: Bool { effectiveTag == Self.muLaw || effectiveTag == Self.aLaw }

    /// Whether the samples are linear PCM (integer or float).
    public var isLinearPCM: Bool { effectiveTag == Self.pcm || effectiveTag == Self.ieeeFloat }
    /// Whether the samples are IEEE floats.
    public var isFloat: Bool { effectiveTag == Self.ieeeFloat }

    /// Parses the chunk body; `order` is `.big` only for RIFX files.
    public init(parsing cursor: inout ByteCursor, order: ByteOrder = .little) throws(ByteError) {
        formatTag = try cursor.readUInt16(order)
        channels = try cursor.readUInt16(order)
        sampleRate = try cursor.readUInt32(order)
        byteRate = try cursor.readUInt32(order)
        blockAlign = try cursor.readUInt16(order)
        bitsPerSample = try cursor.readUInt16(order)
        if cursor.remaining >= 2 {
            let size = try cursor.readUInt16(order)
            extensionSize = size
            if formatTag == Self.extensible, size >= 22, cursor.remaining >= 22 {
                validBitsPerSample = try cursor.readUInt16(order)
                channelMask = try cursor.readUInt32(order)
                // A GUID is a 32-bit, two 16-bit fields and 8 bytes. libsndfile's RIFX stores the
                // three numbers in the file's byte order; other RIFX writers copy the 16 bytes of
                // the RIFF layout (the numbers little-endian). Both are read: the file's order
                // first, the RIFF layout when only it gives a known sub-format.
                let raw = try cursor.readBytes(16)
                var guid = ByteWriter()
                var fields = ByteCursor(raw)
                guid.write(try fields.readUInt32(order), .little)
                guid.write(try fields.readUInt16(order), .little)
                guid.write(try fields.readUInt16(order), .little)
                guid.write(bytes: raw[8...])
                subFormat = guid.bytes
                if order == .big, !Self.isKnownGUID(guid.bytes), Self.isKnownGUID(raw) {
                    subFormat = raw
                    subFormatInRIFFLayout = true
                }
            } else if Self.blockCodecs.contains(formatTag), size >= 2, cursor.remaining >= 2 {
                samplesPerBlock = try cursor.readUInt16(order)
            }
        }
    }

    /// The name of the encoding: "PCM", "IEEE float", "IMA ADPCM", ... or the tag in hex.
    public var encodingName: String {
        Self.known(effectiveTag)?.name ?? "format tag 0x" + Self.hex(effectiveTag).uppercased()
    }

    /// The name and CAF-style code of a tag cafconv knows (a switch: a dictionary would be built,
    /// and its generic type made, in every process that names a format).
    static func known(_ tag: UInt16) -> (name: String, code: String)? {
        switch tag {
        case pcm: ("PCM", "lpcm")
        case ieeeFloat: ("IEEE float", "lpcm")
        case aLaw: ("A-law", "alaw")
        case muLaw: ("µ-law", "ulaw")
        case 0x0002: ("Microsoft ADPCM", "msadpcm")
        case 0x0011: ("IMA ADPCM", "imaadpcm")
        case 0x0031: ("GSM 6.10", "gsm")
        case 0x0055: ("MPEG Layer 3", "mp3")
        case 0x0050: ("MPEG", "mpeg")
        case 0x0092: ("Dolby AC-3 SPDIF", "ac3")
        case 0x0161, 0x0162, 0x0163: ("Windows Media Audio", "wma")
        case 0xF1AC: ("FLAC", "flac")
        case extensible: ("WAVE_FORMAT_EXTENSIBLE of an unknown sub-format", "0xfffe")
        default: nil
        }
    }

    /// Four lowercase hex digits.
    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

extension WAVEFormat {
    /// The format as a CAF-style code: `lpcm` for integer and float PCM, `ulaw`, `alaw`, and a
    /// short lowercase name for other tags (`msadpcm`, `imaadpcm`, `gsm`, `mp3`, `mpeg`, `ac3`,
    /// `wma`, `flac`), else `0x` and the tag in hex.
    public var formatID: String { Self.known(effectiveTag)?.code ?? "0x" + Self.hex(effectiveTag) }
}
