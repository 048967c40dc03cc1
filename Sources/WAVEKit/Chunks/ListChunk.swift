import BinaryIO

/// One `LIST`/`INFO` entry, such as `INAM` (title) or `ISFT` (software).
public struct InfoEntry: Equatable, Sendable {
    /// The entry id (`INAM`, `IART`, `ICRD`, `ISFT`, ...).
    public var key: FourCC
    /// The text, up to its terminating NUL.
    public var value: String

    /// Creates an entry.
    public init(key: FourCC, value: String) {
        self.key = key
        self.value = value
    }
}

/// A `labl` or `note` entry of a `LIST`/`adtl` chunk: text attached to a cue point.
public struct CueText: Equatable, Sendable {
    /// The cue point the text belongs to.
    public var cueID: UInt32
    /// The text.
    public var text: String

    /// Creates an entry.
    public init(cueID: UInt32, text: String) {
        self.cueID = cueID
        self.text = text
    }
}

/// An `ltxt` entry of a `LIST`/`adtl` chunk: a region of samples starting at a cue point.
public struct LabeledText: Equatable, Sendable {
    /// The cue point the region starts at.
    public var cueID: UInt32
    /// The length of the region in samples.
    public var sampleLength: UInt32
    /// What the text is for (for example `rgn `).
    public var purpose: FourCC
    /// Country code.
    public var country: UInt16
    /// Language code.
    public var language: UInt16
    /// Dialect code.
    public var dialect: UInt16
    /// Code page of the text.
    public var codePage: UInt16
    /// The text (may be empty).
    public var text: String

    /// Creates an entry.
    public init(
        cueID: UInt32, sampleLength: UInt32, purpose: FourCC, country: UInt16, language: UInt16,
        dialect: UInt16, codePage: UInt16, text: String
    ) {
        self.cueID = cueID
        self.sampleLength = sampleLength
        self.purpose = purpose
        self.country = country
        self.language = language
        self.dialect = dialect
        self.codePage = codePage
        self.text = text
    }
}

/// The associated data list (`LIST`/`adtl`): labels, notes and labelled regions for cue points.
public struct AssociatedData: Equatable, Sendable {
    /// `labl` entries.
    public var labels: [CueText] = []
    /// `note` entries.
    public var notes: [CueText] = []
    /// `ltxt` entries.
    public var labeledTexts: [LabeledText] = []

    /// An empty list.
    public init() {}
}

/// A `LIST` chunk: its list type and the sub-chunks the reader understands.
public struct ListChunk: Equatable, Sendable {
    /// The list type: `INFO`, `adtl`, or another code.
    public var listType: FourCC
    /// The entries of an `INFO` list.
    public var info: [InfoEntry] = []
    /// The entries of an `adtl` list.
    public var associatedData = AssociatedData()
    /// Sub-chunks that were cut short by the end of the chunk (0 when the list is intact).
    public var truncatedEntries = 0

    /// Parses a `LIST` body; `order` is `.big` only in RIFX files.
    public init(parsing cursor: inout ByteCursor, order: ByteOrder = .little) throws(ByteError) {
        listType = try cursor.readFourCC()
        while cursor.remaining >= 8 {
            let id = try cursor.readFourCC()
            let declared = try cursor.readUInt32(order)
            guard UInt64(declared) <= UInt64(cursor.remaining) else {
                truncatedEntries += 1
                break
            }
            let body = try cursor.readBytes(Int(declared))
            if declared % 2 == 1, cursor.remaining > 0 { try cursor.skip(1) }
            var sub = ByteCursor(body)
            switch listType {
            case FourCC("INFO"):
                info.append(InfoEntry(key: id, value: ChunkText.decode(body)))
            case FourCC("adtl"):
                switch id {
                case FourCC("labl"), FourCC("note"):
                    guard body.count >= 4 else { truncatedEntries += 1; continue }
                    let cue = try sub.readUInt32(order)
                    let entry = CueText(cueID: cue, text: ChunkText.decode(sub.readRest()))
                    if id == FourCC("labl") { associatedData.labels.append(entry) } else { associatedData.notes.append(entry) }
                case FourCC("ltxt"):
                    guard body.count >= 20 else { truncatedEntries += 1; continue }
                    associatedData.labeledTexts.append(
                        LabeledText(
                            cueID: try sub.readUInt32(order), sampleLength: try sub.readUInt32(order),
                            purpose: try sub.readFourCC(), country: try sub.readUInt16(order),
                            language: try sub.readUInt16(order), dialect: try sub.readUInt16(order),
                            codePage: try sub.readUInt16(order), text: ChunkText.decode(sub.readRest())))
                default:
                    break
                }
            default:
                break
            }
        }
    }
}
