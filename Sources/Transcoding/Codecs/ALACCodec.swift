import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// Apple Lossless (`-d alac` at the source's depth, `alac16`...`alac32`): libsndfile encodes and
/// lays out the CAF (`kuki`, `pakt`); CAFKit does not decode ALAC, so the proof decodes the file
/// with libsndfile and compares every frame exactly (after the bit-depth rule).
package struct ALACCodec: LibsndfileWriterCodec {
    package var spellings: [String] { ["alac", "alac16", "alac20", "alac24", "alac32"] }
    package var formatIDs: [FourCC] { [.alac] }

    package func writes(_ target: TargetFormat, asked: DataFormat.Kind?) -> Bool {
        switch asked {
        case nil: return [.alac16, .alac20, .alac24, .alac32].contains(target.encoding)
        case .alac?, .alacBits?: return true
        default: return false
        }
    }

    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        if case .alacBits(let bits) = format.kind { return "alac\(bits)" }
        return "alac"
    }

    package func proofDecoding(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool
    ) throws(ConversionError) -> OutputDecoding {
        do {
            let written = try SoundFile.open(readingFrom: path)
            try written.setNormalisation(false)
            return OutputDecoding(
                decoder: .libsndfile(written, bits: target.encoding.bits ?? 16),
                rule: LinearPCMCodec.rule(source, target), name: "libsndfile")
        } catch {
            throw ConversionError.encoding(.cannotCheck(target: "\(target)", reason: error.message))
        }
    }

    package func expectations(_ expected: inout CAFExpectations, for target: TargetFormat) {
        expected.formatID = .alac
    }
}
