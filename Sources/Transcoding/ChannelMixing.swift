import CAFKit
import ConversionModel
import Loudness
import OutputFiles

/// A loudspeaker position, as WAVE_FORMAT_EXTENSIBLE's channel mask, CAF's `chan` chunk and
/// AIFF's channel order name them. The raw value is the position's bit in the WAVE channel mask
/// (and in CAF's channel bitmap, which uses the same bits); `mono` has none.
public enum Speaker: Int, Sendable, CaseIterable, CustomStringConvertible {
    case frontLeft = 0, frontRight, frontCenter, lowFrequency, backLeft, backRight, frontLeftOfCenter
    case frontRightOfCenter, backCenter, sideLeft, sideRight, topCenter, topFrontLeft, topFrontCenter
    case topFrontRight, topBackLeft, topBackCenter, topBackRight
    /// A mono channel (CAF's `Mono` label and layout).
    case mono = 64

    /// The abbreviation warnings use: `FL`, `FR`, `FC`, `LFE`, `BL`...
    public var description: String {
        switch self {
        case .frontLeft: return "FL"
        case .frontRight: return "FR"
        case .frontCenter: return "FC"
        case .lowFrequency: return "LFE"
        case .backLeft: return "BL"
        case .backRight: return "BR"
        case .frontLeftOfCenter: return "FLC"
        case .frontRightOfCenter: return "FRC"
        case .backCenter: return "BC"
        case .sideLeft: return "SL"
        case .sideRight: return "SR"
        case .topCenter: return "TC"
        case .topFrontLeft: return "TFL"
        case .topFrontCenter: return "TFC"
        case .topFrontRight: return "TFR"
        case .topBackLeft: return "TBL"
        case .topBackCenter: return "TBC"
        case .topBackRight: return "TBR"
        case .mono: return "M"
        }
    }

    /// The gains into a stereo pair (left, right) before normalisation: ITU-R BS.775's downmix
    /// (front left and right at 0 dB, centre at -3 dB into both, surrounds at -3 dB into their
    /// side, a single back surround at -6 dB into both, LFE dropped), extended by cafconv to the
    /// other WAVE positions: left/right of centre count as front left/right, side as back, and a
    /// height channel gets the gain of the position below it, 3 dB less.
    package var stereoGains: (left: Double, right: Double) {
        let h = 0.5.squareRoot()
        switch self {
        case .frontLeft, .frontLeftOfCenter: return (1, 0)
        case .frontRight, .frontRightOfCenter: return (0, 1)
        case .frontCenter, .mono: return (h, h)
        case .lowFrequency: return (0, 0)
        case .backLeft, .sideLeft: return (h, 0)
        case .backRight, .sideRight: return (0, h)
        case .backCenter: return (0.5, 0.5)
        case .topFrontLeft: return (h, 0)
        case .topFrontRight: return (0, h)
        case .topFrontCenter, .topCenter: return (0.5, 0.5)
        case .topBackLeft: return (0.5, 0)
        case .topBackRight: return (0, 0.5)
        case .topBackCenter: return (0.5 * h, 0.5 * h)
        }
    }

    /// libsndfile's channel-map value for this position (`SF_CHANNEL_MAP_*`).
    package var libsndfileMap: Int32 {
        switch self {
        case .mono: return 1
        case .frontLeft: return 5
        case .frontRight: return 6
        case .frontCenter: return 7
        case .backCenter: return 8
        case .backLeft: return 9
        case .backRight: return 10
        case .lowFrequency: return 11
        case .frontLeftOfCenter: return 12
        case .frontRightOfCenter: return 13
        case .sideLeft: return 14
        case .sideRight: return 15
        case .topCenter: return 16
        case .topFrontLeft: return 17
        case .topFrontRight: return 18
        case .topFrontCenter: return 19
        case .topBackLeft: return 20
        case .topBackRight: return 21
        case .topBackCenter: return 22
        }
    }
}

/// Where each channel of a source plays, in channel order; `nil` entries are channels with no
/// known position (discrete channels, an unknown CAF label).
public struct SpeakerLayout: Equatable, Sendable, CustomStringConvertible {
    /// The position of each channel.
    public var speakers: [Speaker?]

    /// A layout of these positions.
    public init(_ speakers: [Speaker?]) { self.speakers = speakers }

    /// Whether every channel has a position.
    public var isComplete: Bool { !speakers.contains(nil) }

    /// `FL FR FC LFE BL BR`, `?` for a channel without a position.
    public var description: String { speakers.map { $0?.description ?? "?" }.joined(separator: " ") }

