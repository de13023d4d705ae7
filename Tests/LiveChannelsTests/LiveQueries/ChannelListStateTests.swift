import ChatAPI
import Foundation
import LiveCore
import TestSupport
import Testing

@testable import LiveChannels

@Suite struct ChannelListStateTests {
    static func channel(_ id: Int, messageAt: Double?, type: ChannelType = .community, member: Bool = true) -> Channel {
        Channel(
            channelId: String(format: "c%03d", id), type: type,
            createdAt: Date(timeIntervalSince1970: 0),
            lastMessageAt: messageAt.map(Date.init(timeIntervalSince1970:)),
            currentUserMembership: member ? .member : .none)
    }

    static let query = ChannelListQuery(
        filter: .and([.equal(.joined, to: true), .equal(.type, to: .community)]),
        sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 5)

    @Test func channelsEnterMoveAndLeave() {
        var state = ChannelListState(query: Self.query, viewerId: "me")
        state.extendWindow(with: Page(items: [], next: nil, hasNext: false))
        #expect(state.apply(Self.channel(1, messageAt: 10)) == CollectionChange(insertions: [0]))
        #expect(state.apply(Self.channel(2, messageAt: 20)) == CollectionChange(insertions: [0]))
        // A new message moves channel 1 to the top.
        #expect(
            state.apply(Self.channel(1, messageAt: 30))
                == CollectionChange(moves: [.init(from: 1, to: 0, isModified: true)]))
        // Leaving drops it.
        #expect(state.apply(Self.channel(1, messageAt: 30, member: false)) == CollectionChange(deletions: [0]))
        // Unrelated types never enter.
        #expect(state.apply(Self.channel(3, messageAt: 40, type: .live)) == nil)
        // The same value again changes nothing.
        #expect(state.apply(Self.channel(2, messageAt: 20)) == nil)
        #expect(state.items.map(\.channelId) == ["c002"])
    }

    @Test func windowBoundsTheList() {
        var state = ChannelListState(query: Self.query, viewerId: "me")
        let page = (0..<5).map { Self.channel($0, messageAt: Double(100 - $0)) }
        state.extendWindow(with: Page(items: page, next: nil, hasNext: true))
        state.rebuild(from: page)
        #expect(state.items.count == 5)
        // A channel that sorts after the window's end is on a later page: not shown yet.
        #expect(state.apply(Self.channel(9, messageAt: 1)) == nil)
        // One that sorts inside the window is shown.
        #expect(state.apply(Self.channel(8, messageAt: 99.5)) == CollectionChange(insertions: [1]))
        #expect(state.hasNext)
    }

    /// Over random update streams, the incrementally maintained list equals a from-scratch
    /// filter + sort of the cache, and every change applies cleanly to the previous items.
    @Test func incrementalMaintenanceEqualsRecomputation() {
        for seed in UInt64(1)...100 {
            var generator = SeededGenerator(seed: seed)
            var state = ChannelListState(query: Self.query, viewerId: "me")
            var cache: [String: Channel] = [:]
            let complete = seed % 2 == 0
            let initial = (0..<20).map {
                Self.channel($0, messageAt: Double.random(in: 0...100, using: &generator))
            }
            for channel in initial { cache[channel.channelId] = channel }
            let firstPage = initial.sorted { Self.query.areInIncreasingOrder($0, $1) }.prefix(5)
            state.extendWindow(with: Page(items: Array(firstPage), next: nil, hasNext: !complete))
            state.rebuild(from: cache.values)
            for _ in 0..<200 {
                let id = Int.random(in: 0..<30, using: &generator)
                let updated = Self.channel(
                    id, messageAt: Bool.random(using: &generator) ? Double.random(in: 0...100, using: &generator) : nil,
                    type: Int.random(in: 0..<5, using: &generator) == 0 ? .live : .community,
                    member: Int.random(in: 0..<4, using: &generator) != 0)
                cache[updated.channelId] = updated
                let before = state.items
                let change = state.apply(updated)
                var expected = ChannelListState(query: Self.query, viewerId: "me")
                expected.extendWindow(with: Page(items: Array(firstPage), next: nil, hasNext: !complete))
                expected.rebuild(from: cache.values)
                #expect(state.items == expected.items, "seed \(seed)")
                if let change {
                    #expect(change.applying(to: before, new: state.items) == state.items, "seed \(seed)")
                } else {
                    #expect(before == state.items, "seed \(seed)")
                }
            }
        }
    }
}
