import BinaryIO
import ContentHash
import ConversionModel
import Dispatch
import IncrementalState
import OutputFiles
import Rules
import SndFile
import Synchronization
import Transcoding
import Verification

/// Runs a whole conversion: plan, decide what is out of date, convert in parallel, record the
/// state, report. Prints nothing.
public enum Engine {
    /// One step of a run, for a progress display: a finished record and the counts so far.
    public struct Progress: Sendable {
        /// The record just finished (converted, up to date, failed, orphaned...).
        public var result: FileResult
        /// Files converted or failed so far, among those that needed converting.
        public var filesDone: Int
        /// Files that need converting in this run.
        public var filesTotal: Int
        /// Source bytes of the files done so far.
        public var bytesDone: UInt64
        /// Source bytes of every file that needs converting.
        public var bytesTotal: UInt64
    }

    /// Starts loading libsndfile on a background thread and returns at once (later calls do
    /// nothing): conversions open their sources with it, and its dynamic linking then overlaps
    /// the caller's own work. ``run(inputs:output:options:selection:rules:cancellation:progress:)``
    /// calls it (unless it is a dry run); a program may call it earlier, as soon as it knows it
    /// will convert.
    public static func preloadLibraries() { SoundFile.preloadLibrary() }

    /// Converts `inputs` into `output` (a file, a folder, or `nil` for beside each input).
    /// `progress` is called once per finished file, from worker threads.
    public static func convert(
        inputs: [String], output: String?, options: ConversionOptions, selection: Planner.Selection = Planner.Selection(),
        progress: (@Sendable (FileResult) -> Void)? = nil
    ) -> ConversionReport {
        guard let progress else { return run(inputs: inputs, output: output, options: options, selection: selection) }
        return run(inputs: inputs, output: output, options: options, selection: selection, progress: { step in progress(step.result) })
    }

    /// Converts `inputs` into `output` like ``convert(inputs:output:options:progress:)``, stopping
    /// early when `cancellation` is set; `progress` gets counts for a live display.
    /// `selection` narrows what folder inputs contribute (`--include`, `--exclude`).
    public static func run(
        inputs: [String], output: String?, options: ConversionOptions, selection: Planner.Selection = Planner.Selection(),
        rules: RuleBook = RuleBook(), cancellation: Cancellation = Cancellation(), keepsState: Bool = true,
        progress: (@Sendable (Progress) -> Void)? = nil, frames: (@Sendable (Job) -> FrameProgress?)? = nil
    ) -> ConversionReport {
        let started = FileSystem.now()
        if !options.dryRun { preloadLibraries() }
        FileSystem.OpenedRoots.beginRun()
        defer { FileSystem.OpenedRoots.endRun() }
        var plan = Planner.plan(inputs: inputs, output: output, selection: selection)
        if !keepsState { plan.dropState() }
        let outside = options.shard.map { split(&plan, shard: $0) } ?? []
        var decision = decide(plan: plan, options: options, rules: rules, outside: outside)
        let orphans = !plan.keepsState ? [] : settleOrphans(&decision, plan: plan, options: options)
        if !orphans.isEmpty {
            // A folder whose WAV files are all gone still had something to check: the outputs its
            // manifest records (reported orphaned, or pruned). Only a run that checked nothing fails.
            plan.failures.removeAll {
                if case .input(.nothingFound) = $0.error { true } else { false }
            }
        }
        var report = [FileResult]()

        let jobs = plan.jobs
        let work = decision.work
        let bytesTotal = work.reduce(UInt64(0)) { $0 + (decision.jobs[$1].sourceStamp?.size ?? 0) }
        func announce(_ result: FileResult) {
            progress?(Progress(result: result, filesDone: 0, filesTotal: work.count, bytesDone: 0, bytesTotal: bytesTotal))
        }
        for failure in plan.failures { announce(failure) }
        for case let record? in decision.jobs.map(\.record) { announce(record) }
        for orphan in orphans { announce(orphan) }

        if options.dryRun {
            for index in work {
                var record = FileResult(
                    input: jobs[index].input, output: jobs[index].output, status: .outOfDate,
                    reason: decision.jobs[index].reason)
                record.rule = decision.jobs[index].rule
                record.rulesFile = decision.jobs[index].rulesFile
                record.bytesIn = decision.jobs[index].sourceStamp?.size
                decision.jobs[index].record = record
            }
            report = plan.failures + decision.jobs.compactMap(\.record) + orphans + plan.ignored
            var result = ConversionReport(files: report, milliseconds: Double(FileSystem.now() - started) / 1_000_000)
            if !rules.isEmpty { result.rules = ConversionReport.sizes(of: result.files) }
            return displayed(result, warnings: plan.warnings + decision.warnings)
        }

        // A single-file run touches no file of the output folder but its own output, and keeps
        // that output as it is when the new bytes are the same.
        if !plan.hermetic { removeStaleTemporaries(in: jobs) }
        let kept = plan.hermetic ? jobs.first.map { FileSystem.joined(FileSystem.directoryName($0.output), FileSystem.baseName($0.output)) } : nil
        // `--loudness-group`: every group with a job to convert measured first, its gain planned.
        LoudnessGroups.plan(&decision, jobs: jobs, options: options)
        if let kept { _ = FileSystem.keptWhenIdentical.withLock { $0.insert(kept) } }
        defer { if let kept { _ = FileSystem.keptWhenIdentical.withLock { $0.remove(kept) } } }
        let saveFailures = convertJobs(
            jobs, decision: &decision, options: options, cancellation: cancellation, bytesTotal: bytesTotal,
            frames: frames, progress: progress)
        if plan.hermetic, let job = jobs.first, decision.jobs.first?.record?.status == .converted,
            let source = FileSystem.stamp(of: job.input), let made = FileSystem.stamp(of: job.output),
            made.modified < source.modified
        {
            // An output kept because its bytes came out the same is still newer than its source
            // (Make would run the rule again on every build otherwise); a rules-file edit that
            // changes nothing leaves it alone (Ninja's `restat` then skips what depends on it).
            FileSystem.touch(job.output)
        }
        report = plan.failures + decision.jobs.compactMap(\.record) + orphans + saveFailures + plan.ignored
        var result = ConversionReport(files: report, milliseconds: Double(FileSystem.now() - started) / 1_000_000)
        result.interrupted = cancellation.isCancelled
        if !rules.isEmpty { result.rules = ConversionReport.sizes(of: result.files) }
        return displayed(result, warnings: plan.warnings + decision.ruleWarnings)
    }

