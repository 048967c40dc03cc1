import BinaryIO

extension CAFValidator {
    /// `opus-priming`: an Opus file without a `kuki` whose `pakt` says priming 0, remainder 0 and
    /// valid frames = packets x frames per packet counts the encoder's pre-skip and end padding as
    /// audio (libopus's look-ahead is at least 2.5 ms): ffmpeg's CAF muxer writes this, and no
    /// `kuki`. The decoded audio starts late and runs long by up to a packet. A file with a `kuki`
    /// (Apple's and cafconv's always have one) is not held to it: a stream whose pre-skip is 0
    /// and whose end is not trimmed (RFC 7845 allows both), moved from Ogg, is accounted so.
    static func opusPrimingProblems(_ file: CAFFile) -> [CAFDiagnostic] {
        let desc = file.audioDescription
        guard desc.formatID == .opus, !file.chunks.contains(where: { $0.type == .kuki }), let pakt = file.packetTableChunk,
            let header = file.packetTableHeader, header.numberPackets > 0, header.primingFrames == 0,
            header.remainderFrames == 0
        else { return [] }
        let (frames, overflow) = header.numberPackets.multipliedReportingOverflow(by: Int64(desc.framesPerPacket))
        guard !overflow, frames == header.numberValidFrames else { return [] }
        return [
            CAFDiagnostic(
                rule: .opusPriming, chunk: .pakt, offset: pakt.offset,
                expected:
                    "the encoder's pre-skip as priming frames and the source's length as valid frames (convert the file again with `cafconv convert` from its source to fix it)",
                found:
                    "priming 0, remainder 0 and \(header.numberValidFrames) valid frames, its \(header.numberPackets) packets x the \(desc.framesPerPacket) frames per packet its 'desc' declares, a count of packets rather than the audio's length (the packets' own durations may differ): the pre-skip was dropped and the padding counted as audio (ffmpeg's Opus CAF), so the frame count cannot be trusted"
            )
        ]
    }

    /// `opus-kuki`: an Opus file's `kuki`, when it has one, is Apple's 28-byte cookie whose rate,
    /// frames per packet and channels are `desc`'s.
    static func opusCookieProblems(_ document: CAFDocument) -> [CAFDiagnostic] {
        let file = document.file
        let desc = file.audioDescription
        guard desc.formatID == .opus else { return [] }
        var problems: [CAFDiagnostic] = []
        for (header, chunk) in zip(file.chunks, document.contents.chunks) {
            guard case .magicCookie(let kuki) = chunk else { continue }
            let cookie: OpusCookie
            do { cookie = try OpusCookie(parsing: kuki.bytes) } catch {
                problems.append(
                    CAFDiagnostic(
                        rule: .opusCookie, chunk: .kuki, offset: header.offset, expected: "\(OpusCookie.size) bytes",
                        found: "\(kuki.bytes.count) bytes"))
                continue
            }
            let descRate = desc.sampleRate.isFinite ? Int64(exactly: desc.sampleRate.rounded()) : nil
            let pairs: [(String, Int64?, Int64)] = [
                ("sample rate", descRate, Int64(cookie.sampleRate)),
                ("frames per packet", Int64(desc.framesPerPacket), Int64(cookie.framesPerPacket)),
                ("channels", Int64(desc.channelsPerFrame), Int64(cookie.channels)),
            ]
            for (name, want, have) in pairs where want != have {
                problems.append(
                    CAFDiagnostic(
                        rule: .opusCookie, chunk: .kuki, offset: header.offset,
                        expected: "the \(name) of 'desc' (\(want.map(String.init) ?? "not whole"))", found: "\(have)"))
            }
        }
        return problems
    }
}
