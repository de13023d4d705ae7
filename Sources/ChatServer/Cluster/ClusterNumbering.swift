/// How a node of a cluster numbers a device's events: after the position of the change-log
/// entry that caused them, so every node gives the same event the same number and a device can
/// resume on any node. Numbers grow with positions and skip the changes a device does not see.
///
/// An entry's events for one device are numbered `position << 16 + 1`, `+ 2` …; a device's
/// replay log created while applying the entry at `position` starts after `position << 16`.
/// Numbers stay below 2^53 (exact in JSON) for positions below 2^37.
enum ClusterNumbering {
    static let shift = 16

    /// The number a replay log created at `position` starts after.
    static func base(at position: Int) -> Int { position << shift }

    /// The number of a device's next event, caused by the entry at `position`, after its
    /// newest numbered `last`.
    static func next(after last: Int, at position: Int) -> Int { max(last + 1, base(at: position) + 1) }
}
