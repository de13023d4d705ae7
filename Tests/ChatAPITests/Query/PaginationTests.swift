import ChatAPI
import Foundation
import TestSupport
import Testing

@Suite struct PaginationTests {
    @Test func pagesFollowTheCursor() throws {
        let channels = (0..<5).map {
            Channel(channelId: "c\($0)", type: .community, memberCount: $0)
        }
        let query = ChannelListQuery(
            sort: [Sorting(key: .memberCount, isAscending: false)], pageSize: 2)
        let first = try query.page(of: channels, after: nil, limit: query.pageSize)
        #expect(first.items.map(\.channelId) == ["c4", "c3"])
        #expect(first.hasNext)
        let second = try query.page(of: channels, after: first.next, limit: query.pageSize)
        #expect(second.items.map(\.channelId) == ["c2", "c1"])
        let third = try query.page(of: channels, after: second.next, limit: query.pageSize)
        #expect(third.items.map(\.channelId) == ["c0"])
        #expect(!third.hasNext)
        let empty = try query.page(of: channels, after: third.next, limit: query.pageSize)
        #expect(empty.items.isEmpty && !empty.hasNext && empty.next == third.next)
        #expect(query.isAfter(channels[0], cursor: second.next))
        #expect(!query.isAfter(channels[2], cursor: second.next))
    }

    @Test func cursorSurvivesRoundTripAndRejectsOtherOrderings() throws {
        let channel = Channel(channelId: "c1", type: .live, displayName: "x")
        let query = ChannelListQuery(sort: [Sorting(key: .displayName)])
        let cursor = try roundTrip(query.cursor(after: channel))
        #expect(cursor == query.cursor(after: channel))
        let other = ChannelListQuery(sort: [Sorting(key: .displayName, isAscending: true)])
        #expect(throws: ChatError.self) { try other.page(of: [channel], after: cursor, limit: 5) }
        #expect(throws: ChatError.self) { try query.page(of: [channel], after: nil, limit: 0) }
        // The filter is not part of the ordering: a cursor stays usable when only the filter differs.
        let filtered = ChannelListQuery(filter: .exists(.displayName), sort: query.sort)
        #expect(try filtered.page(of: [channel], after: cursor, limit: 5).items.isEmpty)
    }

    /// Walk a randomly sorted, filtered list page by page while channels are inserted and removed
    /// between pages: nothing is visited twice, visits follow the order, and every channel that
    /// matched throughout is visited.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18, 19, 20] as [UInt64])
    func walkingPagesVisitsEveryStableElementOnce(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for round in 0..<20 {
            let filter: Filter = [
                .all, .equal(.joined, to: true), .exists(.displayName),
                .in(.type, values: [.live, .community, .broadcast]),
            ]
            .randomElement(using: &generator)!
            let query = ChannelListQuery(
                filter: filter, sort: RandomChannels.sort(using: &generator),
                pageSize: Int.random(in: 1...7, using: &generator))
            var current = RandomChannels.channels(
                count: Int.random(in: 0...40, using: &generator), using: &generator)
            var nextId = current.count
            var everRemoved: Set<String> = []
            var visited: [Channel] = []
            var cursor: PageCursor?
            let initialIds = Set(current.map(\.channelId))
            var pages = 0
            repeat {
                let page = try query.page(
                    of: current.filter { query.filter.matches($0, memberIds: []) }, after: cursor,
                    limit: query.pageSize)
                visited += page.items
                cursor = page.next
                pages += 1
                if !page.hasNext { break }
                for _ in 0..<Int.random(in: 0...3, using: &generator) {
                    if Bool.random(using: &generator), !current.isEmpty {
                        let removed = current.remove(
                            at: Int.random(in: 0..<current.count, using: &generator))
                        everRemoved.insert(removed.channelId)
                    } else {
                        current.append(RandomChannels.channel(id: "c\(nextId)", using: &generator))
                        nextId += 1
                    }
                }
            } while pages < 200
            let context =
                "seed \(seed) round \(round) sort \(query.sort) pageSize \(query.pageSize)"
            let visitedIds = visited.map(\.channelId)
            #expect(Set(visitedIds).count == visitedIds.count, "duplicates: \(context)")
            #expect(
                zip(visited, visited.dropFirst()).allSatisfy { query.areInIncreasingOrder($0, $1) },
                "out of order: \(context)")
            let stable = current.filter {
                initialIds.contains($0.channelId) && !everRemoved.contains($0.channelId)
                    && query.filter.matches($0, memberIds: [])
            }
            #expect(
                Set(stable.map(\.channelId)).isSubset(of: Set(visitedIds)), "missed: \(context)")
        }
    }
}
