import SystemLayer

import CEBUR128

/// Why a loudness cannot be measured: a sentence.
public struct LoudnessError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What ITU-R BS.1770-4 and EBU R 128 (Tech 3341, Tech 3342) say about one programme.
///
/// Levels are `nil` for digital silence (and loudness below the -70 LUFS absolute gate), which
/// has no level in decibels.
public struct LoudnessMeasurement: Sendable, Equatable, Codable {
    /// Integrated (programme) loudness, LUFS: gated as BS.1770-4 says (-70 LUFS absolute gate,
    /// -10 LU relative gate, 400 ms blocks overlapping by 75 %). For a clip shorter than one
    /// gating block (``isShortClip``), the ungated K-weighted loudness of the whole clip.
    public var integrated: Double?
    /// Whether the clip is shorter than one 400 ms gating block, so that ``integrated`` is the
    /// fallback (the ungated K-weighted loudness of the whole clip) rather than BS.1770's gated
    /// loudness, which is undefined for it.
    public var isShortClip: Bool
    /// Loudness range (EBU Tech 3342), LU: 0 when the programme is too short to have one.
    public var range: Double
    /// Maximum true peak over all channels (4x oversampled below 96 kHz, 2x up to 192 kHz), dBTP.
    public var truePeak: Double?
    /// Maximum sample peak over all channels, dBFS.
    public var samplePeak: Double?
    /// Maximum momentary loudness (400 ms window, read every 10 ms; every 20 ms at 22050 Hz, 40
    /// ms at 11025 Hz), LUFS.
    public var maxMomentary: Double?
    /// Maximum short-term loudness (3 s window, read as often as the momentary), LUFS.
    public var maxShortTerm: Double?
    /// Frames measured.
    public var frames: Int64
    /// Frames per second.
    public var sampleRate: Int
    /// Channels measured.
    public var channels: Int

    public init(
        integrated: Double?, isShortClip: Bool, range: Double, truePeak: Double?, samplePeak: Double?,
        maxMomentary: Double?, maxShortTerm: Double?, frames: Int64, sampleRate: Int, channels: Int
    ) {
        self.integrated = integrated
        self.isShortClip = isShortClip
        self.range = range
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.maxMomentary = maxMomentary
        self.maxShortTerm = maxShortTerm
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
    }

    enum CodingKeys: String, CodingKey {
        case integrated = "integratedLUFS"
        case isShortClip = "shortClip"
        case range = "rangeLU"
        case truePeak = "truePeakDBTP"
        case samplePeak = "samplePeakDBFS"
        case maxMomentary = "maxMomentaryLUFS"
        case maxShortTerm = "maxShortTermLUFS"
        case frames, sampleRate, channels
    }

    /// Every key, a level that does not exist (silence, a peak of nothing) as `null`: a reader
    /// can look each key up whatever the file held.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for (key, value) in [
            (CodingKeys.integrated, integrated), (.truePeak, truePeak), (.samplePeak, samplePeak),
            (.maxMomentary, maxMomentary), (.maxShortTerm, maxShortTerm),
        ] {
            if let value { try container.encode(value, forKey: key) } else { try container.encodeNil(forKey: key) }
        }
        try container.encode(isShortClip, forKey: .isShortClip)
        try container.encode(range, forKey: .range)
        try container.encode(frames, forKey: .frames)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channels, forKey: .channels)
    }
}

/// A BS.1770 / EBU R 128 meter over libebur128 (loaded with `dlopen` at the first meter, never
/// linked): frames go in by blocks (`add`), the measurement comes out at the end (`finish`).
/// Memory is libebur128's 3 s window per channel plus ten numbers per second of programme
/// (its gating and short-term block lists), whatever the block size.
///
/// Channel weights follow BS.1770: left, right and centre 1.0, surround channels 1.41, LFE
/// left out. ``ChannelKind/standard(channels:)`` says which channel is which by count.
public final class LoudnessMeter {
    /// What a channel is to BS.1770 (its weight): libebur128's channel kinds.
    public enum ChannelKind: Int32, Sendable {
        /// Not measured (LFE).
        case unused = 0
        case left = 1
        case right = 2
        case centre = 3
        case leftSurround = 4
        case rightSurround = 5
        /// A mono channel counted twice (as if played on two loudspeakers).
        case dualMono = 6