    /// The weight BS.1770-4 gives each channel for loudness (its table 4), by where it plays:
    /// 1.41 (+1.5 dB) for the surrounds between 60 and 120 degrees (side left and right; back left
    /// and right too when there are no sides, as in 5.1, where they are the surrounds at 110),
    /// none for the LFE, 1.0 for the others (front, centre, back at 135 to 180, elevated);
    /// `nil` when a channel has no known position, and for mono and stereo, always weighed 1.0
    /// (as every meter reads them, and as a CAF of them, which carries no `chan`, is read).
    package var loudnessKinds: [LoudnessMeter.ChannelKind]? {
        guard isComplete, speakers.count > 2 else { return nil }
        let hasSides = speakers.contains { $0 == .sideLeft || $0 == .sideRight }
        return speakers.map { speaker -> LoudnessMeter.ChannelKind in
            switch speaker {
            case .sideLeft?: return .leftSurround
            case .sideRight?: return .rightSurround
            case .backLeft? where !hasSides: return .leftSurround
            case .backRight? where !hasSides: return .rightSurround
            case .lowFrequency?: return .unused
            case .frontLeft?: return .left
            case .frontRight?: return .right
            default: return .centre
            }
        }
    }

    /// A CAF `chan` of one channel description a channel (Core Audio's labels: a WAVE bit's
    /// label is its bit plus 1, mono 42); `nil` when a channel has no known position.
    package var channelLayout: ChannelLayout? {
        guard isComplete else { return nil }
        let descriptions = speakers.compactMap { speaker in
            speaker.map { ChannelDescription(label: $0 == .mono ? 42 : UInt32($0.rawValue + 1)) }
        }
        return ChannelLayout(tag: ChannelLayout.useChannelDescriptions, descriptions: descriptions)
    }

    /// The WAVE default order: the first `channels` positions of the channel mask (FL FR FC LFE
    /// BL BR FLC FRC BC SL SR TC ...), which readers assume for a plain (not EXTENSIBLE) WAV.
    public static func waveDefault(channels: Int) -> SpeakerLayout {
        SpeakerLayout((0..<channels).map { Speaker(rawValue: $0) })
    }

    /// The layout a WAVE_FORMAT_EXTENSIBLE channel mask gives `channels` channels: the mask's set
    /// bits, lowest first, one per channel. Channels beyond the mask's bits (or a mask of 0,
    /// which means "no particular speaker") have no position; bits beyond the channels are ignored.
    public static func wave(mask: UInt32, channels: Int) -> SpeakerLayout {
        var speakers: [Speaker?] = []
        for bit in 0..<32 where mask & (1 << UInt32(bit)) != 0 && speakers.count < channels {
            speakers.append(Speaker(rawValue: bit))
        }
        while speakers.count < channels { speakers.append(nil) }
        return SpeakerLayout(speakers)
    }

    /// The AIFF-C channel order for `channels` channels: 1 mono; 2 left, right; 3 left, right,
    /// centre; 4 front left, front right, rear left, rear right (the quadraphonic reading of 4);
    /// 6 left, left centre, centre, right, right centre, surround. Other counts have no
    /// positions.
    public static func aiff(channels: Int) -> SpeakerLayout {
        switch channels {
        case 1: return SpeakerLayout([.mono])
        case 2: return SpeakerLayout([.frontLeft, .frontRight])
        case 3: return SpeakerLayout([.frontLeft, .frontRight, .frontCenter])
        case 4: return SpeakerLayout([.frontLeft, .frontRight, .backLeft, .backRight])
        case 6:
            return SpeakerLayout([
                .frontLeft, .frontLeftOfCenter, .frontCenter, .frontRight, .frontRightOfCenter, .backCenter,
            ])
        default: return SpeakerLayout(Array(repeating: nil, count: channels))
        }
    }

    /// The layout a CAF `chan` chunk gives `channels` channels: its channel descriptions (labels),
    /// its bitmap (the WAVE mask's bits), or one of Core Audio's layout tags (mono, stereo, the
    /// MPEG, ITU, DVD, AudioUnit and AAC surround layouts). Unknown labels and tags give no
    /// positions.
    public static func caf(_ layout: ChannelLayout, channels: Int) -> SpeakerLayout {
        if layout.tag == ChannelLayout.useChannelBitmap { return wave(mask: layout.bitmap, channels: channels) }
        var speakers: [Speaker?]
        if layout.tag == ChannelLayout.useChannelDescriptions {
            speakers = layout.descriptions.map { speaker(label: $0.label) }
        } else {
            speakers = tagLayouts[layout.tag] ?? []
        }
        if speakers.count != channels { speakers = Array(repeating: nil, count: channels) }
        return SpeakerLayout(speakers)
    }

