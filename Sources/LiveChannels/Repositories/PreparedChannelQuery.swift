import ChatAPI
import LiveCore

/// A channel query ready to run: `query()` returns its live list.
public struct PreparedChannelQuery: Sendable {
    let client: ChatClient
    /// The query this will run.
    public let listQuery: ChannelListQuery

    /// The live list of matching channels (first page loading now).
    public func query() -> LiveCollection<Channel> {
        client.liveChannelList(listQuery)
    }
}
