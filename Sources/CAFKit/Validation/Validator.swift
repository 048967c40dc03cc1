import BinaryIO

/// One broken rule: which rule, where, what was expected and what was found.
public struct CAFDiagnostic: Equatable, Sendable, CustomStringConvertible {
    /// The rule broken; its ``CAFRule/code`` (`desc-first`, `byte-order`...) is what reports show.
    public var rule: CAFRule
    /// The chunk the rule is about, if any.
    public var chunk: FourCC?
    /// The absolute byte offset the rule is about.
    public var offset: UInt64
    /// What the rule or the user asked for.
    public var expected: String
    /// What the file holds.
    public var found: String

    /// Creates a diagnostic.
    public init(rule: CAFRule, chunk: FourCC? = nil, offset: UInt64, expected: String, found: String) {
        self.rule = rule
        self.chunk = chunk
        self.offset = offset
        self.expected = expected
        self.found = found
    }

    /// The rule's stable name, such as `desc-first`.
    public var code: String { rule.code }

    /// `rule: expected X, found Y (chunk 'desc' at byte 8)`.
    public var description: String {
        let place = chunk.map { "chunk '\($0)' at byte \(offset)" } ?? "at byte \(offset)"
        return "\(rule.code): expected \(expected), found \(found) (\(place))"
    }
}

/// What a caller expects of a file beyond the spec rules; `nil` fields are not checked.
public struct CAFExpectations: Equatable, Sendable {
    /// The format ID (`lpcm`, `alac`, ...).
    public var formatID: FourCC?
    /// The byte order of linear PCM samples.
    public var byteOrder: ByteOrder?
    /// Bits per channel.
    public var bitsPerChannel: UInt32?
    /// Whether linear PCM samples are floats.
    public var isFloat: Bool?
    /// Channels per frame.
    public var channels: UInt32?
    /// Frames per second.
    public var sampleRate: Double?
    /// The number of valid frames.
    public var validFrames: UInt64?

    /// Expectations with every field given or left out.
    public init(
        formatID: FourCC? = nil, byteOrder: ByteOrder? = nil, bitsPerChannel: UInt32? = nil,
        isFloat: Bool? = nil, channels: UInt32? = nil, sampleRate: Double? = nil, validFrames: UInt64? = nil
    ) {
        self.formatID = formatID
        self.byteOrder = byteOrder
        self.bitsPerChannel = bitsPerChannel
        self.isFloat = isFloat
        self.channels = channels
        self.sampleRate = sampleRate
        self.validFrames = validFrames
    }
}

/// Judges a ``CAFFile`` against the rules of the CAF specification and against expectations.
public enum CAFValidator {
    /// Every broken rule that the chunk table and header fields show, then every unmet
    /// expectation; empty when the file is valid. ``validate(_:expecting:)-(CAFDocument,_)`` also
    /// checks chunk bodies.
    public static func validate(_ file: CAFFile, expecting expected: CAFExpectations = CAFExpectations()) -> [CAFDiagnostic] {
        var problems = structuralProblems(file)
        problems += packetProblems(file)
        problems += opusPrimingProblems(file)
        problems += expectationProblems(file, expected)
        return problems
    }

    /// Every broken rule of ``validate(_:expecting:)-(CAFFile,_)`` plus the rules about chunk
    /// bodies: `chunk-body`, `pakt-bytes`, `chan-size`, `chan-channels`, `peak-size`,
    /// `info-count`, `mark-position` and `regn-position`.
    public static func validate(_ document: CAFDocument, expecting expected: CAFExpectations = CAFExpectations())
        -> [CAFDiagnostic]
    {
        var problems = structuralProblems(document.file)
        problems += packetProblems(document.file)
        problems += opusPrimingProblems(document.file)
        problems += bodyProblems(document)
        problems += opusCookieProblems(document)
        problems += expectationProblems(document.file, expected)
        return problems
    }