    /// A Core Audio channel label's position (`kAudioChannelLabel_*`).
    package static func speaker(label: UInt32) -> Speaker? {
        switch label {
        case 1...18: return Speaker(rawValue: Int(label) - 1)  // Left ... TopBackRight: the WAVE bits
        case 33: return .backLeft  // RearSurroundLeft
        case 34: return .backRight  // RearSurroundRight
        case 35: return .frontLeft  // LeftWide
        case 36: return .frontRight  // RightWide
        case 37: return .lowFrequency  // LFE2
        case 42: return .mono
        case 44: return .backCenter  // CenterSurroundDirect
        case 301: return .frontLeft  // HeadphonesLeft
        case 302: return .frontRight  // HeadphonesRight
        default: return nil
        }
    }

    /// Core Audio's layout tags (`kAudioChannelLayoutTag_*`) and their channel order.
    package static let tagLayouts: [UInt32: [Speaker?]] = {
        let L = Speaker.frontLeft, R = Speaker.frontRight, C = Speaker.frontCenter, LFE = Speaker.lowFrequency
        let Ls = Speaker.backLeft, Rs = Speaker.backRight, Cs = Speaker.backCenter
        let Lc = Speaker.frontLeftOfCenter, Rc = Speaker.frontRightOfCenter
        let Rls = Speaker.sideLeft, Rrs = Speaker.sideRight
        func tag(_ code: UInt32, _ count: UInt32) -> UInt32 { code << 16 | count }
        return [
            tag(100, 1): [.mono], tag(101, 2): [L, R], tag(102, 2): [L, R], tag(106, 2): [L, R],
            tag(108, 4): [L, R, Ls, Rs], tag(109, 5): [L, R, Ls, Rs, C], tag(110, 6): [L, R, Ls, Rs, C, Cs],
            tag(111, 8): [L, R, Ls, Rs, C, Cs, Rls, Rrs],
            tag(113, 3): [L, R, C], tag(114, 3): [C, L, R], tag(115, 4): [L, R, C, Cs], tag(116, 4): [C, L, R, Cs],
            tag(117, 5): [L, R, C, Ls, Rs], tag(118, 5): [L, R, Ls, Rs, C], tag(119, 5): [L, C, R, Ls, Rs],
            tag(120, 5): [C, L, R, Ls, Rs],
            tag(121, 6): [L, R, C, LFE, Ls, Rs], tag(122, 6): [L, R, Ls, Rs, C, LFE], tag(123, 6): [L, C, R, Ls, Rs, LFE],
            tag(124, 6): [C, L, R, Ls, Rs, LFE], tag(125, 7): [L, R, C, LFE, Ls, Rs, Cs],
            tag(126, 8): [L, R, C, LFE, Ls, Rs, Lc, Rc], tag(127, 8): [C, Lc, Rc, L, R, Ls, Rs, LFE],
            tag(128, 8): [L, R, C, LFE, Ls, Rs, Rls, Rrs], tag(129, 8): [L, R, Ls, Rs, C, LFE, Lc, Rc],
            tag(131, 3): [L, R, Cs], tag(132, 4): [L, R, Ls, Rs],
            tag(133, 3): [L, R, LFE], tag(134, 4): [L, R, LFE, Cs], tag(135, 5): [L, R, LFE, Ls, Rs],
            tag(136, 4): [L, R, C, LFE], tag(137, 5): [L, R, C, LFE, Cs], tag(138, 5): [L, R, Ls, Rs, LFE],
            tag(139, 6): [L, R, Ls, Rs, C, Cs], tag(140, 7): [L, R, Ls, Rs, C, Rls, Rrs],
            tag(148, 7): [L, R, Ls, Rs, C, Lc, Rc],
            tag(141, 6): [C, L, R, Ls, Rs, Cs], tag(142, 7): [C, L, R, Ls, Rs, Cs, LFE],
            tag(143, 7): [C, L, R, Ls, Rs, Rls, Rrs], tag(144, 8): [C, L, R, Ls, Rs, Rls, Rrs, Cs],
            tag(150, 3): [L, C, R], tag(151, 4): [L, C, R, Cs], tag(152, 4): [L, C, R, LFE],
            tag(153, 4): [L, R, Cs, LFE], tag(154, 5): [L, C, R, Cs, LFE],
        ]
    }()
}

/// A problem with a channel conversion: what cannot be mixed, and why.
public struct ChannelMixError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One sentence naming the problem and what to do.
    public var message: String
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// How output channels are made from input channels: `output[o] = Σ gains[o][i] · input[i]`.
public struct ChannelMatrix: Equatable, Sendable {
    /// One row per output channel, one gain per input channel.
    public var gains: [[Double]]
    /// What it does, for the report: `mixed 2→1`, `kept channels 1-2 of 6`.
    public var name: String

