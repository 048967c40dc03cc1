import BinaryIO
import CAFKit
import Foundation
import GameSounds
import Testing

@Suite("CAFConvPlugin: WAV sources become CAF resources, as the rules file says")
struct GameSoundsTests {
    /// The CAF resource, parsed and validated by CAFKit.
    func load(_ name: String) throws -> CAFDocument {
        let url = try #require(GameSounds.url(name), "no \(name).caf in Bundle.module")
        let bytes = [UInt8](try Data(contentsOf: url))
        let document = try CAFDocument(reading: MemoryByteSource(bytes))
        #expect(CAFValidator.validate(document, expecting: CAFExpectations(byteOrder: .little)).isEmpty)
        return document
    }

    @Test("Sounds/ui/click.wav is governed by the rule 'Sounds/ui/**': 24-bit little-endian")
    func click() throws {
        let description = try load("click").file.audioDescription
        #expect(description.bitsPerChannel == 24)
        #expect(description.sampleRate == 22050)
    }

    @Test("Sounds/retro/coin.wav gets the defaults: 16-bit little-endian")
    func coin() throws {
        let description = try load("coin").file.audioDescription
        #expect(description.bitsPerChannel == 16)
    }
}
