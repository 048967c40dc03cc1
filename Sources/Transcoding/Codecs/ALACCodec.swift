import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// Apple Lossless (`-d alac` at the source's depth, `alac16`...`alac32`): libsndfile encodes and
/// lays out the CAF (`kuki`, `pakt`); CAFKit does not decode ALAC, so the proof decodes the file
/// with libsndfile and compares every frame exactly (after the bit-depth rule).
package struct ALACCodec: LibsndfileWriterCodec {
    package var spelling: DataFormat.Spelling {
        DataFormat.Spelling("alac", examples: ["alac", "alac16", "alac20", "alac24", "alac32"], bitDepths: [16, 20, 24, 32])
    }
    package var formatIDs: [FourCC] { [.alac] }

    package func keeps(_ encoding: Encoding) -> Bool { [.alac16, .alac20, .alac24, .alac32].contains(encoding) }

    /// `alacNN` names the depth; `alac` takes the source's (24 for floats, 16 for what has none).
    package func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding {
        if let bits = asked.bits { return [16: Encoding.alac16, 20: .alac20, 24: .alac24][bits] ?? .alac32 }
        switch source {
        case .pcm24, .alac24, .float32, .float64: return .alac24
        case .pcm32, .alac32: return .alac32
        case .alac20: return .alac20
        default: return .alac16
        }
    }

    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        "alac" + (format.kind.bits.map(String.init) ?? "")
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

extension DataFormat.Kind {
    /// `-d alac`: Apple Lossless at the source's bit depth.
    package static let alac = ALACCodec().spelling.kind()
    /// `-d alac16`... : Apple Lossless at this bit depth.
    package static func alacBits(_ bits: Int) -> Self { ALACCodec().spelling.kind(bits: bits) }
}