    /// One job of ``convertJobs``: skipped once the run is cancelled, else converted under the
    /// options its rule resolved, its record naming that rule.
    static func convertOne(
        _ job: Job, index: Int, decided: JobDecision, options: ConversionOptions, cancellation: Cancellation,
        frames: FrameProgress? = nil
    ) -> FileResult {
        if cancellation.isCancelled {
            var result = FileResult(input: job.input, output: job.output, status: .skipped)
            result.record(.interrupted)
            return result
        }
        var result = Converter.convert(
            job, options: decided.options ?? options, sequence: index, cancellation: cancellation, progress: frames)
        result.rule = decided.rule
        result.rulesFile = decided.rulesFile
        result.bytesIn = decided.sourceStamp?.size
        if result.status == .failed && result.reason == Cancellation.reason { result.status = .skipped }
        return result
    }

    /// The order several workers take the jobs of these source `sizes` in: the largest first
    /// (ties in plan order), so that the last files to start are small and the workers finish
    /// together rather than one converting the largest file alone at the end. One worker keeps
    /// plan order.
    static func largestFirst(sizes: [UInt64], workers: Int) -> [Int] {
        guard workers > 1 else { return Array(sizes.indices) }
        return sizes.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }

    /// The conversion step of a run: converts the jobs `decision.work` names on `options.jobs`
    /// workers (one runs on this thread), records each converted output in its manifest (saved
    /// now and then, and once at the end), and stores every job's record in `decision`. Returns
    /// the manifests that could not be saved, as failures.
    static func convertJobs(
        _ jobs: [Job], decision: inout Decision, options: ConversionOptions, cancellation: Cancellation,
        bytesTotal: UInt64, frames: (@Sendable (Job) -> FrameProgress?)? = nil, progress: (@Sendable (Progress) -> Void)?
    ) -> [FileResult] {
        let work = decision.work
        let state = Mutex(
            RunState(manifests: decision.manifests, dirty: decision.dirty, lastSave: FileSystem.now()))
        let results = Mutex([FileResult?](repeating: nil, count: work.count))
        let decided = decision.jobs
        let order = largestFirst(sizes: work.map { decision.jobs[$0].sourceStamp?.size ?? 0 }, workers: options.jobs)
        // One worker runs on this thread: a one-file run starts no thread at all.
        Slots.forEach(work.count, workers: options.jobs) { position in
            let slot = order[position]
            let index = work[slot]
            let job = jobs[index]
            let result = convertOne(
                job, index: index, decided: decided[index], options: options, cancellation: cancellation,
                frames: frames?(job))
            let recorded = result.status == .converted && decided[index].recorded
            let output = recorded ? FileSystem.stampAndChange(of: job.output) : nil
            // The bytes written, and the source's as the decision saw them (hashed after the
            // conversion: a source changed meanwhile has a newer stamp than the one recorded,
            // so the next run looks at its bytes again).
            let outputDigest = output == nil ? nil : ContentHash.digest(ofFile: job.output)
            let sourceDigest =
                output == nil ? nil : decided[index].sourceDigest ?? ContentHash.digest(ofFile: job.input)
            let counts = state.withLock { state -> (Int, UInt64) in
                if let output, let source = decided[index].source, let sourceStamp = decided[index].sourceStamp {
                    state.record(
                        job: job,
                        entry: Manifest.Entry(
                            source: source, sourceStamp: sourceStamp,
                            fingerprint: decided[index].fingerprint ?? options.fingerprint,
                            outputStamp: output.stamp, formatIn: result.formatIn ?? "", formatOut: result.formatOut ?? "",
                            frames: result.frames ?? 0,
                            sourceContent: decided[index].sourceChanged.map {
                                Manifest.Content(changed: $0, digest: sourceDigest)
                            },
                            outputContent: Manifest.Content(changed: output.changed, digest: outputDigest)))
                    state.saveIfDue()
                }
                state.done += 1
                state.bytesDone += decided[index].sourceStamp?.size ?? 0
                return (state.done, state.bytesDone)
            }
            results.withLock { $0[slot] = result }
            progress?(
                Progress(
                    result: result, filesDone: counts.0, filesTotal: work.count, bytesDone: counts.1,
                    bytesTotal: bytesTotal))
        }
        let finished = results.withLock { $0 }
        for (slot, index) in work.enumerated() { decision.jobs[index].record = finished[slot] }
        var saveFailures: [FileResult] = []
        state.withLock { state in
            for folder in state.dirty.sorted() {
                guard let path = state.manifests[folder]?.path else { continue }
                do throws(ConversionError) { try state.manifests[folder]?.save() } catch {
                    saveFailures.append(.failed(path, error: .manifest(.notRecorded(error))))
                }
            }
            state.dirty.removeAll()
        }
        return saveFailures
    }