        /// The kinds of `channels` channels in WAVE / SMPTE order: mono is one channel of weight
        /// 1.0 (as libebur128 and ffmpeg measure it); 2 L R; 3 L R C; 4 L R Ls Rs; 5 L R C Ls Rs;
        /// 6 L R C LFE Ls Rs; 7 and more as 5.1, the channels after it at weight 1.0.
        public static func standard(channels: Int) -> [ChannelKind] {
            switch channels {
            case ..<1: return []
            case 1: return [.left]
            case 2: return [.left, .right]
            case 3: return [.left, .right, .centre]
            case 4: return [.left, .right, .leftSurround, .rightSurround]
            case 5: return [.left, .right, .centre, .leftSurround, .rightSurround]
            default:
                return [.left, .right, .centre, .unused, .leftSurround, .rightSurround]
                    + Array(repeating: .centre, count: channels - 6)
            }
        }
    }

    /// What a meter measures: less is cheaper (the true peak's oversampling is most of
    /// libebur128's work).
    public enum Extent: Int32, Sendable {
        /// Everything ``LoudnessMeasurement`` holds.
        case full = 0
        /// The integrated loudness and the sample and true peaks (what a gain needs); no loudness
        /// range, no maximum momentary or short-term loudness, no gating blocks.
        case gain = 1
        /// The integrated loudness alone (what a re-measurement needs).
        case integrated = 2
        /// The integrated loudness and the sample peak, without the true peak's oversampling:
        /// what a gain needs when ``LoudnessGain/truePeakCouldDecide(loudness:samplePeak:sampleRate:target:ceiling:)``
        /// says no true peak can reach the ceiling.
        case gainBySamplePeak = 3
        /// What a `--loudness-group` member needs first: the integrated loudness, the sample peak
        /// and the gating blocks (``gatingBlocks``); no true peak (measured apart, only when the
        /// sample peak says it could cap the group's gain), no loudness range, no maximum
        /// momentary or short-term loudness (libebur128's 3 s window is not kept).
        case group = 4
    }

    private let state: OpaquePointer
    /// What this meter measures.
    public let extent: Extent
    /// Channels per frame.
    public let channels: Int
    /// Frames per second.
    public let sampleRate: Int
    /// Frames added so far.
    public private(set) var frames: Int64 = 0
    /// libebur128's 100 ms in frames (its gating blocks are four of them).
    private let hundredMilliseconds: Int64
    private let momentaryHop: Int64
    private let shortTermHop: Int64
    /// When the rate makes a whole number of frames of them (10, 20, 40 or 50 ms): the hop whose
    /// energy libebur128 gives exactly (its loudness of the last W ms is `rate * W / 1000`
    /// frames), so that the momentary (400 ms) and short-term (3 s) windows are sums of the last
    /// hops, read at every hop for the cost of one hop. `nil`: the windows are read from
    /// libebur128 directly, every 10 ms and 50 ms (each reading sums the whole window).
    private let hopMilliseconds: Int?
    /// The energy sums of the last 3 s of hops, a ring (oldest overwritten).
    private var hopEnergies: [Double] = []
    private var hopIndex = 0
    private var maxMomentary = -Double.infinity
    private var maxShortTerm = -Double.infinity
    private var blocks: [Double] = []

    /// The loudness below which BS.1770's absolute gate drops a block; a programme (or a short
    /// clip) below it reads as silent.
    public static let absoluteGate = -70.0

    /// Whether libebur128 can be loaded; the reason when it cannot.
    public static var unavailableReason: String? {
        cafconv_ebur128_load().map { String(cString: $0) }
    }

