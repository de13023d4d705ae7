import ChatAPI
import Foundation
import Locking
import Testing

@testable import ChatServer

/// A sink that keeps what it is handed.
final class RecordingPushSink: PushSink {
    private let received = Lock<[PushNotification]>([], rank: .leaf)
    func enqueue(_ notifications: [PushNotification]) { received.withLock { $0 += notifications } }
    var notifications: [PushNotification] { received.withLock { $0 } }
    func take() -> [PushNotification] {
        received.withLock { value in
            defer { value = [] }; return value
        }
    }
}

/// Who gets a push when a message is sent: every member who is not the sender, has no device
/// connected (on any node), has the channel's notifications on, in a channel not muted — one
/// push per registered device, with the payload pinned; once per message on a cluster.
@Suite struct PushDecisionTests {
    /// ann sends; bob is away with one token, frank away with two, carol online, dave away with
    /// the channel's notifications off, erin away without a token.
    static func scene(_ server: ChatServer) async throws -> (ann: TestDevice, carol: TestDevice) {
        for (id, name) in [
            ("ann", "Ann"), ("bob", "Bob"), ("carol", nil), ("dave", nil), ("erin", nil), ("frank", nil),
        ] {
            try await server.registerUser(id: id, displayName: name)
        }
        try await server.createChannel(
            type: .community, channelId: "ops", displayName: "Ops",
            userIds: ["ann", "bob", "carol", "dave", "erin", "frank"])
        for (user, tokens) in [("bob", ["b1"]), ("dave", ["d1"]), ("frank", ["f1", "f2"])] {
            let device = try await connected(server, user, "phone")
            for token in tokens { try await device.send(.addPushDevice(.firebase(token: token))) }
            if user == "dave" { try await device.send(.setChannelNotifications(channelId: "ops", enabled: false)) }
            await device.transport.disconnect()
        }
        let carol = try await connected(server, "carol", "phone")
        try await carol.send(.addPushDevice(.firebase(token: "c1")))
        return (try await connected(server, "ann", "laptop"), carol)
    }

    @Test func everyDeviceOfEveryMemberAwayGetsOnePushWithThePayload() async throws {
        let server = ChatServer()
        let sink = RecordingPushSink()
        server.deliverPushes(to: sink)
        let (ann, carol) = try await Self.scene(server)
        try await ann.send(.sendMessage(MessageDraft(channelId: "ops", text: "Deploy at 5?")))
        let pushes = sink.take()
        #expect(pushes.map { "\($0.userId):\($0.device.id)" }.sorted() == ["bob:b1", "frank:f1", "frank:f2"])
        let push = try #require(pushes.first { $0.userId == "bob" })
        #expect(push.title == "Ops" && push.body == "Ann: Deploy at 5?" && push.channelId == "ops")
        #expect(push.threadId == "ops" && push.badge == 1)
        #expect(push.messageId == server.messages(channelId: "ops").last?.messageId)
        // A second message: the badge counts both.
        try await ann.send(.sendMessage(MessageDraft(channelId: "ops", text: String(repeating: "x", count: 300))))
        let second = sink.take()
        #expect(second.first { $0.userId == "bob" }?.badge == 2)
        #expect(second.first?.body.count == 200)
        // A muted channel pushes nothing (an admin may still post in it).
        try await server.registerUser(id: "boss", isAdmin: true)
        try await server.addMembers(["boss"], to: "ops")
        let boss = try await connected(server, "boss")
        try await boss.send(.muteChannel(channelId: "ops", period: 60))
        try await boss.send(.sendMessage(MessageDraft(channelId: "ops", text: "quiet")))
        #expect(server.messages(channelId: "ops").last?.text == "quiet")
        #expect(sink.take().isEmpty)
        _ = carol
    }

    @Test func aConversationIsTitledBySenderAndNoSinkDecidesNothing() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "ann", displayName: "Ann")
        try await server.registerUser(id: "bob")
        let bob = try await connected(server, "bob", "phone")
        try await bob.send(.addPushDevice(.apn(token: Data([1]))))
        await bob.transport.disconnect()
        let ann = try await connected(server, "ann")
        let answer = try await ann.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["bob"])))
        guard case .channel(let channel) = answer else { throw ChatError.unavailable("not a channel") }
        try await ann.send(.sendMessage(MessageDraft(channelId: channel.channelId, text: "hi")))  // no sink yet
        let sink = RecordingPushSink()
        server.deliverPushes(to: sink)
        try await ann.send(.sendMessage(MessageDraft(channelId: channel.channelId, text: "hello")))
        #expect(sink.notifications.map(\.title) == ["Ann"])
        #expect(sink.notifications.first?.badge == 2)
        // A message the console sends as ann pushes too.
        try await server.sendMessage(as: "ann", channelId: channel.channelId, text: "from the backend")
        #expect(sink.notifications.count == 2)
    }

    @Test func aClusterPushesOncePerMessageAndCountsDevicesOnEveryNode() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        let sinks = [RecordingPushSink(), RecordingPushSink()]
        for (node, sink) in zip(nodes, sinks) { node.deliverPushes(to: sink) }
        try await nodes[0].createChannel(type: .community, channelId: "c", userIds: ["alice", "bob", "carol"])
        let bob = try await connected(nodes[1], "bob", "phone")
        try await bob.send(.addPushDevice(.firebase(token: "bob-token")))
        let carol = try await connected(nodes[1], "carol", "phone")
        try await carol.send(.addPushDevice(.firebase(token: "carol-token")))
        await carol.transport.disconnect()
        let alice = try await connected(nodes[0], "alice")
        try await ClusterTests.settle(nodes, log)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "one")))
        try await ClusterTests.settle(nodes, log)
        // carol is away everywhere: one push, from the node that wrote the message; bob is
        // connected to the other node: none.
        #expect(sinks[0].take().map(\.userId) == ["carol"])
        #expect(sinks[1].take().isEmpty)
        _ = bob
    }
}