    /// Whether each output channel is its own input channel times a gain (`--loudness`'s gain
    /// alone): the channels keep their positions.
    public var isDiagonal: Bool {
        gains.enumerated().allSatisfy { row, inputs in
            inputs.enumerated().allSatisfy { column, gain in column == row || gain == 0 }
        }
    }

    /// Input channels.
    public var inputChannels: Int { gains.first?.count ?? 0 }
    /// Output channels.
    public var outputChannels: Int { gains.count }

    /// The matrix taking `inputs` channels laid out as `layout` to `outputs` channels.
    ///
    /// With `mix`: 1 → 2 copies the channel into both; 2 → 1 averages them (each at 0.5, -6 dB);
    /// N → 2 and N → 1 (N > 2) use the downmix of each position (``Speaker``, ITU-R BS.775),
    /// N → 1 being the average of the N → 2 pair, and every row is divided by the largest sum of
    /// absolute gains of any row, so that full-scale input cannot clip. Other counts with `mix`
    /// have no standard downmix and throw. Without `mix`, output channel `k` is input channel `k`
    /// (channels past the input's are silent).
    public static func make(
        inputs: Int, outputs: Int, layout: SpeakerLayout?, mix: Bool
    ) throws(ChannelMixError) -> ChannelMatrix {
        precondition(inputs > 0 && outputs > 0)
        if !mix {
            let gains = (0..<outputs).map { o in (0..<inputs).map { i in i == o ? 1.0 : 0.0 } }
            let name =
                outputs <= inputs
                ? "kept channel\(outputs == 1 ? " 1" : "s 1-\(outputs)") of \(inputs) (--no-mix)"
                : "kept \(inputs) channel\(inputs == 1 ? "" : "s"), added \(outputs - inputs) silent (--no-mix)"
            return ChannelMatrix(gains: gains, name: name)
        }
        if inputs == outputs {
            return ChannelMatrix(gains: (0..<outputs).map { o in (0..<inputs).map { $0 == o ? 1.0 : 0.0 } }, name: "kept")
        }
        if inputs == 1 && outputs == 2 { return ChannelMatrix(gains: [[1], [1]], name: "duplicated 1→2") }
        guard outputs <= 2 else {
            throw ChannelMixError(
                "there is no standard mix of \(inputs) channel\(inputs == 1 ? "" : "s") into \(outputs) (cafconv mixes 1 into 2, and any count into 1 or 2); use --no-mix to keep the first \(outputs) channels"
            )
        }
        var pairs: [(left: Double, right: Double)]
        if inputs == 2 && (layout == nil || layout?.isComplete == false) {
            pairs = [(1, 0), (0, 1)]
        } else {
            guard let layout, layout.isComplete, layout.speakers.count == inputs else {
                let known = layout.map { " (\($0))" } ?? ""
                throw ChannelMixError(
                    "the source's \(inputs) channels have no known speaker positions\(known), so there is no standard downmix; use --no-mix to keep the first \(outputs) channel\(outputs == 1 ? "" : "s")"
                )
            }
            pairs = layout.speakers.map { ($0 ?? .lowFrequency).stereoGains }
        }
        var rows: [[Double]] =
            outputs == 2 ? [pairs.map(\.left), pairs.map(\.right)] : [pairs.map { ($0.left + $0.right) / 2 }]
        let largest = rows.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 0
        guard largest > 0 else {
            throw ChannelMixError(
                "the source's channels (\(layout?.description ?? "")) hold no position that mixes into \(outputs == 1 ? "mono" : "stereo") (LFE is dropped); use --no-mix to keep the first \(outputs)"
            )
        }
        rows = rows.map { $0.map { $0 / largest } }
        return ChannelMatrix(gains: rows, name: "mixed \(inputs)→\(outputs)")
    }

    /// Applies the matrix to `frames` interleaved frames of `input` into `output`. Each output
    /// sample is the sum of its row's non-zero terms, in channel order (the same bits every time).
    package func apply(_ input: UnsafeBufferPointer<Double>, frames: Int, into output: UnsafeMutableBufferPointer<Double>) {
        let ins = inputChannels
        let outs = outputChannels
        // The non-zero terms of each row: (input channel, gain).
        let terms = gains.map { row in row.indices.filter { row[$0] != 0 }.map { ($0, row[$0]) } }
        if outs == 1, let only = terms.first, only.count == 2, only[0].1 == 0.5, only[1].1 == 0.5 {
            let (a, b) = (only[0].0, only[1].0)
            for frame in 0..<frames { output[frame] = 0.5 * input[frame * ins + a] + 0.5 * input[frame * ins + b] }
            return
        }
        for frame in 0..<frames {
            let from = frame * ins
            let to = frame * outs
            for o in 0..<outs {
                var sum = 0.0
                for (i, gain) in terms[o] { sum += gain * input[from + i] }
                output[to + o] = sum
            }
        }
    }
}