    /// libebur128's version, "major.minor.patch".
    public static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        cafconv_ebur128_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// A meter for `channels` channels at `sampleRate` Hz; `kinds` (one per channel) default to
    /// ``ChannelKind/standard(channels:)``.
    public init(channels: Int, sampleRate: Int, kinds: [ChannelKind]? = nil, extent: Extent = .full) throws(LoudnessError) {
        if let reason = Self.unavailableReason { throw LoudnessError(reason) }
        guard (1...64).contains(channels) else { throw LoudnessError("cannot measure \(channels) channels (1 to 64)") }
        guard (8...2_822_400).contains(sampleRate) else {
            throw LoudnessError("cannot measure at \(sampleRate) Hz (8 Hz to 2.8224 MHz)")
        }
        let kinds = (kinds ?? ChannelKind.standard(channels: channels)).map(\.rawValue)
        guard kinds.count == channels else { throw LoudnessError("\(kinds.count) channel kinds for \(channels) channels") }
        let opened = kinds.withUnsafeBufferPointer { buffer in
            cafconv_ebur128_open(UInt32(channels), UInt(sampleRate), buffer.baseAddress, extent.rawValue)
        }
        self.extent = extent
        guard let opened else { throw LoudnessError("libebur128 cannot measure \(channels) channels at \(sampleRate) Hz") }
        state = opened
        self.channels = channels
        self.sampleRate = sampleRate
        // As libebur128 rounds it.
        hundredMilliseconds = Int64((sampleRate + 5) / 10)
        let exact = [10, 20, 40, 50].first { sampleRate * $0 % 1000 == 0 }
        hopMilliseconds = exact
        if let exact {
            momentaryHop = Int64(sampleRate * exact / 1000)
            shortTermHop = momentaryHop
            hopEnergies = [Double](repeating: 0, count: 3000 / exact)
        } else {
            momentaryHop = max(1, Int64((sampleRate + 50) / 100))
            shortTermHop = momentaryHop * 5
        }
    }

    deinit { cafconv_ebur128_close(state) }

    /// Adds `frameCount` interleaved frames from `samples` (full scale ±1.0).
    public func add(_ samples: UnsafeBufferPointer<Double>, frames frameCount: Int) throws(LoudnessError) {
        guard frameCount > 0, let base = samples.baseAddress else { return }
        guard samples.count >= frameCount * channels else {
            throw LoudnessError("\(samples.count) samples cannot hold \(frameCount) frames of \(channels) channels")
        }
        try feed(frameCount) { state, done, count in cafconv_ebur128_add(state, base + done * channels, count) }
    }

    /// Adds `frameCount` interleaved frames of left-justified 32-bit integers (full scale 2^31),
    /// as they are decoded: libebur128 scales them itself, to exactly the doubles `x / 2^31`.
    public func add(leftJustified samples: UnsafeBufferPointer<Int32>, frames frameCount: Int) throws(LoudnessError) {
        guard frameCount > 0, let base = samples.baseAddress else { return }
        guard samples.count >= frameCount * channels else {
            throw LoudnessError("\(samples.count) samples cannot hold \(frameCount) frames of \(channels) channels")
        }
        try feed(frameCount) { state, done, count in cafconv_ebur128_add_int(state, base + done * channels, count) }
    }

