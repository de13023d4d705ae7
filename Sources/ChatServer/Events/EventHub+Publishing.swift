import ChatAPI

/// The parts of publishing (``EventHub/publish(_:state:faults:now:)``) that need none of the
/// hub's state: an audience without repeats, and each emission rendered once per view (the
/// recipients who see a change alike share one event and its encoding).
extension EventHub {
    /// `ids` without repeats (in no particular order): a short list is checked pairwise, without
    /// hashing (an audience is most often one user or a small channel's members).
    ///
    /// - Complexity: O(n²) up to 8 ids, else O(n).
    static func unique(_ ids: [String]) -> [String] {
        guard ids.count > 1 else { return ids }
        guard ids.count <= 8 else { return Array(Set(ids)) }
        var unique: [String] = []
        unique.reserveCapacity(ids.count)
        for id in ids where !unique.contains(id) { unique.append(id) }
        return unique
    }

    /// The event of one emission for one view, made once and shared by every recipient with
    /// that view; from its second recipient device on, their envelopes share its JSON too
    /// (`SharedEventEncoding`: a view seen by one device allocates nothing for it).
    struct RenderedView {
        var event: ChatEvent
        var encoding: SharedEventEncoding?
    }

    /// The views of one emission rendered so far (`nil` when the emission tells that view
    /// nothing). Most emissions have one or two views (the sender's and everyone else's): those
    /// are kept inline, the others in a dictionary made only when needed.
    struct ViewMemo {
        typealias Key = ServerState.ChannelView?
        private var first: (key: Key, rendered: RenderedView?)?
        private var second: (key: Key, rendered: RenderedView?)?
        private var others: [Key: RenderedView?] = [:]

        /// `nil` when `key` was not rendered yet; else its rendering (`nil`: nothing to tell).
        func lookup(_ key: Key) -> RenderedView?? {
            if let first, first.key == key { return .some(first.rendered) }
            if let second, second.key == key { return .some(second.rendered) }
            return others[key]
        }

        mutating func store(_ rendered: RenderedView?, for key: Key) {
            if first == nil || first!.key == key {
                first = (key, rendered)
            } else if second == nil || second!.key == key {
                second = (key, rendered)
            } else {
                others[key] = .some(rendered)
            }
        }
    }

    /// The channel value last rendered while publishing, for its channel and view: the events
    /// of one change often carry the same channel as the same viewer sees it (a send's
    /// `messageNew` and `readMarkerMoved` for its sender), and share one value — a rendering
    /// copies the channel's fields. Valid for one publishing only, while the state is unchanged.
    struct ChannelMemo {
        private var last: (channelId: String, view: ServerState.ChannelView, channel: Channel)?

        /// The channel `channelId` as `view` sees it: the last one rendered if it is that one,
        /// else what `render` makes (then kept).
        /// - Complexity: O(1) besides `render`.
        mutating func channel(
            _ channelId: String, as view: ServerState.ChannelView, render: () -> Channel
        ) -> Channel {
            if let last, last.view == view, last.channelId == channelId {
                assert(last.channel == render(), "channel '\(channelId)' changed within one publishing")
                return last.channel
            }
            let channel = render()
            last = (channelId, view, channel)
            return channel
        }
    }
}
