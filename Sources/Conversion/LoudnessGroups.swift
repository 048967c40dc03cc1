import ContentHash
import ConversionModel
import Loudness
import OutputFiles
import Rules
import Synchronization
import Transcoding

/// `--loudness-group` (and a rules file's `loudness-group`), the engine's step: the files of one
/// group get one gain, so their relative levels stay (album gain). Before any member is
/// converted, every member is measured (in parallel, ``Slots``) and the group's loudness is
/// BS.1770's gating over all their blocks together (``LoudnessMeter/integrated(ofBlocks:)``);
/// the true-peak cap is the group's loudest true peak (``LoudnessGain/plan(group:truePeaks:target:ceiling:)``).
///
/// A group is the run's jobs whose options give the same group, target and ceiling: with
/// `"folder"`, those whose sources lie in one folder; with any other name, every job given it.
/// Its members (each source's path, size and modification time) are digested into every
/// member's fingerprint, so a member changed, added or removed redoes the whole group (its gain
/// changes), and a touched member too.
enum LoudnessGroups {
    /// The group name that means "the files of each source folder".
    static let folder = "folder"

    /// One group: its name in the report and its members (job indices, in source path order).
    struct Group {
        var name: String
        var members: [Int]
        var target: Double
        /// The ceiling asked, or 0 dBTP when a member's output is not float (its samples would
        /// be clipped past full scale, as for one file).
        var ceiling: Double
        /// The room below the ceiling the members' output formats need for their rounding: the
        /// largest of theirs (``LoudnessGain/codingHeadroom(bits:companded:ceiling:)``; a member
        /// that keeps its source's format counts as 16-bit).
        var headroom = 0.0

        /// Takes in a member converted under `options`.
        mutating func add(_ index: Int, options: ConversionOptions) {
            members.append(index)
            let kind = options.dataFormat?.kind
            if kind?.isFloat != true { ceiling = min(ceiling, 0) }
            let companded = kind?.codec == "ulaw" || kind?.codec == "alaw"
            let bits = kind?.isFloat == true ? nil : kind?.bits ?? 16
            headroom = max(headroom, LoudnessGain.codingHeadroom(bits: bits, companded: companded, ceiling: ceiling))
        }
    }

    /// The groups of the jobs `decision` has decided options for (a job whose rules failed is in
    /// none), by key.
    static func groups(_ decision: Engine.Decision, jobs: [Job], options: ConversionOptions) -> [Group] {
        var found: [String: Group] = [:]
        let inputs = self.inputs(decision, jobs: jobs)
        // A member is a job whose rules resolved: to convert, or up to date (its output, made
        // with the group's gain, still counts in the group's loudness).
        for (index, decided) in entries(decision).enumerated()
        where decided.record == nil || decided.record?.status == .upToDate {
            let options = decided.options ?? options
            guard let target = options.loudnessTarget, let name = options.loudnessGroup else { continue }
            let source = decided.source ?? inputs[index]
            let shown = name == folder ? FileSystem.directoryName(inputs[index]) : name
            let scope = name == folder ? "folder\u{0}\(FileSystem.directoryName(source))" : "name\u{0}\(name)"
            let key = "\(scope)\u{0}\(target)\u{0}\(options.truePeakCeiling)"
            found[key, default: Group(name: shown, members: [], target: target, ceiling: options.truePeakCeiling)]
                .add(index, options: options)
        }
        let entries = entries(decision)
        return found.keys.sorted().compactMap { key in
            found[key].map { group in
                var group = group
                group.members.sort { (entries[$0].source ?? "") < (entries[$1].source ?? "") }
                return group
            }
        }
    }

    /// The run's job decisions, then a shard run's members of other shards (``Engine/Decision/outside``):
    /// a group's member numbers index this.
    static func entries(_ decision: Engine.Decision) -> [Engine.JobDecision] {
        decision.outside.isEmpty ? decision.jobs : decision.jobs + decision.outside.map(\.decided)
    }

    /// The inputs of ``entries(_:)``.
    static func inputs(_ decision: Engine.Decision, jobs: [Job]) -> [String] {
        jobs.map(\.input) + decision.outside.map(\.input)
    }

    /// `--shard`: the other shards' jobs that belong to a `--loudness-group` (their options from
    /// the rules, their sources probed), when any job of this shard has one; the group's gain
    /// and fingerprint take every member, so each shard plans the gain a run without shards does.
    static func outsiders(
        _ outside: [Job], decision: Engine.Decision, options: ConversionOptions, rules: RuleBook
    ) -> [(input: String, decided: Engine.JobDecision)] {
        func grouped(_ options: ConversionOptions) -> Bool { options.loudnessTarget != nil && options.loudnessGroup != nil }
        guard !outside.isEmpty, decision.jobs.contains(where: { $0.record == nil && grouped($0.options ?? options) })
        else { return [] }
        var probe = FileSystem.SourceProbe()
        return outside.compactMap { job in
            var decided = Engine.JobDecision()
            if let (book, relative) = rules.rules(for: job) {
                let rule = RuleMatcher(book).governing(relative)
                guard let resolved = try? book.resolve(relative, governedBy: rule, base: options, commandLine: rules.commandLine)
                else { return nil }
                decided.options = resolved.options
            }
            guard grouped(decided.options ?? options) else { return nil }
            let (source, stamped) = probe.probe(job.input)
            decided.source = source
            decided.sourceStamp = stamped?.stamp
            return (job.input, decided)
        }
    }