    /// Gives libebur128 `frameCount` frames through `push` (the state, the frames already
    /// pushed and how many more; 0 on success), reading the windows and gating blocks on the way
    /// when this meter measures everything.
    private func feed(
        _ frameCount: Int, _ push: (OpaquePointer, Int, Int) -> Int32
    ) throws(LoudnessError) {
        if extent != .full && extent != .group {
            // No windows to read, no blocks to keep: the frames go in at once.
            guard push(state, 0, frameCount) == 0 else {
                throw LoudnessError("libebur128 cannot take the frames (out of memory?)")
            }
            frames += Int64(frameCount)
            return
        }
        var done = 0
        while done < frameCount {
            // Up to the next 10 ms boundary, where the momentary (and every fifth time the
            // short-term) loudness is read (not for a group's meter), or the next 100 ms
            // boundary, where libebur128 ends a gating block.
            let readsWindows = extent == .full
            let untilHop = readsWindows ? momentaryHop - frames % momentaryHop : Int64.max
            let untilBlock = hundredMilliseconds - frames % hundredMilliseconds
            let count = Int(min(untilHop, untilBlock, Int64(frameCount - done)))
            guard push(state, done, count) == 0 else {
                throw LoudnessError("libebur128 cannot take the frames (out of memory?)")
            }
            done += count
            frames += Int64(count)
            if readsWindows && frames % momentaryHop == 0 { readWindows(shortTerm: frames % shortTermHop == 0) }
            if frames % hundredMilliseconds == 0 && frames >= 4 * hundredMilliseconds { recordBlock() }
        }
    }

    /// The energy of the gating block libebur128 has just ended (the 400 ms up to here), kept
    /// when it passes the absolute gate: the group loudness (``integrated(ofBlocks:)``) gates the
    /// blocks of several files together.
    private func recordBlock() {
        var value = -Double.infinity
        guard cafconv_ebur128_window(state, 400, &value) == 0, value.isFinite, value > Self.absoluteGate else { return }
        blocks.append(Self.energy(value))
    }

    private static func energy(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }

    /// The loudness of a window of `hops` hops whose energy sums to `sum`.
    private func windowLoudness(_ sum: Double, hops: Int) -> Double {
        sum > 0 ? Self.loudness(sum / (Double(hops) * Double(momentaryHop))) : -Double.infinity
    }
    private static func loudness(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }

    /// The energies of the gating blocks above the absolute gate, for the group loudness; a short
    /// clip counts as one block of its whole-clip loudness (the fallback of
    /// ``integratedLoudness()``). Ten numbers per second of programme at most.
    public var gatingBlocks: [Double] {
        if isShortClip { return integratedLoudness().map { [Self.energy($0)] } ?? [] }
        return blocks
    }

    /// The gated loudness of several programmes taken together (album gain: one loudness for a
    /// folder that keeps its files' relative levels): BS.1770's gating (the -70 LUFS absolute
    /// gate, then the -10 LU relative gate) over the union of their ``gatingBlocks``; `nil`
    /// when no block passes.
    public static func integrated(ofBlocks groups: [[Double]]) -> Double? {
        let all = groups.joined().filter { $0 > 0 && loudness($0) > absoluteGate }
        guard !all.isEmpty else { return nil }
        let relative = loudness(all.reduce(0, +) / Double(all.count)) - 10
        let gated = all.filter { loudness($0) > relative }
        guard !gated.isEmpty else { return nil }
        let value = loudness(gated.reduce(0, +) / Double(gated.count))
        return value.isFinite ? value : nil
    }

    /// Adds `frameCount` interleaved frames from `samples` (full scale ±1.0).
    public func add(_ samples: [Double], frames frameCount: Int) throws(LoudnessError) {
        try samples.withUnsafeBufferPointer { buffer throws(LoudnessError) in try add(buffer, frames: frameCount) }
    }

    private func readWindows(shortTerm: Bool) {
        var value = -Double.infinity
        if let milliseconds = hopMilliseconds, frames % momentaryHop == 0 {
            // The hop just ended: its energy sum, then the windows as sums of the last hops.
            let hop = cafconv_ebur128_window(state, UInt(milliseconds), &value) == 0 && value.isFinite
                ? Self.energy(value) * Double(momentaryHop) : 0
            hopEnergies[hopIndex] = hop
            hopIndex = (hopIndex + 1) % hopEnergies.count
            let count = hopEnergies.count
            var sum = 0.0
            for back in 1...count {
                sum += hopEnergies[(hopIndex - back + count) % count]
                if back == 400 / milliseconds { maxMomentary = max(maxMomentary, windowLoudness(sum, hops: back)) }
            }
            maxShortTerm = max(maxShortTerm, windowLoudness(sum, hops: count))
            return
        }
        if cafconv_ebur128_momentary(state, &value) == 0, value > maxMomentary { maxMomentary = value }
        if shortTerm, cafconv_ebur128_shortterm(state, &value) == 0, value > maxShortTerm { maxShortTerm = value }
    }

