import ChatAPI
import Foundation
import RowCoding
import Testing

@testable import ChatServer

/// The change log's entries in row coding: every kind reads back as written, a newer format is
/// named (not skipped as damage), and damaged bytes are refused.
@Suite struct ChangeEntryCodingTests {
    static let time = Date(timeIntervalSinceReferenceDate: 812_345_678.25)

    static let kinds: [ChangeEntry.Kind] = [
        .request(
            userId: "ann", deviceId: "phone",
            request: .sendMessage(
                MessageDraft(
                    channelId: "room", text: "héllo ✨", mentionedUserIds: ["bob"],
                    metadata: ["n": .number(1.5), "deep": .array([.object(["k": .null]), .bool(true)])],
                    messageId: "m-1"))),
        .request(userId: "ann", deviceId: "phone", request: .sendMessage(MessageDraft(channelId: "room", text: "x"))),
        .request(userId: "ann", deviceId: "d", request: .startReading(channelId: "room")),
        .request(userId: "ann", deviceId: "d", request: .stopReading(channelId: "room")),
        .request(userId: "ann", deviceId: "d", request: .startTyping(channelId: "room")),
        .request(userId: "ann", deviceId: "d", request: .stopTyping(channelId: "room")),
        .request(
            userId: "ann", deviceId: "d",
            request: .createChannel(
                ChannelDraft(type: .community, channelId: "c", userIds: ["a", "b"], displayName: "C", tags: ["t"]))),
        .request(userId: "ann", deviceId: "d", request: .muteMembers(channelId: "c", userIds: ["b"], period: 12.5)),
        .request(
            userId: "ann", deviceId: "d",
            request: .editMessage(messageId: "m-1", draft: MessageDraft(channelId: "c", text: "edited"))),
        .attach(userId: "ann", deviceId: "phone", resumeAfter: nil),
        .attach(userId: "ann", deviceId: "phone", resumeAfter: 65_537),
        .detach(userId: "ann", deviceId: "phone", attachedAt: 42),
        .console(.registerUser(id: "boss", displayName: nil, isAdmin: true)),
        .console(.moderate(.banMembers(channelId: "c", userIds: ["b", "d"]))),
        .console(.moderate(.deleteMessage(channelId: "c", messageId: "m-1"))),
        .console(.dismissFlags(channelId: "c", .message(messageId: "m-1"))),
        .console(.dismissFlags(channelId: "c", .user(userId: "eve"))),
        .console(.disconnect(userId: "ann", deviceId: "phone")),
        .console(.banUser(userId: "eve", banned: true)),
        .console(.removePushDevice(userId: "eve", .apn(token: Data([1, 2])))),
        .console(.removePushDevice(userId: "eve", .firebase(token: "t"))),
        .console(.moderate(.setModerationSettings(channelId: "c", ModerationSettings(blockedWords: ["x"])))),
        .console(.banUser(userId: "eve", banned: false)),
        .console(.registerUser(id: "ann", displayName: "Ann", isAdmin: false)),
        .console(.createChannel(ChannelDraft(type: .broadcast, channelId: "news", userIds: ["ann"]))),
        .console(.updateChannel(ChannelChanges(channelId: "news", displayName: "News"))),
        .console(.addMembers(["bob", "carol"], channelId: "news")),
        .console(.sendMessage(userId: "boss", MessageDraft(channelId: "news", text: "hi", mentionedUserIds: ["ann"]))),
        .console(.deleteChannel("news")),
        .tick,
        .nodeDown("node-b"),
    ]

    @Test(arguments: kinds)
    func everyKindReadsBackAsWritten(_ kind: ChangeEntry.Kind) throws {
        let entry = ChangeEntry(node: "node-a", incarnation: 3, ref: 1 << 40, time: Self.time, kind: kind)
        let bytes = try entry.encoded()
        #expect(bytes.first == ChangeEntry.format)
        #expect(try ChangeEntry.decode(bytes) == entry)
    }

    @Test func anEntryOfANewerFormatIsNamedNotSkippedAsDamage() throws {
        var bytes = try ChangeEntry(node: "n", incarnation: 1, ref: 0, time: Self.time, kind: .tick).encoded()
        bytes[0] = ChangeEntry.format + 1
        #expect {
            try ChangeEntry.decode(bytes)
        } throws: { error in
            "\(error)".contains("format \(ChangeEntry.format + 1)") && "\(error)".contains("upgrade this node")
        }
    }

    @Test func anEntryOfFormat1ReadsWithoutAnIncarnation() throws {
        // Format 1, as the servers before incarnations wrote it: no incarnation after the node.
        var writer = RowWriter(capacity: 64)
        writer.write(byte: 1)
        writer.write("node-a")
        writer.write(unsigned: 9)
        writer.write(Self.time)
        writer.write(byte: 6)  // a node down
        writer.write("node-b")
        let entry = try ChangeEntry.decode(writer.bytes)
        #expect(
            entry == ChangeEntry(node: "node-a", incarnation: 0, ref: 9, time: Self.time, kind: .nodeDown("node-b")))
    }

    @Test func anEntryOfFormat0IsRefusedAsDamaged() throws {
        var bytes = try ChangeEntry(node: "n", incarnation: 1, ref: 0, time: Self.time, kind: .tick).encoded()
        bytes[0] = 0
        #expect {
            try ChangeEntry.decode(bytes)
        } throws: { error in
            "\(error)".contains("cannot be read")
        }
    }

    @Test func anEntryInTheOldJSONFormIsNamed() {
        let old = Array(#"{"node":"n","ref":0,"time":1764000000,"kind":{"tick":{}}}"#.utf8)
        #expect {
            try ChangeEntry.decode(old)
        } throws: { error in
            "\(error)".contains("JSON form of an older server")
        }
    }

    @Test func everyTruncationOrExtraByteIsRefused() throws {
        let bytes = try ChangeEntry(node: "node-a", incarnation: 1, ref: 7, time: Self.time, kind: Self.kinds[0])
            .encoded()
        for length in 0..<bytes.count {
            #expect(throws: ChatError.self) { try ChangeEntry.decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: ChatError.self) { try ChangeEntry.decode(bytes + [0]) }
    }

    @Test func metadataTooDeepToStoreIsRefusedByName() {
        var deep = JSON.null
        for _ in 0..<200 { deep = .array([deep]) }
        let entry = ChangeEntry(
            node: "n", incarnation: 1, ref: 1, time: Self.time,
            kind: .request(
                userId: "a", deviceId: "d",
                request: .sendMessage(MessageDraft(channelId: "c", text: "t", metadata: ["k": deep]))))
        #expect(throws: ChatError.invalidArgument(field: "metadata", reason: "is nested too deep to store")) {
            try entry.encoded()
        }
    }
}
