/// `--loudness-group`: the one gain of a group of files, planned from all of them measured
/// together (BS.1770's gating over every member's blocks), and what the converter needs of it for
/// one member: the member's own loudness (its output is re-measured against it plus the gain).
public struct LoudnessGroupPlan: Sendable, Equatable {
    /// The group as the report names it: the folder, or the name the rules or command line gave.
    public var name: String
    /// Files in the group.
    public var members: Int
    /// The group's integrated loudness, LUFS (all members' gating blocks gated together).
    public var loudness: Double
    /// The group's one gain, dB.
    public var gain: Double
    /// The loudness asked and the loudness the group reaches (less when the ceiling capped the
    /// gain), LUFS; the true-peak ceiling, dBTP.
    public var target: Double, reached: Double, ceiling: Double
    /// This member's own integrated loudness (`nil`: silent), and whether it is a short clip.
    public var memberLoudness: Double?
    public var memberShortClip: Bool
    /// Why the group has no gain (a member that cannot be measured, a silent group): every
    /// member fails with it.
    public var failure: SourceFailure?

    public init(
        name: String, members: Int, loudness: Double, gain: Double, target: Double, reached: Double, ceiling: Double,
        memberLoudness: Double?, memberShortClip: Bool, failure: SourceFailure? = nil
    ) {
        self.name = name
        self.members = members
        self.loudness = loudness
        self.gain = gain
        self.target = target
        self.reached = reached
        self.ceiling = ceiling
        self.memberLoudness = memberLoudness
        self.memberShortClip = memberShortClip
        self.failure = failure
    }

    /// Whether the ceiling capped the group's gain.
    public var isCapped: Bool { target - reached > 0 }
}