    /// The report as people read it: bytes of names that are not UTF-8, and control characters,
    /// shown as `\xHH` (``PathBytes/display(_:)``), and the plan's warnings added.
    static func displayed(_ report: ConversionReport, warnings: [RunWarning]) -> ConversionReport {
        var report = report
        report.dependencies = report.files.compactMap { file in
            guard let output = file.output, [.converted, .upToDate, .outOfDate, .failed].contains(file.status) else {
                return nil
            }
            return ConversionReport.Dependency(output: output, inputs: [file.input] + (file.rulesFile.map { [$0] } ?? []))
        }
        report.warnings = warnings.map { displayed(.run($0)) }
        for index in report.files.indices {
            let file = report.files[index]
            report.files[index].input = PathBytes.display(file.input)
            report.files[index].output = file.output.map(PathBytes.display)
            report.files[index].reason = file.reason.map(PathBytes.display)
            report.files[index].warnings = file.warnings.map(displayed)
            report.files[index].rule = file.rule.map(PathBytes.display)
        }
        if let sizes = report.rules {
            report.rules = sizes.map { size in
                var size = size
                size.rule = PathBytes.display(size.rule)
                return size
            }
        }
        return report
    }

    /// A warning as people read it: its sentence with names escaped (``PathBytes/display(_:)``);
    /// a warning whose sentence needs no escaping stays the value it was.
    static func displayed(_ warning: ConversionWarning) -> ConversionWarning {
        let message = warning.message
        let shown = PathBytes.display(message)
        return shown == message ? warning : .text(shown)
    }

    /// What the decision step found about one job.
    struct JobDecision: Sendable {
        /// The source's canonical path, as the manifest records it.
        var source: String?
        /// The source's size and times when the decision was made.
        var sourceStamp: FileSystem.Stamp?
        /// The source's change time then.
        var sourceChanged: Int64?
        /// The digest of the source's bytes, when the decision had to read them.
        var sourceDigest: ContentDigest?
        /// Whether a manifest records the job's output (not in a single-file run).
        var recorded = false
        /// The job's report record once it has one (up to date, or after the run).
        var record: FileResult?
        /// Why the job is converted (`nil`: it is up to date).
        var reason: String?
        /// The job's own options: the command line's with its rules file's settings applied.
        var options: ConversionOptions?
        /// `options.fingerprint`, worked out once.
        var fingerprint: String?
        /// What governs the job in its rules file (``ConversionRules/label(of:)``), if it has one.
        var rule: String?
        /// That rules file.
        var rulesFile: String?
    }

