import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer

/// What a codec that can move a source's packets (AAC, Opus) wrote: packets its encoder made, or
/// the source's packets moved byte for byte. The proof and the report differ by that alone, so
/// both codecs answer `prove` and `record` through this one value.
package enum PacketOutput<Encoded, Moved> {
    case encoded(Encoded, fileBytes: UInt64)
    case moved(Moved, fileBytes: UInt64)

    /// The Proof stage: a move's own proof (`moved`, no decoding), or the lossy proof of an
    /// encoding (`encoded`, given the source's independent decoding through the plan's
    /// transforms), its rule preceded by the transform's. `nil` when cancelled.
    package func prove(
        plan: OutputPlan, source: SourceStage, moved: (Moved) throws -> Proof?,
        encoded: (Encoded, any FrameSource) throws -> Proof?
    ) throws -> Proof? {
        switch self {
        case .moved(let packets, _):
            return try moved(packets)
        case .encoded(let packets, _):
            guard var proof = try encoded(packets, try plan.proofReference(source)) else { return nil }
            if let transform = plan.transform {
                proof.rule = [transform.rule, proof.rule].compactMap { $0 }.joined(separator: "; ")
            }
            return proof
        }
    }

    /// The report's record: the proof, the file's bytes, its valid frames (`frames` of what was
    /// encoded or moved) and how the samples travelled (`encodedAs` or `movedAs`).
    package func record(
        proof: Proof, into result: inout FileResult, frames: (Encoded) -> Int64, validFrames: (Moved) -> Int64,
        encodedAs: FileResult.Transfer, movedAs: FileResult.Transfer, isCancelled: () -> Bool
    ) throws(ConversionError) {
        result.proof = proof
        switch self {
        case .encoded(let packets, let bytes):
            result.bytes = bytes
            result.frames = frames(packets)
            result.samples = encodedAs
        case .moved(let packets, let bytes):
            result.bytes = bytes
            result.frames = validFrames(packets)
            result.samples = movedAs
        }
        if isCancelled() { throw ConversionError.interrupted }
    }
}

/// The proof of a move, shared by every codec that moves packets: CAFKit reads the written file
/// back (layout and the codec's rules, the `pakt` accounting) and hands out its packets, which
/// must be byte-identical, in order and in number, to a fresh reading of the source.
package enum PacketMove {
    /// The source's accounting the written `pakt` must repeat exactly.
    package struct Accounting: Equatable {
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var validFrames: Int64

        package init(packets: Int64, priming: Int, remainder: Int, validFrames: Int64) {
            self.packets = packets
            self.priming = priming
            self.remainder = remainder
            self.validFrames = validFrames
        }
    }

    /// How the proof names the move (`aac-packets-moved`, `cafconv-ogg`...).
    package struct Naming {
        package var codec: String
        package var rule: String
        package var sourceReader: String

        package init(codec: String, rule: String, sourceReader: String) {
            self.codec = codec
            self.rule = rule
            self.sourceReader = sourceReader
        }
    }

    /// Reads the file at `path` back, checks it against `expected` (the validator's rules, the
    /// `pakt` holding `accounting`) and `check` (the codec's `kuki`), then compares its packets
    /// one by one with `next` (the source's, read afresh; `nil` after the last). `nil` when
    /// cancelled.
    package static func prove(
        _ path: String, expecting expected: CAFExpectations, accounting: Accounting, naming: Naming,
        check: (CAFFile, FileByteSource) throws(ConversionError) -> Void = { _, _ in },
        isCancelled: () -> Bool, next: () throws(ConversionError) -> [UInt8]?
    ) throws(ConversionError) -> Proof? {
        let (bytes, file) = try ContainerStage.readBackFile(path)
        if let first = CAFValidator.validate(file, expecting: expected).first {
            throw .proof(.invalid(finding: "\(first)"))
        }
        guard let header = file.packetTableHeader,
            Accounting(
                packets: header.numberPackets, priming: Int(header.primingFrames), remainder: Int(header.remainderFrames),
                validFrames: header.numberValidFrames) == accounting
        else {
            throw .proof(
                .packetsNotMoved(
                    codec: naming.codec,
                    reason:
                        "its 'pakt' does not hold the source's \(accounting.packets) packets, \(accounting.priming) priming, \(accounting.validFrames) valid and \(accounting.remainder) remainder frames"
                ))
        }
        try check(file, bytes)
        var packets: CAFPacketReader
        do { packets = try CAFPacketReader(file: file, source: bytes) } catch { throw .proof(.unreadable(reason: error.message)) }
        var index: Int64 = 0
        while true {
            if index & 1023 == 0, isCancelled() { return nil }
            let original = try next()
            let copied: (offset: UInt64, size: Int)?
            do { copied = try packets.next() } catch { throw .proof(.unreadable(reason: error.message)) }
            switch (original, copied) {
            case (nil, nil):
                var proof = Proof(
                    comparison: "exact", rule: naming.rule, sourceDecoder: naming.sourceReader, outputDecoder: "cafkit",
                    extent: "every-packet")
                proof.primingFrames = accounting.priming
                return proof
            case (let original?, let copied?):
                let held: [UInt8]
                do { held = try bytes.readExactly(at: copied.offset, count: copied.size) } catch {
                    throw .proof(.unreadable(reason: "\(error)"))
                }
                guard held == original else {
                    throw .proof(.packetsNotMoved(codec: naming.codec, reason: "packet \(index) differs from the source's"))
                }
            default:
                throw .proof(
                    .packetsNotMoved(
                        codec: naming.codec,
                        reason: "it holds \(copied == nil ? "fewer" : "more") packets than the source (\(index) in common)"))
            }
            index += 1
        }
    }
}

