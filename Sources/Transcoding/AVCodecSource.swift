import AACCodec
import ConversionModel
import OutputFiles
import SndFile

/// A lossless source libsndfile refuses, read by libavformat + libavcodec (``AVFileDecoder``):
/// counted to the end before anything is written, pumped, and decoded again for the proof.
package enum AVCodecSource {
    /// libavcodec's names of the lossy codecs: never converted on one decoder's reading.
    package static let lossyCodecs: Set<String> = ["mp1", "mp2", "mp3", "vorbis", "opus", "aac", "ac3", "eac3", "wmav1", "wmav2", "gsm"]

    /// Decodes `decoder` to its end and returns the frames; throws when a packet fails to decode.
    package static func count(_ decoder: AVFileDecoder) throws(ConversionError) -> Int64 {
        let blockFrames = 8192
        var ints = [Int32](repeating: 0, count: decoder.isFloat ? 0 : blockFrames * decoder.channels)
        var doubles = [Double](repeating: 0, count: decoder.isFloat ? blockFrames * decoder.channels : 0)
        var total: Int64 = 0
        while true {
            let got: Int
            do { got = try decoder.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                throw ConversionError.source(.cannotDecode(decoder: "libavcodec", reason: error.message))
            }
            if got == 0 { break }
            total += Int64(got)
        }
        if decoder.damagedPackets > 0 {
            throw ConversionError.source(
                .damagedAround(
                    packets: decoder.damagedPackets, places: decoder.damage.map { .init(frame: $0.frame, byte: $0.byte) },
                    frames: total))
        }
        return total
    }

    /// A fresh decoding of `path` for the pump or the proof, at most `limit` frames.
    package static func audio(_ path: String, limit: Int64?) throws(ConversionError) -> SourceAudio {
        do { return SourceAudio(avcodec: try AVFileDecoder(path: path), limit: limit) } catch {
            throw ConversionError.source(.avcodecUnreadableAgain(reason: error.message))
        }
    }
}