    /// What the decision step found: one record per job, the manifests, and the jobs to run.
    struct Decision {
        var manifests: [String: Manifest] = [:]
        var dirty: Set<String> = []
        /// One per planned job, in plan order.
        var jobs: [JobDecision]
        /// The indices of the jobs to convert, in plan order.
        var work: [Int] = []
        /// Warnings for the report (a manifest that cannot be used, when nothing will be saved).
        var warnings: [RunWarning] = []
        /// Warnings about rules files (a pattern that matches no file), for every run.
        var ruleWarnings: [RunWarning] = []
        /// A shard run's members of `--loudness-group`s that other shards convert: their inputs
        /// and decisions (options, source, stamp), after `jobs` in the groups' numbering.
        var outside: [(input: String, decided: JobDecision)] = []
    }

    /// Compares every job with its manifest record: up to date, or to convert with a reason.
    /// `--shard`: keeps in `plan` the jobs of `shard` (by their outputs' names) and returns the
    /// others.
    static func split(_ plan: inout Planner.Plan, shard: Shard) -> [Job] {
        let every = plan.jobs
        let inShard = every.map { shard.contains(Manifest(folder: $0.stateFolder).relative($0.output) ?? $0.output) }
        plan.jobs = zip(every, inShard).filter(\.1).map(\.0)
        return zip(every, inShard).filter { !$0.1 }.map(\.0)
    }

    /// `outside`: a shard run's jobs of the other shards, whose only part here is in
    /// `--loudness-group`s (a group's gain is planned from all its members, whichever shard
    /// converts them: ``LoudnessGroups/outsiders(_:decision:options:rules:)``).
    static func decide(
        plan: Planner.Plan, options: ConversionOptions, rules: RuleBook = RuleBook(), outside: [Job] = []
    ) -> Decision {
        var decision = Decision(jobs: Array(repeating: JobDecision(), count: plan.jobs.count))
        let runFingerprint = options.fingerprint
        if plan.keepsState { loadManifests(plan: plan, options: options, into: &decision) }
        let matchers = rules.matchers()
        var checks: [ContentCheck] = []
        var coverage = PatternCoverage(rules.booksToCheck(plan.jobs), matchers: matchers)
        var decided: [Int] = []
        var probe = FileSystem.SourceProbe()
        for (index, job) in plan.jobs.enumerated() {
            var fingerprint = runFingerprint
            if let (book, relative) = rules.rules(for: job) {
                coverage.record(relative, in: book.file)
                let rule = (matchers[book.file] ?? RuleMatcher(book)).governing(relative)
                do throws(RuleError) {
                    let resolved = try book.resolve(
                        relative, governedBy: rule, base: options, commandLine: rules.commandLine)
                    fingerprint = resolved.options.fingerprint
                    decision.jobs[index].options = resolved.options
                    decision.jobs[index].rule = book.label(of: resolved.rule)
                    decision.jobs[index].rulesFile = book.file
                } catch {
                    var failure = FileResult.failed(job.input, output: job.output, error: .encoding(.rules(error)))
                    failure.rule = book.label(of: rule)
                    decision.jobs[index].record = failure
                    continue
                }
            }
            decision.jobs[index].fingerprint = fingerprint
            let (source, stamped) = probe.probe(job.input)
            decision.jobs[index].source = source
            decision.jobs[index].sourceStamp = stamped?.stamp
            decision.jobs[index].sourceChanged = stamped?.changed
            decided.append(index)
        }
        // `--loudness-group`: a group's members in every member's fingerprint.
        decision.outside = LoudnessGroups.outsiders(outside, decision: decision, options: options, rules: rules)
        LoudnessGroups.fingerprint(&decision, jobs: plan.jobs, options: options)
        for index in decided {
            let job = plan.jobs[index]
            if let check = compare(
                job, index: index, with: decision.manifests[job.stateFolder], options: options, in: &decision)
            {
                checks.append(check)
            }
        }
        settle(checks, jobs: plan.jobs, options: options, in: &decision)
        for pattern in coverage.unmatched {
            decision.ruleWarnings.append(
                .patternMatchesNothing(rules: pattern.rules, line: pattern.line, glob: pattern.glob.text))
        }
        return decision
    }

