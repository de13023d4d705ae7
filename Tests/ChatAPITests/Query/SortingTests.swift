import ChatAPI
import Foundation
import TestSupport
import Testing

@Suite struct SortingTests {
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func ids(_ channels: [Channel], _ sort: [Sorting]) -> [String] {
        let query = ChannelListQuery(sort: sort)
        return channels.sorted(by: query.areInIncreasingOrder).map(\.channelId)
    }

    @Test func defaultIsLastMessageElseCreatedDescending() {
        let channels = [
            Channel(channelId: "old", type: .community, createdAt: Self.date(100)),
            Channel(channelId: "new", type: .community, createdAt: Self.date(500)),
            Channel(
                channelId: "talked", type: .community, createdAt: Self.date(50),
                lastMessageAt: Self.date(400)),
            Channel(
                channelId: "recent", type: .community, createdAt: Self.date(10),
                lastMessageAt: Self.date(900)),
        ]
        #expect(Self.ids(channels, [.default]) == ["recent", "new", "talked", "old"])
        #expect(ChannelListQuery().sort == [.default])
        #expect(
            Self.ids(channels, [Sorting(key: .default, isAscending: true)]) == [
                "old", "talked", "new", "recent",
            ])
    }

    @Test func missingSortsSmallest() {
        let channels = [
            Channel(channelId: "b", type: .live, displayName: "Beta"),
            Channel(channelId: "n", type: .live),
            Channel(channelId: "a", type: .live, displayName: "alpha"),
        ]
        #expect(
            Self.ids(channels, [Sorting(key: .displayName, isAscending: true)]) == ["n", "a", "b"])
        #expect(
            Self.ids(channels, [Sorting(key: .displayName, isAscending: false)]) == ["b", "a", "n"])
        #expect(
            Self.ids(channels, [Sorting(key: .lastMessageAt, isAscending: true)]) == [
                "a", "b", "n",
            ])
    }

    @Test func tiesBreakByChannelIdAscendingEvenWhenDescending() {
        let channels = ["z", "m", "a"].map {
            Channel(channelId: $0, type: .community, memberCount: 5)
        }
        #expect(
            Self.ids(channels, [Sorting(key: .memberCount, isAscending: false)]) == ["a", "m", "z"])
        #expect(Self.ids(channels, []) == ["a", "m", "z"])
    }

    @Test func textIgnoresCaseAndDiacriticsThenOriginal() {
        let names = ["beta", "alpha", "Élan", "Alpha", "elan", "Gamma"]
        let channels = names.enumerated().map {
            Channel(channelId: "c\($0.offset)", type: .community, displayName: $0.element)
        }
        let sorted = channels.sorted(
            by: ChannelListQuery(sort: [Sorting(key: .displayName, isAscending: true)])
                .areInIncreasingOrder)
        #expect(sorted.map(\.displayName) == ["Alpha", "alpha", "beta", "elan", "Élan", "Gamma"])
    }

    @Test func metadataTypesOrderMissingNumberStringObjectArrayBool() {
        let values: [JSON?] = [true, [1], ["a": 1], "s", 3, nil, .null]
        let channels = values.enumerated().map { index, value in
            Channel(
                channelId: "c\(index)", type: .community, metadata: value.map { ["k": $0] } ?? [:])
        }
        #expect(
            Self.ids(channels, [Sorting(key: .metadata("k"), isAscending: true)])
                == ["c5", "c6", "c4", "c3", "c2", "c1", "c0"])
    }

    @Test func viewerKeys() {
        let read = Channel(
            channelId: "r", type: .community, lastSequence: 5, currentUserMembership: .member,
            readSequence: 5)
        let unread = Channel(
            channelId: "u", type: .community, lastSequence: 5, currentUserMembership: .member,
            readSequence: 1)
        #expect(Self.ids([read, unread], [Sorting(key: .hasUnread)]) == ["u", "r"])
        #expect(
            Self.ids([unread, read], [Sorting(key: .unreadCount, isAscending: true)]) == ["r", "u"])
    }

    @Test func queryIdentityIncludesSort() {
        let a = ChannelListQuery(sort: [Sorting(key: .createdAt)])
        let b = ChannelListQuery(sort: [Sorting(key: .createdAt, isAscending: true)])
        #expect(a != b)
        #expect(Set([a, b, a]).count == 2)
        #expect(
            a == ChannelListQuery(filter: .and([]), sort: [Sorting(key: .createdAt)], pageSize: 20))
    }

    /// Antisymmetric, reflexive only on equal ids, transitive, and consistent with `sorted`.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func sortIsATotalOrder(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<40 {
            let sort = RandomChannels.sort(using: &generator)
            let query = ChannelListQuery(sort: sort)
            let channels = RandomChannels.channels(count: 12, using: &generator)
            func ids(_ i: Int, _ j: Int) -> String {
                "\(channels[i].channelId), \(channels[j].channelId)"
            }
            let keys = channels.map(query.sortKey)
            for (i, a) in keys.enumerated() {
                #expect(query.compare(channels[i], channels[i]) == .orderedSame, "seed \(seed)")
                for (j, b) in keys.enumerated() where j != i {
                    let ab = a.compare(b)
                    if ab == .orderedSame || ab.rawValue != -b.compare(a).rawValue {
                        Issue.record(
                            "seed \(seed): \(ids(i, j)) not strictly ordered under \(sort)")
                    }
                    if a < b, let c = keys.firstIndex(where: { b < $0 && !(a < $0) }) {
                        Issue.record(
                            "seed \(seed): not transitive over \(ids(i, j)), c\(c) under \(sort)")
                    }
                }
            }
            #expect(
                query.compare(channels[0], channels[1]) == keys[0].compare(keys[1]), "seed \(seed)")
            let sorted = channels.sorted(by: query.areInIncreasingOrder)
            let reversedInput = channels.reversed().sorted(by: query.areInIncreasingOrder)
            #expect(sorted == reversedInput, "seed \(seed): order depends on input order")
        }
    }
}
