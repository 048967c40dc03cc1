import ConversionModel
import Loudness
import OutputFiles
import Synchronization
import Transcoding

/// `info --loudness`: the files the inputs name (folders searched for every name `convert`
/// takes), each decoded as `convert` decodes it and measured (``LoudnessScan``), `jobs` files
/// at once. Memory: one block of frames and one meter per worker.
public enum LoudnessSurvey {
    /// One file's measurement, or why there is none.
    public struct Entry: Sendable, Encodable {
        public var path: String
        public var loudness: LoudnessMeasurement?
        public var error: String?

        public init(path: String, loudness: LoudnessMeasurement? = nil, error: String? = nil) {
            self.path = path
            self.loudness = loudness
            self.error = error
        }
    }

    /// The files `inputs` name, in order: a file as it is, a folder's audio files (sorted, searched
    /// recursively); a folder without any is an entry with an error.
    public static func files(_ inputs: [String]) -> [Entry] {
        var entries: [Entry] = []
        for input in inputs {
            guard Planner.isFolder(input) else {
                entries.append(Entry(path: input))
                continue
            }
            let found = FileSystem.files(under: input, matching: FileSystem.isAudioName)
            if found.isEmpty {
                entries.append(Entry(path: input, error: Planner.nothingFound))
            }
            entries += found.map { Entry(path: FileSystem.joined(input, $0)) }
        }
        return entries
    }

    /// Measures every entry without an error, `jobs` at once; `done` is called as each one ends
    /// (from the worker that measured it), with its index.
    public static func measure(
        _ entries: [Entry], jobs: Int, done: (@Sendable (Int, Entry) -> Void)? = nil
    ) -> [Entry] {
        let work = entries.indices.filter { entries[$0].error == nil }
        let results = Mutex(entries)
        Slots.forEach(work.count, workers: jobs) { slot in
            let index = work[slot]
            var entry = entries[index]
            do throws(SourceError) { entry.loudness = try LoudnessScan.measure(path: entry.path) } catch {
                entry.error = error.message
            }
            results.withLock { $0[index] = entry }
            done?(index, entry)
        }
        return results.withLock { $0 }
    }
}