    /// Loads the manifest of every state folder into `decision`, even of one no job writes to:
    /// with all inputs gone, --check and --prune must still see the orphans its manifest records.
    static func loadManifests(plan: Planner.Plan, options: ConversionOptions, into decision: inout Decision) {
        let wanted = wantedKeys(plan: plan, options: options)
        for folder in plan.stateFolders + plan.jobs.map(\.stateFolder) where decision.manifests[folder] == nil {
            var manifest = Manifest.load(
                folder: folder, name: options.shard?.manifestName ?? Manifest.fileName, absorbShards: options.shard == nil,
                wanted: wanted[PathKey(folder)])
            // A shard run over a folder that already has a full run's manifest (a CI cache
            // restored into every shard job): the records of its share there count as its own,
            // so its outputs are up to date and its orphans are found; they go into its shard
            // manifest, for the gather.
            if let shard = options.shard, adopt(into: &manifest, from: folder, shard: shard), !options.dryRun {
                decision.dirty.insert(folder)
            }
            // Shard manifests gathered into this folder are written into its own manifest.
            if !manifest.absorbed.isEmpty && !options.dryRun { decision.dirty.insert(folder) }
            // A run that saves reports this as a failure; --dry-run and --check say it here.
            if options.dryRun, let foreign = manifest.foreign {
                decision.warnings.append(.manifestLeftAlone(path: manifest.path, why: foreign))
            }
            decision.manifests[folder] = manifest
        }
    }

    /// A job whose source or output has other times than its record says, and whose record has
    /// digests: the bytes decide (``settle(_:jobs:options:in:)``).
    struct ContentCheck {
        var index: Int
        var entry: Manifest.Entry
        /// The output's stamp and change time now.
        var output: (stamp: FileSystem.Stamp, changed: Int64)
        /// Whose bytes to read: the source's, the output's (those whose times changed).
        var source: Bool
        var outputBytes: Bool
        /// A record from before version 3 that the old rule (size and modification time) calls
        /// up to date: it stays so, and is given its change times and digests.
        var migrating: Bool
    }

    /// Takes into a shard's `manifest` the records of its share from the folder's own
    /// `.cafconv-manifest` that it does not have; whether it took any. A damaged or foreign main
    /// manifest gives nothing.
    static func adopt(into manifest: inout Manifest, from folder: String, shard: Shard) -> Bool {
        var main = Manifest.load(folder: folder)
        guard main.origin != nil, !main.isDamaged, main.count > 0 else { return false }
        main.materialize()
        var adopted = false
        for (key, entry) in main.entries where shard.contains(key.text) {
            if manifest.entries[key] == nil {
                manifest.materialize()
                if manifest.entries[key] == nil {
                    manifest.record(key, entry)
                    adopted = true
                }
            }
        }
        return adopted
    }

    /// Compares the job at `index` (its source and fingerprint already decided) with its record
    /// in `manifest`: an up-to-date record, or the reason to convert it and its place in the work,
    /// or a ``ContentCheck`` when the times differ and the bytes decide.
    ///
    /// Size, modification and change times are the fast path (as git's index): when all three
    /// match the record, the file is unchanged. When only times differ and the record has the
    /// file's digest, its bytes are read and compared (a fresh checkout, a restored cache, a
    /// folder copied without its times); a different size is a change at once.
    static func compare(
        _ job: Job, index: Int, with manifest: Manifest?, options: ConversionOptions, in decision: inout Decision
    ) -> ContentCheck? {
        decision.jobs[index].recorded = manifest != nil
        let decided = decision.jobs[index]
        let entry = manifest?.relative(job.output).flatMap { manifest?.entries[PathKey($0)] }
        let output = FileSystem.stampAndChange(of: job.output)
        let outputStamp = output?.stamp
        let reason: String?
        if options.force {
            reason = "--force"
        } else if outputStamp == nil {
            reason = "no output yet"
        } else if manifest == nil {
            reason = "a single-file run keeps no state: it always converts"
        } else if manifest?.isDamaged == true {
            reason = "\(Manifest.fileName) is damaged (a write was cut short?); its records are not trusted"
        } else if let entry, let output {
            let sourceSame =
                entry.sourceStamp == decided.sourceStamp
                && (entry.sourceContent == nil || entry.sourceContent?.changed == decided.sourceChanged)
            let outputSame =
                entry.outputStamp == output.stamp
                && (entry.outputContent == nil || entry.outputContent?.changed == output.changed)
            let digests = ContentHash.unavailable == nil
            if entry.source != decided.source {
                reason = "the output was made from another source"
            } else if entry.fingerprint != decided.fingerprint {
                reason = "the conversion options changed"
            } else if entry.sourceStamp.size != decided.sourceStamp?.size {
                reason = "the source changed"
            } else if entry.outputStamp.size != output.stamp.size {
                reason = "the output was changed after cafconv wrote it"
            } else if sourceSame && outputSame {
                reason = nil
                if entry.sourceContent == nil || entry.outputContent == nil, digests, decided.sourceChanged != nil {
                    return ContentCheck(
                        index: index, entry: entry, output: output, source: true, outputBytes: true, migrating: true)
                }
            } else if !sourceSame && entry.sourceContent?.digest == nil || !digests {
                reason = sourceSame ? "the output was changed after cafconv wrote it" : "the source changed"
            } else if !outputSame && entry.outputContent?.digest == nil {
                reason = "the output was changed after cafconv wrote it"
            } else {
                return ContentCheck(
                    index: index, entry: entry, output: output, source: !sourceSame, outputBytes: !outputSame,
                    migrating: false)
            }
        } else {
            reason = "the output has no record in \(Manifest.fileName)"
        }
        if let reason {
            decision.jobs[index].reason = reason
            decision.work.append(index)
        } else if let entry {
            upToDate(job, index: index, entry: entry, outputSize: outputStamp?.size, in: &decision)
        }
        return nil
    }

