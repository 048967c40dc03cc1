import BinaryIO

/// One chunk of a CAF file as a typed value; unknown or malformed chunks are kept as raw bytes,
/// in file order, so a rewrite keeps what the parser does not understand.
public enum CAFChunk: Equatable, Hashable, Sendable {
    /// `desc`: the audio format, plus any bytes after its 32 (kept for a rewrite).
    case description(AudioDescription, trailing: [UInt8] = [])
    /// `data`: the edit count and the audio.
    case audioData(AudioDataChunk)
    /// `pakt`: the packet table.
    case packetTable(PacketTable)
    /// `kuki`: the magic cookie.
    case magicCookie(MagicCookie)
    /// `chan`: the channel layout.
    case channelLayout(ChannelLayout)
    /// `free`: padding.
    case free(FreeChunk)
    /// `info`: key/value strings.
    case info(InfoStrings)
    /// `mark`: markers.
    case markers(MarkerChunk)
    /// `regn`: regions.
    case regions(RegionChunk)
    /// `inst`: instrument parameters.
    case instrument(Instrument)
    /// `strg`: strings for marker and region IDs.
    case strings(StringsChunk)
    /// `uuid`: a user-defined chunk.
    case userDefined(UserDefinedChunk)
    /// `peak`: per-channel peaks.
    case peak(PeakChunk)
    /// `ovvw`: a waveform overview.
    case overview(Overview)
    /// `edct`: edit comments.
    case editComments(EditComments)
    /// `umid`: a unique material identifier.
    case materialID(MaterialIdentifier)
    /// `midi`: a MIDI file.
    case midi(MIDIChunk)
    /// A chunk of another type, or one whose body could not be parsed, as raw bytes.
    case unknown(FourCC, [UInt8])
    /// A chunk whose body was larger than the reader's limit and was not loaded; a writer copies
    /// it from the source it was read from.
    case notLoaded(ChunkHeader)

    /// The chunk's four-character type.
    public var type: FourCC {
        switch self {
        case .description: return .desc
        case .audioData: return .data
        case .packetTable: return .pakt
        case .magicCookie: return .kuki
        case .channelLayout: return .chan
        case .free: return .free
        case .info: return .info
        case .markers: return .mark
        case .regions: return .regn
        case .instrument: return .inst
        case .strings: return .strg
        case .userDefined: return .uuid
        case .peak: return .peak
        case .overview: return .ovvw
        case .editComments: return .edct
        case .materialID: return .umid
        case .midi: return .midi
        case .unknown(let type, _): return type
        case .notLoaded(let header): return header.type
        }
    }

    /// Parses the body of a chunk of `type`. `description` (the file's `desc`) tells which fields
    /// the `pakt` entries hold; without it a `pakt` is parsed as if packets were constant.
    ///
    /// - Parameters:
    ///   - type: The chunk's four-character type.
    ///   - body: The chunk's body, without its 12-byte header.
    ///   - bodyOffset: The absolute offset of `body`, for error messages.
    ///   - description: The file's audio description, if known.
    ///   - sizeIsUnknown: Whether the chunk's size was written as -1 (a last `data` chunk).
    /// - Throws: ``CAFError`` with kind ``CAFError/Kind/malformedChunk(_:)`` or ``CAFError/Kind/truncated``.
    public static func parse(
        type: FourCC, body: [UInt8], at bodyOffset: UInt64 = 0,
        description: AudioDescription? = nil, sizeIsUnknown: Bool = false
    ) throws(CAFError) -> CAFChunk {
        var cursor = ByteCursor(body, baseOffset: bodyOffset)
        do {
            switch type {
            case .desc:
                let value = try AudioDescription(parsing: &cursor)
                return .description(value, trailing: cursor.readRest())
            case .data: return .audioData(try AudioDataChunk(parsing: &cursor, sizeIsUnknown: sizeIsUnknown))
            case .pakt:
                return .packetTable(
                    try PacketTable(
                        parsing: &cursor, bytesPerPacket: description?.bytesPerPacket ?? 1,
                        framesPerPacket: description?.framesPerPacket ?? 1))
            case .kuki: return .magicCookie(MagicCookie(bytes: cursor.readRest()))
            case .chan: return .channelLayout(try ChannelLayout(parsing: &cursor))
            case .free: return .free(FreeChunk(parsing: &cursor))
            case .info: return .info(try InfoStrings(parsing: &cursor, chunk: .info))
            case .mark: return .markers(try MarkerChunk(parsing: &cursor))
            case .regn: return .regions(try RegionChunk(parsing: &cursor))
            case .inst: return .instrument(try Instrument(parsing: &cursor))
            case .strg: return .strings(try StringsChunk(parsing: &cursor))
            case .uuid: return .userDefined(try UserDefinedChunk(parsing: &cursor))
            case .peak: return .peak(try PeakChunk(parsing: &cursor))
            case .ovvw: return .overview(try Overview(parsing: &cursor))
            case .edct: return .editComments(try EditComments(parsing: &cursor, chunk: .edct))
            case .umid: return .materialID(MaterialIdentifier(parsing: &cursor))
            case .midi: return .midi(MIDIChunk(parsing: &cursor))
            default: return .unknown(type, body)
            }
        } catch let error as CAFError {
            throw error
        } catch {
            throw CAFError(.malformedChunk(type), at: bodyOffset, "'\(type)' body is malformed: \(error)")
        }
    }

    /// Appends the chunk body (without the 12-byte chunk header). Audio that lives in a source and
    /// ``notLoaded(_:)`` bodies are not written here; ``CAFWriter`` copies them.
    public func writeBody(to writer: inout ByteWriter) {
        switch self {
        case .description(let value, let trailing):
            value.write(to: &writer)
            writer.write(bytes: trailing)
        case .audioData(let value): value.write(to: &writer)
        case .packetTable(let value): value.write(to: &writer)
        case .magicCookie(let value): writer.write(bytes: value.bytes)
        case .channelLayout(let value): value.write(to: &writer)
        case .free(let value): value.write(to: &writer)
        case .info(let value): value.write(to: &writer)
        case .markers(let value): value.write(to: &writer)
        case .regions(let value): value.write(to: &writer)
        case .instrument(let value): value.write(to: &writer)
        case .strings(let value): value.write(to: &writer)
        case .userDefined(let value): value.write(to: &writer)
        case .peak(let value): value.write(to: &writer)
        case .overview(let value): value.write(to: &writer)
        case .editComments(let value): value.write(to: &writer)
        case .materialID(let value): value.write(to: &writer)
        case .midi(let value): value.write(to: &writer)
        case .unknown(_, let bytes): writer.write(bytes: bytes)
        case .notLoaded: break
        }
    }

    /// The body bytes (see ``writeBody(to:)``).
    public var bodyBytes: [UInt8] {
        var writer = ByteWriter()
        writeBody(to: &writer)
        return writer.bytes
    }
}