    static func structuralProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        chunkCountProblems(file.chunks) + chunkSizeProblems(file) + descriptionProblems(file)
    }

    /// `desc` first and once, with its size; one `data` chunk.
    static func chunkCountProblems(_ chunks: [ChunkHeader]) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        if let first = chunks.first, first.type != .desc {
            problems.append(
                CAFDiagnostic(
                    rule: .descFirst, chunk: first.type, offset: first.offset,
                    expected: "'desc' as the first chunk", found: "'\(first.type)'"))
        }
        for chunk in chunks where chunk.type == .desc && chunk.size != UInt64(AudioDescription.size) {
            problems.append(
                CAFDiagnostic(
                    rule: .descSize, chunk: .desc, offset: chunk.offset,
                    expected: "\(AudioDescription.size) bytes", found: "\(chunk.size) bytes"))
        }
        let descCount = chunks.filter { $0.type == .desc }.count
        if descCount > 1, let second = chunks.filter({ $0.type == .desc }).dropFirst().first {
            problems.append(
                CAFDiagnostic(
                    rule: .oneDesc, chunk: .desc, offset: second.offset,
                    expected: "exactly one 'desc' chunk", found: "\(descCount)"))
        }
        let dataChunks = chunks.filter { $0.type == .data }
        if dataChunks.count != 1, let extra = dataChunks.dropFirst().first {
            problems.append(
                CAFDiagnostic(
                    rule: .oneData, chunk: .data, offset: extra.offset,
                    expected: "exactly one 'data' chunk", found: "\(dataChunks.count)"))
        }
        return problems
    }

    /// Each chunk's size against the file's bytes, and bytes after the last chunk.
    static func chunkSizeProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let chunks = file.chunks
        for (index, chunk) in chunks.enumerated() {
            if chunk.declaredSize == -1 {
                if chunk.type != .data || index != chunks.count - 1 {
                    problems.append(
                        CAFDiagnostic(
                            rule: .sizeMinusOne, chunk: chunk.type, offset: chunk.offset,
                            expected: "size -1 only on a last 'data' chunk",
                            found: "size -1 on '\(chunk.type)'"))
                }
            } else if chunk.declaredSize >= 0, UInt64(chunk.declaredSize) != chunk.size {
                problems.append(
                    CAFDiagnostic(
                        rule: .chunkWithinFile, chunk: chunk.type, offset: chunk.offset,
                        expected: "\(chunk.declaredSize) bytes within the file",
                        found: "\(chunk.size) bytes before the end of the file"))
            }
        }
        if chunks.count >= CAFFile.maximumChunks, let last = chunks.last, last.end < file.fileLength {
            // The reader stopped listing chunks: the bytes after are unread, not stray.
            problems.append(
                CAFDiagnostic(
                    rule: .chunkCount, chunk: nil, offset: last.end,
                    expected: "at most \(CAFFile.maximumChunks) chunks",
                    found: "more (the last \(file.fileLength - last.end) bytes are not read)"))
        } else if let last = chunks.last, last.end < file.fileLength {
            problems.append(
                CAFDiagnostic(
                    rule: .fileEndsWithChunk, chunk: nil, offset: last.end,
                    expected: "the file to end at byte \(last.end), where its last chunk ends",
                    found: "\(file.fileLength - last.end) more bytes"))
        }
        return problems
    }

    /// The audio description: a rate, channels, and bits and packet sizes that fit its format.
    static func descriptionProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let desc = file.audioDescription
        let descOffset = file.audioDescriptionOffset
        if !(desc.sampleRate.isFinite && desc.sampleRate > 0) {
            problems.append(
                CAFDiagnostic(
                    rule: .sampleRate, chunk: .desc, offset: descOffset,
                    expected: "a finite positive sample rate", found: "\(desc.sampleRate)"))
        }
        if desc.channelsPerFrame == 0 {
            problems.append(
                CAFDiagnostic(
                    rule: .channels, chunk: .desc, offset: descOffset,
                    expected: "at least 1 channel", found: "0"))
        }
        if desc.isLinearPCM {
            problems += linearPCMProblems(file)
        } else if desc.bitsPerChannel != 0, desc.formatID != .alac,
            !((desc.formatID == .ulaw || desc.formatID == .alaw) && desc.bitsPerChannel == 8)
        {
            // G.711 carries one 8-bit code per channel; Core Audio describes it with 8 bits.
            problems.append(
                CAFDiagnostic(
                    rule: .compressedBits, chunk: .desc, offset: descOffset,
                    expected: "0 bits per channel for '\(desc.formatID)'",
                    found: "\(desc.bitsPerChannel)"))
        }
        return problems
    }

    /// Linear PCM: a sample size CAF allows, one frame per packet of the packed size, whole
    /// frames of audio.
    static func linearPCMProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let desc = file.audioDescription
        let descOffset = file.audioDescriptionOffset
        let bits = desc.bitsPerChannel
        let validBits: [UInt32] = desc.isFloat ? [32, 64] : [8, 16, 24, 32]
        if !validBits.contains(bits) {
            problems.append(
                CAFDiagnostic(
                    rule: .lpcmBits, chunk: .desc, offset: descOffset,
                    expected: desc.isFloat ? "32 or 64 bits" : "8, 16, 24 or 32 bits",
                    found: "\(bits) bits"))
        }
        if desc.framesPerPacket != 1 {
            problems.append(
                CAFDiagnostic(
                    rule: .lpcmFramesPerPacket, chunk: .desc, offset: descOffset,
                    expected: "1 frame per packet", found: "\(desc.framesPerPacket)"))
        }
        // In 64 bits: channels and bits come from the file and their product can overflow 32.
        let packet = UInt64(desc.channelsPerFrame) * ((UInt64(bits) + 7) / 8)
        if UInt64(desc.bytesPerPacket) != packet {
            problems.append(
                CAFDiagnostic(
                    rule: .lpcmBytesPerPacket, chunk: .desc, offset: descOffset,
                    expected: "\(packet) bytes per packet (channels x bytes per sample)",
                    found: "\(desc.bytesPerPacket)"))
        }
        if desc.bytesPerPacket > 0, file.audioBytes % UInt64(desc.bytesPerPacket) != 0,
            let data = file.dataChunk
        {
            problems.append(
                CAFDiagnostic(
                    rule: .wholeFrames, chunk: .data, offset: data.offset,
                    expected: "a multiple of \(desc.bytesPerPacket) audio bytes",
                    found: "\(file.audioBytes) bytes"))
        }
        return problems
    }

    static func expectationProblems(_ file: CAFFile, _ expected: CAFExpectations) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let desc = file.audioDescription
        let at = file.audioDescriptionOffset
        func check(_ rule: CAFRule, _ want: String?, _ have: String) {
            if let want, want != have {
                problems.append(CAFDiagnostic(rule: rule, chunk: .desc, offset: at, expected: want, found: have))
            }
        }
        check(.format, expected.formatID.map { "'\($0)'" }, "'\(desc.formatID)'")
        if let order = expected.byteOrder, desc.isLinearPCM, desc.bitsPerChannel > 8 || desc.isFloat {
            check(.byteOrder, order.rawValue, desc.byteOrder?.rawValue ?? "none")
        }
        check(.bits, expected.bitsPerChannel.map(String.init), String(desc.bitsPerChannel))
        check(.float, expected.isFloat.map { $0 ? "float" : "integer" }, desc.isFloat ? "float" : "integer")
        check(.channels, expected.channels.map(String.init), String(desc.channelsPerFrame))
        check(.sampleRate, expected.sampleRate.map { "\($0)" }, "\(desc.sampleRate)")
        if let frames = expected.validFrames, let found = file.validFrames, frames != found {
            problems.append(
                CAFDiagnostic(
                    rule: .frames, chunk: .data, offset: file.dataChunk?.offset ?? 0,
                    expected: "\(frames) frames", found: "\(found) frames"))
        }
        return problems
    }
}