    /// The report record of a job found up to date.
    static func upToDate(_ job: Job, index: Int, entry: Manifest.Entry, outputSize: UInt64?, in decision: inout Decision) {
        let decided = decision.jobs[index]
        var record = FileResult(
            input: job.input, output: job.output, status: .upToDate, formatIn: entry.formatIn,
            formatOut: entry.formatOut, frames: entry.frames, bytes: outputSize)
        record.rule = decided.rule
        record.rulesFile = decided.rulesFile
        record.bytesIn = decided.sourceStamp?.size
        decision.jobs[index].record = record
    }

    /// Reads the bytes the ``ContentCheck``s need (on up to `options.jobs` threads, each file
    /// once, a block at a time) and decides each job: the same bytes as recorded make it up to
    /// date, and its record takes the new times (saved with the run, so the next run takes the
    /// fast path again); other bytes send it to the work with the reason.
    static func settle(_ checks: [ContentCheck], jobs: [Job], options: ConversionOptions, in decision: inout Decision) {
        guard !checks.isEmpty else { return }
        let digests = Mutex([(source: ContentDigest?, output: ContentDigest?)](repeating: (nil, nil), count: checks.count))
        Slots.forEach(checks.count, workers: options.jobs, scratch: { ContentHash.Reader() }) { reader, slot in
            let check = checks[slot]
            let job = jobs[check.index]
            let source = check.source ? reader?.digest(ofFile: job.input) : nil
            let output = check.outputBytes ? reader?.digest(ofFile: job.output) : nil
            digests.withLock { $0[slot] = (source, output) }
        }
        let found = digests.withLock { $0 }
        for (slot, check) in checks.enumerated() {
            let job = jobs[check.index]
            let decided = decision.jobs[check.index]
            let (source, output) = found[slot]
            if !check.migrating {
                if check.source && (source == nil || source != check.entry.sourceContent?.digest) {
                    decision.jobs[check.index].reason = "the source changed (its bytes differ from the recorded ones)"
                    decision.jobs[check.index].sourceDigest = source
                    decision.work.append(check.index)
                    continue
                }
                if check.outputBytes && (output == nil || output != check.entry.outputContent?.digest) {
                    decision.jobs[check.index].reason = "the output was changed after cafconv wrote it"
                    decision.jobs[check.index].sourceDigest = source
                    decision.work.append(check.index)
                    continue
                }
            }
            upToDate(job, index: check.index, entry: check.entry, outputSize: check.output.stamp.size, in: &decision)
            guard !options.dryRun, let sourceStamp = decided.sourceStamp, let sourceChanged = decided.sourceChanged,
                let key = decision.manifests[job.stateFolder]?.relative(job.output)
            else { continue }
            var entry = check.entry
            entry.sourceStamp = sourceStamp
            entry.sourceContent = Manifest.Content(
                changed: sourceChanged, digest: check.source ? source : check.entry.sourceContent?.digest)
            entry.outputStamp = check.output.stamp
            entry.outputContent = Manifest.Content(
                changed: check.output.changed, digest: check.outputBytes ? output : check.entry.outputContent?.digest)
            decision.manifests[job.stateFolder]?.record(PathKey(key), entry)
            decision.dirty.insert(job.stateFolder)
        }
        decision.work.sort()
    }

