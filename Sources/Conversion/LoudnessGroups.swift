import ContentHash
import ConversionModel
import Loudness
import OutputFiles
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
        var ceiling: Double
    }

    /// The groups of the jobs `decision` has decided options for (a job whose rules failed is in
    /// none), by key.
    static func groups(_ decision: Engine.Decision, jobs: [Job], options: ConversionOptions) -> [Group] {
        var found: [String: Group] = [:]
        for (index, decided) in decision.jobs.enumerated() where decided.record == nil {
            let options = decided.options ?? options
            guard let target = options.loudnessTarget, let name = options.loudnessGroup else { continue }
            let source = decided.source ?? jobs[index].input
            let shown = name == folder ? FileSystem.directoryName(jobs[index].input) : name
            let scope = name == folder ? "folder\u{0}\(FileSystem.directoryName(source))" : "name\u{0}\(name)"
            let key = "\(scope)\u{0}\(target)\u{0}\(options.truePeakCeiling)"
            found[key, default: Group(name: shown, members: [], target: target, ceiling: options.truePeakCeiling)]
                .members.append(index)
        }
        return found.keys.sorted().compactMap { key in
            found[key].map { group in
                var group = group
                group.members.sort { (decision.jobs[$0].source ?? "") < (decision.jobs[$1].source ?? "") }
                return group
            }
        }
    }

    /// Adds to each grouped job's fingerprint the digest of its group's members (their source
    /// paths, sizes and modification times): called after the options are decided and before the
    /// jobs are compared with their records.
    static func fingerprint(_ decision: inout Engine.Decision, jobs: [Job], options: ConversionOptions) {
        for group in groups(decision, jobs: jobs, options: options) {
            var text = ""
            for index in group.members {
                let decided = decision.jobs[index]
                let stamp = decided.sourceStamp
                text += "\(decided.source ?? jobs[index].input)\u{0}\(stamp?.size ?? 0)\u{0}\(stamp?.modified ?? 0)\n"
            }
            let digest = ContentHash.digest(Array(text.utf8)).map { "\($0)" } ?? text
            for index in group.members {
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
        let results = Mutex([Measured](repeating: Measured(), count: all.count))
        Slots.forEach(all.count, workers: options.jobs) { slot in
            var measured = Measured()
            do throws(SourceError) {
                (measured.measurement, measured.blocks) = try LoudnessScan.measureForGroup(path: jobs[all[slot]].input)
            } catch {
                measured.error = error.message
            }
            results.withLock { $0[slot] = measured }
        }
        var found = results.withLock { $0 }
        measureTruePeaks(wanted, found: &found, jobs: jobs, options: options)
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
    static func measureTruePeaks(_ wanted: [Group], found: inout [Measured], jobs: [Job], options: ConversionOptions) {
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
                    target: group.target, ceiling: group.ceiling)
            }
        }
        let all = wanted.flatMap(\.members)
        let paths = needed.map { jobs[all[$0]].input }
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
        // The members' output formats may differ: the room 16-bit rounding needs below the
        // ceiling (more than 24-bit's or a float's; 8-bit and G.711 members need more still).
        let gain = LoudnessGain.plan(
            group: loudness, truePeaks: measured.map { $0.measurement?.truePeak }, target: group.target,
            ceiling: group.ceiling, headroom: LoudnessGain.codingHeadroom(bits: 16, companded: false, ceiling: group.ceiling))
        plan.loudness = loudness
        plan.gain = gain.decibels
        plan.reached = gain.reached
        return plan
    }
}