    /// Adds to each grouped job's fingerprint the digest of its group's members (their source
    /// paths, sizes and modification times): called after the options are decided and before the
    /// jobs are compared with their records.
    static func fingerprint(_ decision: inout Engine.Decision, jobs: [Job], options: ConversionOptions) {
        let entries = entries(decision)
        let inputs = inputs(decision, jobs: jobs)
        for group in groups(decision, jobs: jobs, options: options) {
            var text = ""
            for index in group.members {
                let decided = entries[index]
                let stamp = decided.sourceStamp
                text += "\(decided.source ?? inputs[index])\u{0}\(stamp?.size ?? 0)\u{0}\(stamp?.modified ?? 0)\n"
            }
            let digest = ContentHash.digest(Array(text.utf8)).map { "\($0)" } ?? text
            for index in group.members where index < decision.jobs.count {
                decision.jobs[index].fingerprint =
                    (decision.jobs[index].fingerprint ?? options.fingerprint)
                    + ";group=\(group.members.count):\(digest)"
            }
        }
    }

    /// One member measured, or why it could not be.
    struct Measured: Sendable {
        var measurement: LoudnessMeasurement?
        var blocks: [Double] = []
        var error: String?
    }

    /// The engine's step before the conversions: every member of each group that has a job to
    /// convert is measured (`options.jobs` at once), and each such job gets the group's plan in its
    /// options (``ConversionOptions/loudnessGroupPlan``). Memory: one block and one meter per
    /// worker, and ten numbers per second of each member (its gating blocks).
    static func plan(_ decision: inout Engine.Decision, jobs: [Job], options: ConversionOptions) {
        let work = Set(decision.work)
        let wanted = groups(decision, jobs: jobs, options: options).filter { $0.members.contains(where: work.contains) }
        let all = wanted.flatMap(\.members)
        guard !all.isEmpty else { return }
        let inputs = inputs(decision, jobs: jobs)
        let results = Mutex([Measured](repeating: Measured(), count: all.count))
        Slots.forEach(all.count, workers: options.jobs) { slot in
            var measured = Measured()
            do throws(SourceError) {
                (measured.measurement, measured.blocks) = try LoudnessScan.measureForGroup(path: inputs[all[slot]])
            } catch {
                measured.error = error.message
            }
            results.withLock { $0[slot] = measured }
        }
        var found = results.withLock { $0 }
        measureTruePeaks(wanted, found: &found, inputs: inputs, options: options)
        var slot = 0
        for group in wanted {
            let measured = Array(found[slot..<(slot + group.members.count)])
            slot += group.members.count
            for (member, index) in group.members.enumerated() where work.contains(index) {
                var own = decision.jobs[index].options ?? options
                own.loudnessGroupPlan = plan(group, measured: measured, member: member)
                decision.jobs[index].options = own
            }
        }
    }

    /// The true peaks of the members (`found`, every member of `wanted` in turn) whose sample
    /// peak could take their true peak above the ceiling after the group's uncapped gain
    /// (``LoudnessGain/truePeakCouldDecide(loudness:samplePeak:sampleRate:target:ceiling:)``
    /// with the group's loudness): the others cannot cap it, and are not oversampled.
    static func measureTruePeaks(_ wanted: [Group], found: inout [Measured], inputs: [String], options: ConversionOptions) {
        var needed: [Int] = []
        var slot = 0
        for group in wanted {
            let range = slot..<(slot + group.members.count)
            slot += group.members.count
            guard let loudness = LoudnessMeter.integrated(ofBlocks: found[range].map(\.blocks)) else { continue }
            needed += range.filter { index in
                guard let measured = found[index].measurement else { return false }
                return LoudnessGain.truePeakCouldDecide(
                    loudness: loudness, samplePeak: measured.samplePeak, sampleRate: measured.sampleRate,
                    target: group.target, ceiling: group.ceiling - group.headroom)
            }
        }
        let all = wanted.flatMap(\.members)
        let paths = needed.map { inputs[all[$0]] }
        let peaks = Mutex([Result<Double?, SourceError>](repeating: .success(nil), count: paths.count))
        Slots.forEach(paths.count, workers: options.jobs) { slot in
            let peak = Result { () throws(SourceError) in try LoudnessScan.truePeak(path: paths[slot]) }
            peaks.withLock { $0[slot] = peak }
        }
        for (slot, result) in peaks.withLock({ $0 }).enumerated() {
            switch result {
            case .success(let peak): found[needed[slot]].measurement?.truePeak = peak
            case .failure(let error): found[needed[slot]].error = error.message
            }
        }
    }

    /// The plan of `group` for its `member`-th file, from every member's measurement.
    static func plan(_ group: Group, measured: [Measured], member: Int) -> LoudnessGroupPlan {
        let own = measured[member].measurement
        var plan = LoudnessGroupPlan(
            name: group.name, members: group.members.count, loudness: -.infinity, gain: 0, target: group.target,
            reached: group.target, ceiling: group.ceiling, memberLoudness: own?.integrated,
            memberShortClip: own?.isShortClip ?? false)
        if let bad = measured.first(where: { $0.error != nil }), let error = bad.error {
            plan.failure = .loudnessUnmeasurable(
                reason: "a file of its --loudness-group \(group.name) cannot be measured: \(error)")
            return plan
        }
        guard let loudness = LoudnessMeter.integrated(ofBlocks: measured.map(\.blocks)) else {
            plan.failure = .silentForLoudness(target: group.target)
            return plan
        }
        let gain = LoudnessGain.plan(
            group: loudness, truePeaks: measured.map { $0.measurement?.truePeak }, target: group.target,
            ceiling: group.ceiling, headroom: group.headroom)
        plan.loudness = loudness
        plan.gain = gain.decibels
        plan.reached = gain.reached
        return plan
    }
}