    /// Finds manifest records whose output is not planned and whose source is gone: reports them
    /// as orphaned, or deletes them with `--prune` (only `.caf` files that are as cafconv wrote
    /// them), with the folders that held nothing else. Records of outputs that no longer exist
    /// are dropped.
    ///
    /// Only the records that are this run's business are looked at (``orphanScope(plan:options:)``):
    /// a run that converts one file into a shared folder does not `stat` the source of every
    /// other record there, and does not report or drop them.
    static func settleOrphans(_ decision: inout Decision, plan: Planner.Plan, options: ConversionOptions)
        -> [FileResult]
    {
        let scope = orphanScope(plan: plan, options: options)
        if scope.wholeFolders.isEmpty && scope.missingSources.isEmpty { return [] }
        var planned: [String: Set<PathKey>] = [:]
        for job in plan.jobs {
            if let relative = decision.manifests[job.stateFolder]?.relative(job.output) {
                planned[job.stateFolder, default: []].insert(PathKey(relative))
            }
        }
        var orphans: [FileResult] = []
        for folder in decision.manifests.keys.sorted() {
            let whole = options.prune || scope.wholeFolders.contains(PathKey(folder))
            if !whole && scope.missingSources.isEmpty { continue }
            // Taken out while it changes: a copy left in the dictionary would double its memory.
            guard var manifest = decision.manifests.removeValue(forKey: folder) else { continue }
            manifest.materialize()
            for key in manifest.entries.keys.sorted() where planned[folder]?.contains(key) != true {
                guard let entry = manifest.entries[key],
                    whole || scope.missingSources.contains(where: { isPath(entry.source, at: $0) }),
                    FileSystem.stamp(of: entry.source) == nil
                else { continue }
                let path = FileSystem.joined(folder, key.text)
                guard let stamp = FileSystem.stamp(of: path) else {
                    manifest.forget(key)
                    decision.dirty.insert(folder)
                    continue
                }
                var record = FileResult(
                    input: entry.source, output: path, status: .orphaned, reason: "its source is gone",
                    formatIn: entry.formatIn, formatOut: entry.formatOut, frames: entry.frames, bytes: stamp.size)
                if options.prune {
                    let asWritten =
                        manifest.isDamaged || !key.text.lowercased().hasSuffix(".caf")
                        ? nil : prunableStamp(stamp, of: path, entry: entry)
                    if manifest.isDamaged {
                        record.reason = "its source is gone; not pruned: \(Manifest.fileName) is damaged"
                    } else if asWritten == nil {
                        record.reason = "its source is gone; not pruned: changed since cafconv wrote it"
                    } else if options.dryRun {
                        record.reason = "its source is gone; --prune would delete it"
                    } else if let asWritten {
                        // Resolved below the folder without following any symlink: a record can
                        // never make --prune delete a file outside it.
                        switch FileSystem.removeRecorded(root: folder, relative: key.text, expected: asWritten) {
                        case .removed, .missing:
                            FileSystem.removeEmptyFolders(above: key.text, in: folder)
                            record.status = .pruned
                            record.reason = "its source is gone; deleted"
                            manifest.forget(key)
                            decision.dirty.insert(folder)
                        case .changed:
                            record.reason = "its source is gone; not pruned: changed since cafconv wrote it"
                        case .refused(let why):
                            record.status = .failed
                            // Named by the output it could not delete (the source is gone).
                            record.input = path
                            record.reason = "orphaned output not pruned (its source \(entry.source) is gone): \(why)"
                        }
                    }
                }
                orphans.append(record)
            }
            decision.manifests[folder] = manifest
        }
        return orphans
    }

    /// The stamp `--prune` deletes an orphaned output at, or `nil` when it changed since cafconv
    /// wrote it: the recorded stamp when the output still has it; when only its times differ (a
    /// restored cache, `cp -r`, `touch`), its stamp now if its bytes still have the recorded
    /// digest, as an up-to-date decision takes it (``decide(plan:options:rules:)``).
    static func prunableStamp(_ stamp: FileSystem.Stamp, of path: String, entry: Manifest.Entry) -> FileSystem.Stamp? {
        if stamp == entry.outputStamp { return stamp }
        guard stamp.size == entry.outputStamp.size, let recorded = entry.outputContent?.digest,
            ContentHash.digest(ofFile: path) == recorded
        else { return nil }
        return stamp
    }

    /// Which manifest records a run looks at for orphans. Folder inputs: every record of the
    /// manifest of the output root they mirror (`-o`, or the folder itself when outputs go beside
    /// the inputs), whatever its source. Inputs that do not exist: the records whose recorded
    /// source is that path or lies below it (the file or folder that was deleted). Files given
    /// by name: only their own outputs, which are planned, so never orphans. `--prune` widens the
    /// scope to every record of every manifest the run reads (the way to prune a folder that is
    /// built one file at a time), at the cost of one `stat` per record.
    static func orphanScope(plan: Planner.Plan, options: ConversionOptions)
        -> (wholeFolders: Set<PathKey>, missingSources: [String])
    {
        if options.prune { return (Set(plan.stateFolders.map(PathKey.init)), []) }
        // An empty input names no path (a build variable that expanded to nothing): as a root
        // it would lie above every recorded source.
        return (
            Set(plan.mirroredFolders.map(PathKey.init)), plan.missingInputs.filter { !$0.isEmpty }.map(canonicalMissing)
        )
    }

