import BinaryIO
import ConversionModel
import Inspection
import Transcoding

/// `info` on MP4/M4A and ADTS AAC files: what libavformat's packets say (``M4ASource/scan(_:)``,
/// nothing decoded): container, format, channels, rate, valid frames and duration, priming and
/// remainder, packets and the average bit rate. Other files are the `Inspector`'s.
enum M4AInfo {
    /// The report for `path` when it starts like MP4 or ADTS, else `nil`.
    static func inspect(path: String) -> AudioFileInfo? {
        guard let source = try? FileByteSource(path: path), M4ASource.sniff(source) else { return nil }
        var report = Inspector.failure(PathBytes.display(path), error: "")
        report.error = nil
        report.container = source.length >= 8 && (try? source.read(at: 4, count: 4)) == Array("ftyp".utf8) ? "mp4" : "adts"
        let stream: M4ASource.Stream
        do {
            guard let scanned = try M4ASource.scan(path) else {
                report.error = "its audio is not AAC: cafconv's info describes the AAC in MP4 and ADTS files"
                return report
            }
            stream = scanned
        } catch {
            report.error = error.message
            return report
        }
        report.format = "aac"
        report.formatDescription = "AAC-LC in \(stream.container)"
        report.sampleRate = Double(stream.sampleRate)
        report.channels = stream.channels
        report.frames = UInt64(stream.validFrames)
        report.durationSeconds = Double(stream.validFrames) / Double(stream.sampleRate)
        report.audioBytes = stream.audioBytes
        report.packets = stream.packets
        report.primingFrames = Int32(stream.priming)
        report.remainderFrames = Int32(stream.remainder)
        report.framesPerPacket = UInt32(stream.framesPerPacket)
        report.bytesPerPacket = 0
        let coded = Double(stream.packets * Int64(stream.framesPerPacket)) / Double(stream.sampleRate)
        if coded > 0 {
            let bitRate = Int((Double(stream.audioBytes) * 8 / coded).rounded())
            report.info.append(.init(key: "bit rate", value: "\(bitRate) b/s"))
        }
        if !stream.primingKnown {
            report.info.append(.init(key: "priming", value: "not recorded by the \(stream.container); all coded frames counted"))
        }
        for (key, value) in stream.tags.sorted(by: { $0.key < $1.key }) { report.info.append(.init(key: key, value: value)) }
        return report
    }
}
