import ChatAPI
import Foundation
import Testing

@Suite struct FilterCodableTests {
    @Test(arguments: FilterTable.cases)
    func roundTrip(_ row: FilterCase) throws {
        #expect(try ChatAPITests.roundTrip(row.filter) == row.filter)
    }

    @Test func wireFormIsMongoStyle() throws {
        let filter: Filter = .and([
            .containMembers(userIds: ["alice"]), .equal(.type, to: .community),
            .equal("state", to: "LA"), .greater(.memberCount, than: 10),
            .exists(.lastMessageAt, exists: false),
        ])
        #expect(
            try jsonText(filter)
                == #"{"$and":[{"members":{"$all":["alice"]}},{"type":{"$eq":"community"}},"#
                + #"{"metadata.state":{"$eq":"LA"}},{"memberCount":{"$gt":10}},"#
                + #"{"lastMessageAt":{"$exists":false}}]}"#)
        #expect(
            try jsonText(Filter.nor([.autocomplete(.displayName, text: "ops")]))
                == #"{"$nor":[{"displayName":{"$autocomplete":"ops"}}]}"#)
        #expect(try jsonText(Filter.all) == #"{"$and":[]}"#)
    }

    @Test func decodesShorthands() throws {
        #expect(try decode(Filter.self, from: "{}") == .all)
        #expect(
            try decode(Filter.self, from: #"{"metadata.state":"LA"}"#) == .equal("state", to: "LA"))
        #expect(
            try decode(Filter.self, from: #"{"memberCount":{"$gt":10,"$lt":50}}"#)
                == .and([.greater(.memberCount, than: 10), .less(.memberCount, than: 50)]))
        #expect(
            try decode(Filter.self, from: #"{"type":{"$in":["live"]},"memberCount":{"$gte":2}}"#)
                == .and([.greaterOrEqual(.memberCount, than: 2), .in(.type, values: [.live])]))
        #expect(
            try decode(Filter.self, from: #"{"metadata.obj":{"a":1}}"#)
                == .equal("obj", to: ["a": 1]))
    }

    @Test(arguments: [
        (#"{"colour":{"$eq":"red"}}"#, "colour"),
        (#"{"type":{"$regex":"li"}}"#, "type"),
        (#"{"tags":{"$in":"ios"}}"#, "tags"),
        (#"{"metadata.x":{"$exists":1}}"#, "metadata.x"),
        (#"{"displayName":{"$autocomplete":3}}"#, "displayName"),
    ])
    func rejectsUnknownOrMalformed(_ text: String, _ field: String) {
        do {
            _ = try decode(Filter.self, from: text)
            Issue.record("decoded \(text)")
        } catch let ChatError.invalidArgument(name, _) {
            #expect(name == field)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func sortingKeysRoundTripByName() throws {
        let keys: [ChannelSortingKey] = [
            .default, .createdAt, .updatedAt, .lastMessageAt, .lastActivity, .memberCount,
            .displayName, .unreadCount, .hasUnread, .channelId, .metadata("custom_score.value"),
        ]
        for key in keys {
            #expect(try ChatAPITests.roundTrip(Sorting(key: key, isAscending: true)).key == key)
            #expect(ChannelSortingKey(name: key.name) == key)
        }
        #expect(
            try jsonText(Sorting(key: .metadata("a.b")))
                == #"{"isAscending":false,"key":"metadata.a.b"}"#)
        #expect(throws: ChatError.self) { try decode(ChannelSortingKey.self, from: #""bogus""#) }
    }
}