    /// Whether the frames so far are fewer than one gating block (400 ms): BS.1770's gated
    /// loudness is undefined, and ``integratedLoudness()`` is the short-clip fallback.
    public var isShortClip: Bool { frames < 4 * hundredMilliseconds }

    /// The integrated loudness of the frames so far (see ``LoudnessMeasurement/integrated``).
    public func integratedLoudness() -> Double? {
        var value = -Double.infinity
        if isShortClip {
            // The ungated K-weighted loudness of the whole clip. libebur128 reads the loudness of
            // its last W whole milliseconds, `rate * W / 1000` frames; with W rounded up those
            // frames are the clip and the silence its window starts with (its buffer starts at
            // zero), so the mean energy is scaled back to the clip's own frames.
            guard frames > 0 else { return nil }
            let rate = Int64(sampleRate)
            let milliseconds = (frames * 1000 + rate - 1) / rate
            let windowFrames = rate * milliseconds / 1000
            guard cafconv_ebur128_window(state, UInt(milliseconds), &value) == 0, value.isFinite else { return nil }
            value += 10 * log10(Double(windowFrames) / Double(frames))
        } else {
            guard cafconv_ebur128_integrated(state, &value) == 0 else { return nil }
        }
        return value.isFinite && value >= Self.absoluteGate ? value : nil
    }

    /// The measurement of every frame added.
    public func finish() -> LoudnessMeasurement {
        if extent != .full {
            return LoudnessMeasurement(
                integrated: integratedLoudness(), isShortClip: isShortClip, range: 0, truePeak: peak(true),
                samplePeak: peak(false), maxMomentary: nil, maxShortTerm: nil, frames: frames, sampleRate: sampleRate,
                channels: channels)
        }
        if frames % momentaryHop != 0 {
            // The last, partial hop: the windows read from libebur128 directly, once.
            var value = -Double.infinity
            if cafconv_ebur128_momentary(state, &value) == 0, value > maxMomentary { maxMomentary = value }
            if cafconv_ebur128_shortterm(state, &value) == 0, value > maxShortTerm { maxShortTerm = value }
        }
        var range = 0.0
        if cafconv_ebur128_range(state, &range) != 0 || !range.isFinite { range = 0 }
        return LoudnessMeasurement(
            integrated: integratedLoudness(), isShortClip: isShortClip, range: range, truePeak: peak(true),
            samplePeak: peak(false), maxMomentary: Self.level(maxMomentary),
            maxShortTerm: Self.level(maxShortTerm), frames: frames, sampleRate: sampleRate, channels: channels)
    }

    /// The largest true (or sample) peak over all channels, dBTP (dBFS); `nil` for silence or
    /// when this meter's extent does not measure it.
    private func peak(_ isTrue: Bool) -> Double? {
        guard extent != .integrated, !(isTrue && (extent == .gainBySamplePeak || extent == .group)) else { return nil }
        var peak = 0.0
        for channel in 0..<channels {
            var value = 0.0
            let status =
                isTrue
                ? cafconv_ebur128_true_peak(state, UInt32(channel), &value)
                : cafconv_ebur128_sample_peak(state, UInt32(channel), &value)
            if status == 0, value > peak { peak = value }
        }
        return Self.decibels(peak)
    }

    private static func decibels(_ linear: Double) -> Double? {
        linear > 0 && linear.isFinite ? 20 * log10(linear) : nil
    }

    private static func level(_ loudness: Double) -> Double? {
        loudness.isFinite && loudness >= absoluteGate ? loudness : nil
    }
}
