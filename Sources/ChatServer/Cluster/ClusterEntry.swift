import ChatAPI
import Foundation

/// One entry of the change log of a cluster (``ServerChangeLog``): what a node asks the
/// service to do, applied by every node in log order (``ServerEngine/apply(_:)``). Every
/// outcome of an entry is a function of the state before it and the entry alone — its time
/// included — so every node computes the same state.
struct ClusterEntry: Codable, Sendable {
    /// The node that wrote it.
    var node: String
    /// What its writer waits on (0: nothing).
    var ref: UInt64
    /// When it was written, by its writer's clock; applied at the latest of this and the time
    /// of the entries before it, so time never goes backwards.
    var time: Date
    var kind: Kind

    enum Kind: Codable, Sendable {
        /// A client's request.
        case request(userId: String, deviceId: String, request: ChatRequest)
        /// A device connects to `node` (``ClusterEntry/node``), resuming after `resumeAfter`.
        case attach(userId: String, deviceId: String, resumeAfter: Int?)
        /// The connection of a device, made by the attach at `attachedAt`, has ended.
        case detach(userId: String, deviceId: String, attachedAt: Int)
        /// A console call.
        case console(ConsoleCall)
        /// Time has passed: timers due by ``ClusterEntry/time`` expire.
        case tick
        /// A node is gone (it said so, or stopped beating): its devices are disconnected.
        case nodeDown(String)
    }

    static func decode(_ bytes: [UInt8]) throws(ChatError) -> ClusterEntry {
        do {
            return try decoder.decode(ClusterEntry.self, from: Data(bytes))
        } catch {
            throw .unavailable("the change log holds an entry that cannot be read: \(error)")
        }
    }

    func encoded() -> [UInt8] {
        // Every field is a plain value: encoding cannot fail.
        [UInt8](try! Self.encoder.encode(self))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}

/// A console call of ``ChatServer``, as a cluster logs it.
enum ConsoleCall: Codable, Sendable {
    case registerUser(id: String, displayName: String?, isAdmin: Bool)
    case createChannel(ChannelDraft)
    case updateChannel(ChannelChanges)
    case addMembers([String], channelId: String)
    case sendMessage(userId: String, MessageDraft)
    case deleteChannel(String)
}

/// What the node that wrote an entry gets back once it is applied.
enum ClusterOutcome: Sendable {
    case response(ResponseEnvelope)
    case connected(ConnectResult, linkId: UInt64)
    case user(User)
    case channel(Channel)
    case message(Message)
    case done
}
