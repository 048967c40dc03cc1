import BinaryIO
import TestSupport
import Testing

@testable import CAFKit

/// CAF frame counts for constant-size packets, and Apple's 32-byte `chan` chunks.
@Suite("CAF: frames of constant-size packets; Apple's zeroed chan slot")
struct ConstantPacketTests {
    static func description(_ format: FourCC, channels: UInt32, bytesPerPacket: UInt32, framesPerPacket: UInt32)
        -> AudioDescription
    {
        AudioDescription(
            sampleRate: 8000, formatID: format, formatFlags: 0, bytesPerPacket: bytesPerPacket,
            framesPerPacket: framesPerPacket, channelsPerFrame: channels, bitsPerChannel: format == .lpcm ? 16 : 0)
    }

    @Test(
        "ulaw and alaw: 1 byte per channel and frame; ima4: 64 frames in 34 bytes per channel",
        arguments: [
            (FourCC.ulaw, UInt32(1), UInt32(1), UInt32(1), 100, UInt64(100)),
            (FourCC.alaw, 2, 2, 1, 100, 50),
            (FourCC.alaw, 2, 2, 1, 101, 50),
            (FourCC("ima4"), 2, 68, 64, 68 * 5, 320),
        ])
    func constantPackets(format: FourCC, channels: UInt32, bytes: UInt32, frames: UInt32, audio: Int, expected: UInt64) throws {
        let document = try read(
            caf([
                .description(Self.description(format, channels: channels, bytesPerPacket: bytes, framesPerPacket: frames)),
                data(audio),
            ]))
        #expect(document.file.validFrames == expected)
        #expect(document.file.linearPCMFrames == nil)
    }

    @Test("variable packets without pakt: frames unknown")
    func variablePackets() throws {
        let document = try read(
            caf([.description(Self.description(FourCC("aac "), channels: 2, bytesPerPacket: 0, framesPerPacket: 1024)), data(64)])
        )
        #expect(document.file.validFrames == nil)
    }

    /// A stereo file whose `chan` body is `body`.
    func stereo(chan body: [UInt8]) throws -> CAFDocument {
        var bytes = CAFWriter.header()
        bytes += CAFWriter.chunkBytes(desc())
        bytes += rawChunk(.chan, size: Int64(body.count), body: body)
        bytes += CAFWriter.chunkBytes(data(16))
        return try read(bytes)
    }

    static func chanBody(tag: UInt32, slot: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.write(tag, .big)
        w.write(UInt32(0), .big)
        w.write(UInt32(0), .big)
        w.write(bytes: slot)
        return w.bytes
    }

    @Test("a 32-byte chan (tag, bitmap, 0 descriptions, one zeroed slot) is valid, with a note")
    func appleChan() throws {
        let document = try stereo(chan: Self.chanBody(tag: 101 << 16 | 2, slot: [UInt8](repeating: 0, count: 20)))
        #expect(CAFValidator.validate(document).isEmpty, "\(CAFValidator.validate(document))")
        #expect(document.warnings.contains { $0.message.contains("zeroed description slot") }, "\(document.warnings)")
    }

    @Test("a slot that holds something, or a 12 + 19-byte body, still breaks chan-size")
    func otherChanSizes() throws {
        var slot = [UInt8](repeating: 0, count: 20)
        slot[3] = 1
        for body in [
            Self.chanBody(tag: 101 << 16 | 2, slot: slot),
            Self.chanBody(tag: 101 << 16 | 2, slot: [UInt8](repeating: 0, count: 19)),
            Self.chanBody(tag: 0, slot: [UInt8](repeating: 0, count: 20)),
        ] {
            let document = try stereo(chan: body)
            #expect(CAFValidator.validate(document).map(\.code).contains("chan-size"))
        }
    }
}
