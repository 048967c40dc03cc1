import BinaryIO

extension CAFValidator {
    /// The chunk types of the CAF specification; a raw chunk of one of these types failed to parse.
    static let specTypes: Set<FourCC> = [
        .desc, .data, .pakt, .kuki, .chan, .free, .info, .mark, .regn, .inst,
        .strg, .uuid, .peak, .ovvw, .edct, .umid, .midi,
    ]

    /// `pakt-required` and `pakt-frames`: rules that need only the packet table header.
    static func packetProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let desc = file.audioDescription
        let descOffset = file.audioDescriptionOffset
        let variable = desc.bytesPerPacket == 0 || desc.framesPerPacket == 0
        guard let pakt = file.packetTableChunk, let header = file.packetTableHeader else {
            if variable {
                problems.append(
                    CAFDiagnostic(
                        rule: .paktRequired, chunk: .desc, offset: descOffset,
                        expected:
                            "a 'pakt' chunk, since packets vary (\(desc.bytesPerPacket) bytes, \(desc.framesPerPacket) frames per packet)",
                        found: file.packetTableChunk == nil ? "none" : "a 'pakt' chunk too short for its header"))
            }
            return problems
        }
        if desc.framesPerPacket > 0 {
            // Writers of constant-size packets (IMA4) often store 0 packets: count them from the audio.
            var packets = header.numberPackets
            var source = "packets"
            if packets == 0, desc.bytesPerPacket > 0 {
                packets = Int64(clamping: file.audioBytes / UInt64(desc.bytesPerPacket))
                source = "packets in the audio"
            }
            let (frames, overflow) = packets.multipliedReportingOverflow(by: Int64(desc.framesPerPacket))
            if !overflow {
                let expected = frames &- Int64(header.primingFrames) &- Int64(header.remainderFrames)
                if expected != header.numberValidFrames {
                    problems.append(
                        CAFDiagnostic(
                            rule: .paktFrames, chunk: .pakt, offset: pakt.offset,
                            expected:
                                "\(expected) valid frames (\(packets) \(source) x \(desc.framesPerPacket) - \(header.primingFrames) priming - \(header.remainderFrames) remainder)",
                            found: "\(header.numberValidFrames)"))
                }
            }
        }
        return problems
    }

    /// Rules about chunk bodies, in file order.
    static func bodyProblems(_ document: CAFDocument) -> [CAFDiagnostic] {
        var problems: [CAFDiagnostic] = []
        let file = document.file
        let desc = file.audioDescription
        let frames = file.validFrames
        for (header, chunk) in zip(file.chunks, document.contents.chunks) {
            switch chunk {
            case .unknown(let type, _) where specTypes.contains(type):
                problems.append(
                    CAFDiagnostic(
                        rule: .chunkBody, chunk: type, offset: header.offset,
                        expected: "a well-formed '\(type)' body", found: "a body that cannot be parsed"))
            case .packetTable(let table):
                if let total = table.totalByteSize, total != file.audioBytes {
                    problems.append(
                        CAFDiagnostic(
                            rule: .paktBytes, chunk: .pakt, offset: header.offset,
                            expected: "packet sizes adding up to the \(file.audioBytes) audio bytes",
                            found: "\(total) bytes in \(table.entries.count) packets"))
                }
            case .channelLayout(let layout):
                if layout.expectedSize != header.size, !layout.isAppleZeroedSlot {
                    problems.append(
                        CAFDiagnostic(
                            rule: .chanSize, chunk: .chan, offset: header.offset,
                            expected: "\(layout.expectedSize) bytes for \(layout.declaredCount) channel descriptions",
                            found: "\(header.size) bytes"))
                }
                if layout.channelCount != Int(desc.channelsPerFrame) {
                    problems.append(
                        CAFDiagnostic(
                            rule: .chanChannels, chunk: .chan, offset: header.offset,
                            expected: "a layout of \(desc.channelsPerFrame) channels, as in 'desc'",
                            found: "\(layout.channelCount) channel\(layout.channelCount == 1 ? "" : "s") (tag \(layout.tag))"))
                }
            case .peak:
                let expected = 4 + 12 * UInt64(desc.channelsPerFrame)
                if header.size != expected {
                    problems.append(
                        CAFDiagnostic(
                            rule: .peakSize, chunk: .peak, offset: header.offset,
                            expected: "\(expected) bytes (4 + 12 x \(desc.channelsPerFrame) channels)",
                            found: "\(header.size) bytes"))
                }
            case .info(let info), .editComments(let info):
                if UInt64(info.declaredCount) != UInt64(info.entries.count) || !info.trailing.isEmpty {
                    let extra = info.trailing.isEmpty ? "" : " and \(info.trailing.count) stray bytes"
                    problems.append(
                        CAFDiagnostic(
                            rule: .infoCount, chunk: chunk.type, offset: header.offset,
                            expected: "\(info.declaredCount) key/value pairs, as declared",
                            found: "\(info.entries.count) pairs\(extra)"))
                }
            case .markers(let mark):
                for marker in mark.markers where !isWithin(marker.framePosition, frames) {
                    problems.append(positionProblem(.markPosition, .mark, header.offset, marker, frames))
                }
            case .regions(let regn):
                for region in regn.regions {
                    for marker in region.markers where !isWithin(marker.framePosition, frames) {
                        problems.append(positionProblem(.regnPosition, .regn, header.offset, marker, frames))
                    }
                }
            default:
                break
            }
        }
        return problems
    }

    static func isWithin(_ position: Double, _ frames: UInt64?) -> Bool {
        guard position.isFinite, position >= 0 else { return false }
        guard let frames else { return true }
        return position <= Double(frames)
    }

    static func positionProblem(_ rule: CAFRule, _ type: FourCC, _ offset: UInt64, _ marker: Marker, _ frames: UInt64?)
        -> CAFDiagnostic
    {
        CAFDiagnostic(
            rule: rule, chunk: type, offset: offset,
            expected: "a frame position within 0...\(frames.map(String.init) ?? "the audio")",
            found: "\(marker.framePosition) (marker \(marker.markerID))")
    }
}
