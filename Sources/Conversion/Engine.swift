import Dispatch
import Synchronization

/// Runs a whole conversion: plan, convert in parallel, report. Prints nothing.
public enum Engine {
    /// Converts `inputs` into `output` (a file, a folder, or `nil` for beside each input).
    /// `progress` is called once per finished file, from worker threads.
    public static func convert(
        inputs: [String], output: String?, options: ConversionOptions,
        progress: (@Sendable (FileResult) -> Void)? = nil
    ) -> ConversionReport {
        let started = FileSystem.now()
        let plan = Planner.plan(inputs: inputs, output: output)
        for failure in plan.failures { progress?(failure) }
        let jobs = plan.jobs
        let results = Mutex([FileResult?](repeating: nil, count: jobs.count))
        let next = Mutex(0)
        let workers = min(options.jobs, jobs.count)
        if workers > 0 {
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < jobs.count else { return }
                    let result = Converter.convert(jobs[index], options: options, sequence: index)
                    results.withLock { $0[index] = result }
                    progress?(result)
                }
            }
        }
        let finished = results.withLock { $0.compactMap { $0 } }
        return ConversionReport(
            files: plan.failures + finished,
            milliseconds: Double(FileSystem.now() - started) / 1_000_000)
    }
}
