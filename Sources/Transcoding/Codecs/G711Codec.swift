import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// G.711 µ-law (`-d ulaw`) or A-law (`-d alaw`), one code per channel and frame: cafconv makes
/// the codes (CAFKit's `G711Law`: the nearest level of the same sign to each exact sample, since
/// libsndfile 1.2's encoders flip -32768) or copies them from a source of the same law, and
/// libsndfile's CAF writer lays them out. The proof decodes every code with CAFKit: the same
/// levels (or codes, when copied) for a source of the same law, else rule `g711-ulaw`/`g711-alaw`.
package struct G711Codec: LibsndfileWriterCodec {
    /// Which of the two laws.
    package let law: G711Law

    package var spelling: DataFormat.Spelling { DataFormat.Spelling(law.rawValue) }
    package var formatIDs: [FourCC] { [law == .muLaw ? .ulaw : .alaw] }
    package var encoding: Encoding { law == .muLaw ? .ulaw : .alaw }

    package func keeps(_ encoding: Encoding) -> Bool { encoding == self.encoding }

    package func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding { encoding }

    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String { law.rawValue }

    package func proofDecoding(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool
    ) throws(ConversionError) -> OutputDecoding {
        let desc = document.file.audioDescription
        guard Int(desc.bytesPerPacket) == source.channels, desc.framesPerPacket == 1 else {
            throw ConversionError.proof(.notOneCodePerSample(law: "\(law)"))
        }
        let decoder = OutputProof.OutputDecoder.g711(
            law, try Self.bytes(path), offset: document.file.audioOffset, frames: Int64(document.file.validFrames ?? 0),
            check: OutputProof.G711Check(law: law, sourceLaw: source.law, copied: codesCopied))
        return OutputDecoding(decoder: decoder, rule: Proof.rule(sourceLaw: source.law, outputLaw: law), name: "cafkit")
    }

    /// The transform stage hands the encoder floats; the law's own rule still applies after it.
    package func rule(_ own: String?, after transformRule: String) -> String? { "\(transformRule); \(own ?? "")" }

    package func expectations(_ expected: inout CAFExpectations, for target: TargetFormat) {
        expected.formatID = formatIDs[0]
    }
}

extension DataFormat.Kind {
    /// `-d ulaw`: G.711 µ-law.
    package static let ulaw = G711Codec(law: .muLaw).spelling.kind()
    /// `-d alaw`: G.711 A-law.
    package static let alaw = G711Codec(law: .aLaw).spelling.kind()
}