/// The packets and their sizes as an encoder or a demuxer hands them out, each in its spool file
/// (the `pakt` table's size is known only at the end), then laid out around a codec's chunks.
package final class SpooledPackets {
    package let packets: SpoolFile
    package let table: SpoolFile
    /// Packets so far.
    package var count: Int64 = 0
    /// The largest packet's bytes (an AAC `kuki`'s peak bit rate).
    package var largest = 0
    private var varint: [UInt8] = []

    /// Two unnamed spool files in `folder`.
    package init(in folder: FileSystem.Folder) throws(ConversionError) {
        packets = try SpoolFile(in: folder)
        table = try SpoolFile(in: folder)
    }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(ConversionError) {
        try packets.append(bytes)
        varint.removeAll(keepingCapacity: true)
        PacketTable.appendVariableLength(UInt64(bytes.count), to: &varint)
        try table.append(varint)
        count += 1
        largest = max(largest, bytes.count)
    }

    package func append(_ bytes: [UInt8]) throws(ConversionError) {
        var failure: ConversionError?
        bytes.withUnsafeBytes { raw in
            do throws(ConversionError) { try append(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    package func flush() throws(ConversionError) {
        try packets.flush()
        try table.flush()
    }

    /// Writes the CAF into `output`: `layout.before` (up to the `pakt` header), the size table,
    /// `layout.after` (`free` and the `data` header), the packets. `false` when cancelled.
    package func write(_ layout: (before: [UInt8], after: [UInt8]), to output: Int32, isCancelled: () -> Bool)
        throws(ConversionError) -> Bool
    {
        var offset: UInt64 = 0
        try FileSystem.writeAll(output, layout.before, at: offset)
        offset += UInt64(layout.before.count)
        offset = try table.copy(to: output, at: offset, isCancelled: isCancelled)
        try FileSystem.writeAll(output, layout.after, at: offset)
        offset += UInt64(layout.after.count)
        _ = try packets.copy(to: output, at: offset, isCancelled: isCancelled)
        return !isCancelled()
    }
}

/// An unnamed file in the output folder that bytes are appended to through a 64 KiB buffer and
/// then copied out; it vanishes when freed.
package final class SpoolFile {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var written: UInt64 = 0
    private static let bufferSize = 1 << 16

    package init(in folder: FileSystem.Folder) throws(ConversionError) {
        let name = FileSystem.temporaryName(for: "spool")
        let fd = FileSystem.withPath(name) { cafconv_create_unnamed(folder.descriptor, $0) }
        guard fd >= 0 else {
            throw ConversionError.output(.spoolNotCreated(folder: folder.path, errno: errno))
        }
        descriptor = fd
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit { close(descriptor) }

    /// The bytes appended so far.
    package var length: UInt64 { written + UInt64(buffer.count) }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(ConversionError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    package func append(_ bytes: [UInt8]) throws(ConversionError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    package func flush() throws(ConversionError) {
        guard !buffer.isEmpty else { return }
        try FileSystem.writeAll(descriptor, buffer, at: written)
        written += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Copies the spool to `output` at `offset` in 1 MiB steps; returns the offset after it.
    package func copy(to output: Int32, at offset: UInt64, isCancelled: () -> Bool) throws(ConversionError) -> UInt64 {
        try flush()
        var done: UInt64 = 0
        while done < written {
            if isCancelled() { return offset + done }
            let count = Int(min(UInt64(1 << 20), written - done))
            let bytes = try FileSystem.readExactly(descriptor, count: count, at: done)
            try FileSystem.writeAll(output, bytes, at: offset + done)
            done += UInt64(count)
        }
        return offset + done
    }
}

/// An encoder of interleaved float frames into packets (libavcodec's AAC, libopus), as the
/// spool feeds it (``SpooledPackets/encode(_:with:blockSamples:isCancelled:)``).
package protocol FloatPacketEncoder {
    associatedtype Failure: Error
    /// The encoder's error saying `message` (a spool's failure passes through its callback so).
    static func failure(_ message: String) -> Failure
    /// The sentence of one of its errors.
    static func message(_ failure: Failure) -> String
    func encode(_ samples: [Float], frames: Int, packet: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure)
    func finish(packet: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure)
}

extension SpooledPackets {
    /// Feeds every frame of `audio` to `encoder` as floats, a block of `blockSamples` samples at a
    /// time, its packets into this spool, then flushes both. A spool's failure passes through
    /// the encoder's callback as the encoder's error; the original is thrown instead. Returns the
    /// frames encoded, or `nil` when `isCancelled` said stop (asked before every block).
    package func encode<Encoder: FloatPacketEncoder>(
        _ audio: any FrameSource, with encoder: Encoder, blockSamples: Int, isCancelled: () -> Bool
    ) throws(ConversionError) -> Int64? {
        var spoolError: ConversionError?
        let store: (UnsafeRawBufferPointer) throws(Encoder.Failure) -> Void = { bytes throws(Encoder.Failure) in
            do throws(ConversionError) { try self.append(bytes) } catch {
                spoolError = error
                throw Encoder.failure(error.message)
            }
        }
        let channels = max(audio.channels, 1)
        let blockFrames = max(1, blockSamples / channels)
        var ints = [Int32](repeating: 0, count: audio.isFloat ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: audio.isFloat ? blockFrames * channels : 0)
        var floats = [Float](repeating: 0, count: blockFrames * channels)
        var frames: Int64 = 0
        do throws(Encoder.Failure) {
            while true {
                if isCancelled() { return nil }
                let got: Int
                do { got = try audio.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                    spoolError = ConversionError.encoding(.encoderInput(reason: error.message))
                    throw Encoder.failure(error.message)
                }
                if got == 0 { break }
                let count = got * channels
                SampleScaling.floats(from: audio.isFloat ? nil : ints, doubles, count: count, into: &floats)
                try encoder.encode(floats, frames: got, packet: store)
                frames += Int64(got)
            }
            try encoder.finish(packet: store)
        } catch {
            throw spoolError ?? ConversionError.encoding(.encoder(reason: Encoder.message(error)))
        }
        try flush()
        return frames
    }
}
