import BinaryIO

extension FourCC {
    /// The file type of every CAF file.
    public static let caff = FourCC("caff")
    /// Audio description chunk.
    public static let desc = FourCC("desc")
    /// Audio data chunk.
    public static let data = FourCC("data")
    /// Packet table chunk.
    public static let pakt = FourCC("pakt")
    /// Magic cookie chunk.
    public static let kuki = FourCC("kuki")
    /// Channel layout chunk.
    public static let chan = FourCC("chan")
    /// Free (padding) chunk.
    public static let free = FourCC("free")
    /// Information strings chunk.
    public static let info = FourCC("info")
    /// Marker chunk.
    public static let mark = FourCC("mark")
    /// Region chunk.
    public static let regn = FourCC("regn")
    /// Instrument chunk.
    public static let inst = FourCC("inst")
    /// Strings chunk.
    public static let strg = FourCC("strg")
    /// Unique material identifier chunk.
    public static let umid = FourCC("umid")
    /// MIDI chunk.
    public static let midi = FourCC("midi")
    /// Overview chunk.
    public static let ovvw = FourCC("ovvw")
    /// Peak chunk.
    public static let peak = FourCC("peak")
    /// Edit comments chunk.
    public static let edct = FourCC("edct")
    /// User-defined chunk.
    public static let uuid = FourCC("uuid")

    /// Linear PCM format ID.
    public static let lpcm = FourCC("lpcm")
    /// IMA 4:1 ADPCM format ID.
    public static let ima4 = FourCC("ima4")
    /// Apple Lossless format ID.
    public static let alac = FourCC("alac")
    /// MPEG-4 AAC format ID.
    public static let aac = FourCC("aac ")
    /// Opus (`opus`).
    public static let opus = FourCC("opus")
    /// µ-law format ID.
    public static let ulaw = FourCC("ulaw")
    /// A-law format ID.
    public static let alaw = FourCC("alaw")
}