    /// The records of each state folder's manifest that a run decodes, by folder: only those of
    /// its planned outputs there (the others are kept as bytes and written back as they are).
    /// A folder that is not listed is decoded whole: the run looks at every record there for
    /// orphans (a folder input's output root, any folder with `--prune` or a missing input).
    static func wantedKeys(plan: Planner.Plan, options: ConversionOptions) -> [PathKey: Set<PathKey>] {
        if options.prune || !plan.missingInputs.isEmpty { return [:] }
        let mirrored = Set(plan.mirroredFolders.map(PathKey.init))
        var wanted: [PathKey: Set<PathKey>] = [:]
        for job in plan.jobs {
            let folder = PathKey(job.stateFolder)
            guard !mirrored.contains(folder), let relative = Manifest(folder: job.stateFolder).relative(job.output) else {
                continue
            }
            wanted[folder, default: []].insert(PathKey(relative))
        }
        return wanted
    }

    /// The canonical path a missing input would have: its deepest existing ancestor resolved
    /// (symlinks, `.`, `..`), then the missing components as given.
    static func canonicalMissing(_ path: String) -> String {
        var rest: [Substring] = []
        var head = Substring(path)
        while true {
            while head.count > 1 && head.hasSuffix("/") { head = head.dropLast() }
            if head.isEmpty { return path }
            if let resolved = FileSystem.canonical(String(head)) {
                var result = resolved
                for component in rest.reversed() where component != "." && !component.isEmpty {
                    if component == ".." {
                        result = FileSystem.directoryName(result)
                    } else {
                        result = FileSystem.joined(result, String(component))
                    }
                }
                return result
            }
            if head == "." || head == "/" { return path }
            guard let slash = head.lastIndex(of: "/") else {
                rest.append(head)
                head = "."
                continue
            }
            rest.append(head[head.index(after: slash)...])
            head = slash == head.startIndex ? "/" : head[..<slash]
        }
    }

    /// Whether `path` is `root` or lies below it, byte for byte.
    static func isPath(_ path: String, at root: String) -> Bool {
        guard path.utf8.starts(with: root.utf8) else { return false }
        let count = root.utf8.count
        if path.utf8.count == count { return true }
        return root.utf8.last == 0x2F || path.utf8.dropFirst(count).first == 0x2F
    }

    /// Deletes temporary files left in the output folders (and the manifests' folders) by runs
    /// that stopped: nobody holds their lock any more (see ``FileSystem/removeStaleTemporaries(in:)``).
    /// Folders are opened below their root without following symlinks, and each only once.
    static func removeStaleTemporaries(in jobs: [Job]) {
        var seen: Set<PathKey> = []
        for job in jobs {
            for (folder, root) in [(FileSystem.directoryName(job.output), job.root), (job.stateFolder, job.stateFolder)]
            where seen.insert(PathKey(folder)).inserted {
                guard FileSystem.kind(of: folder) == .directory,
                    let opened = try? FileSystem.outputFolder(for: FileSystem.joined(folder, "x"), root: root)
                else { continue }
                FileSystem.removeStaleTemporaries(in: opened)
            }
        }
    }
}

/// The manifests of a run while workers update them.
struct RunState {
    var manifests: [String: Manifest]
    var dirty: Set<String>
    var lastSave: UInt64
    var done = 0
    var bytesDone: UInt64 = 0

    /// How long the last save took.
    var saving: UInt64 = 0
    /// Records made since the last save.
    var changes = 0

    /// Records a converted output in its manifest, in place: a copy of the manifest's
    /// dictionary per record would make a run quadratic in the number of files.
    mutating func record(job: Job, entry: Manifest.Entry) {
        guard let key = manifests[job.stateFolder]?.relative(job.output) else { return }
        manifests[job.stateFolder]?.record(PathKey(key), entry)
        dirty.insert(job.stateFolder)
        changes += 1
    }

    /// Saves changed manifests now and then, so an interrupted run keeps most of what it
    /// finished (an output without a record is simply converted again). Each save writes the
    /// whole file, so saves at a fixed pace would make a run quadratic in the number of files:
    /// a save waits at least 100 ms and until the records made since the last one are a fifth
    /// of the manifest (so all saves together write about six times the final file), or, for
    /// runs of few slow files, ten times as long as the last save took plus a second.
    mutating func saveIfDue() {
        let now = FileSystem.now()
        let elapsed = now - lastSave
        guard elapsed >= 100_000_000 else { return }
        let size = dirty.reduce(0) { $0 + (manifests[$1]?.count ?? 0) }
        guard changes * 5 >= size || elapsed >= saving * 10 + 1_000_000_000 else { return }
        for folder in dirty {
            guard (try? manifests[folder]?.save()) != nil else { continue }
            dirty.remove(folder)
        }
        changes = 0
        let finished = FileSystem.now()
        saving = finished - now
        lastSave = finished
    }
}
