import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One user of the playground: their client, their live channel list, the typing users of the
/// channels in it.
@MainActor
final class Participant {
    let id: String
    let client: ChatClient
    let list: LiveCollection<Channel>
    var typing: [String: LiveObject<Set<String>>] = [:]
    var tokens: [NotificationToken] = []
    var online = false
    /// Whether the connection is up, and whether it has been before: a reconnect is checked for
    /// a server that started over (``Playground/noticeConnection(of:)``).
    var isConnected = false
    var hasConnected = false
    /// When the #general this user was shown was made: a #general made at another time is one a
    /// server that started over made anew.
    var generalCreatedAt: Date?
    /// Connecting again and again, while the server could not be reached at start.
    var connecting: Task<Void, Never>?
    /// The channel whose messages the participant has open (shown below the panes while they
    /// act), and its live message list.
    var openChannel: String?
    var messages: LiveCollection<Message>?
    var messagesToken: NotificationToken?

    init(id: String, transport: any ChatTransport, persistence: Persistence = .inMemory) {
        self.id = id
        client = ChatClient(transport: transport, persistence: persistence)
        let query = ChannelListQuery(
            filter: .containMembers(userIds: [id]),
            sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)
        list = ChannelRepository(client: client).getChannels(query: query)
    }
}
