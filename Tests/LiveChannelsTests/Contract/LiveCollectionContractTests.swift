import ChatServer
import Foundation
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for live collections and `CollectionChange`: changes
/// that apply to the delivered snapshots, the state seen inside a callback, paging both ways, and
/// the diff of any `Identifiable & Equatable` elements. Snippet by snippet, written as a user's app
/// would write it: only `import LiveChannels` and `import ChatServer`, no `@testable`. Every name,
/// label and shape pinned there must compile here, and every behaviour stated there is asserted.
/// The helpers the contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct LiveCollectionContractTests {

    @Test func collectionObserveDeliversChangesThatApplyToTheDeliveredSnapshots() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for id in ["a", "b", "c", "d"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setUserIds(["bob"])
            _ = try await repository.createChannel(with: builder)
        }
        // Most recent activity first; membership filter so that leaving deletes.
        let collection = repository.getChannels()
            .communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).query()
        let synchronous = Log<(snapshots: [Channel], change: CollectionChange?)>()
        let token = collection.observe(on: .synchronous) { collection, change, error in
            synchronous.append((collection.snapshots, change))
        }
        MainQueue.prepare()
        let onMain = Log<(onMain: Bool, snapshots: [Channel], change: CollectionChange?)>()
        let mainToken = collection.observe { collection, change, error in
            // change: CollectionChange? — nil on the first call
            let _: [Int]? = change?.deletions  // old indices
            let _: [Int]? = change?.insertions  // new indices
            let _: [Int]? = change?.modifications  // old indices
            let _: [Int]? = change?.modificationsInNew  // new indices
            let _: [CollectionChange.Move]? = change?.moves
            let _: Int? = change?.moves.first?.from
            let _: Int? = change?.moves.first?.to
            let _: Bool? = change?.moves.first?.isModified
            let _: (any Error)? = error
            onMain.append((MainQueue.isCurrent, collection.snapshots, change))
        }
        for await update in collection.updates where update.snapshots.count == 4 { break }
        #expect(ids(collection.snapshots) == ["d", "c", "b", "a"])

        // A message moves "a" to the top (and changes it: a move marked isModified).
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "a", text: "hi", mentionedUserIds: [])
        for await update in collection.updates where ids(update.snapshots).first == "a" { break }
        // A rename in place (a modification), a leave (a deletion), a new channel (an insertion).
        let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
        updater.setDisplayName("C")
        _ = try await repository.updateChannel(with: updater)
        try await repository.leaveChannel("b")
        let builder = CommunityChannelBuilder()
        builder.setId("e")
        _ = try await repository.createChannel(with: builder)
        for await update in collection.updates
        where ids(update.snapshots) == ["e", "a", "d", "c"] && update.snapshots.last?.displayName == "C" {
            break
        }

        #expect(await eventually { onMain.all.last.map { ids($0.snapshots) } == ["e", "a", "d", "c"] })
        #expect(await eventually { synchronous.all.last.map { ids($0.snapshots) } == ["e", "a", "d", "c"] })
        for (name, deliveries) in [
            ("synchronous", synchronous.all), ("main", onMain.all.map { ($0.snapshots, $0.change) }),
        ] {
            #expect(deliveries.first?.change == nil, "\(name): the first call has no change")
            for index in deliveries.indices.dropFirst() {
                let (old, new) = (deliveries[index - 1].snapshots, deliveries[index].snapshots)
                guard let change = deliveries[index].change else {
                    Issue.record("\(name): delivery \(index) has no change")
                    continue
                }
                #expect(apply(change, to: old, new: new) == new, "\(name): delivery \(index): \(change)")
            }
        }
        #expect(onMain.all.allSatisfy { $0.onMain })
        let changes = synchronous.all.compactMap(\.change)
        #expect(changes.contains { change in change.moves.contains { $0.isModified } })
        #expect(changes.contains { !$0.deletions.isEmpty })
        #expect(changes.contains { !$0.insertions.isEmpty })
        #expect(changes.contains { !$0.modifications.isEmpty && !$0.modificationsInNew.isEmpty })
        token.invalidate()
        mainToken.invalidate()

        // The latest state, outside callbacks.
        let snapshots: [Channel] = collection.snapshots
        let count: Int = collection.count
        #expect(count == snapshots.count)
        let first: Channel? = collection.object(at: 0)
        #expect(first?.channelId == "e")
        #expect(collection.object(at: 99) == nil)
        let hasNext: Bool = collection.hasNext
        let hasPrevious: Bool = collection.hasPrevious
        #expect(!hasNext && !hasPrevious)
        let collectionError: (any Error)? = collection.error
        #expect(collectionError == nil)
    }

    @Test func insideACallbackTheCollectionShowsTheDeliveredStateOutsideTheNewest() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        let first = CommunityChannelBuilder()
        first.setId("first")
        _ = try await repository.createChannel(with: first)
        let list = repository.getChannels(query: ChannelListQuery(filter: .equal(.type, to: .community)))
        for await update in list.updates where update.snapshots.count == 1 { break }

        let queue = DispatchQueue(label: "APIContractTests.delivery")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let seen = Log<(before: [String], after: [String], outside: [String])>()
        let token = list.observe(on: .queue(queue)) { collection, change, _ in
            guard change == nil else { return }
            let before = ids(collection.snapshots)
            entered.signal()
            proceed.wait()
            seen.append((before, ids(collection.snapshots), ids(list.snapshots)))
        }
        await wait(for: entered)
        let second = CommunityChannelBuilder()
        second.setId("second")
        _ = try await repository.createChannel(with: second)
        for await update in list.updates where update.snapshots.count == 2 { break }
        proceed.signal()
        #expect(await eventually { seen.count == 1 })
        #expect(seen.all.first?.before == ["first"])
        #expect(seen.all.first?.after == ["first"])
        #expect(Set(seen.all.first?.outside ?? []) == ["first", "second"])
        token.invalidate()
    }

    @Test func collectionPaging() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        for id in ["p1", "p2", "p3"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            _ = try await repository.createChannel(with: builder)
        }
        let collection = repository.getChannels(
            query: ChannelListQuery(
                filter: .equal(.type, to: .community), sort: [Sorting(key: .createdAt, isAscending: true)],
                pageSize: 2))
        for await update in collection.updates where update.loadingStatus == .loaded && update.snapshots.count == 2 {
            break
        }
        #expect(ids(collection.snapshots) == ["p1", "p2"])
        #expect(collection.hasNext)
        #expect(!collection.hasPrevious)
        collection.nextPage()
        for await update in collection.updates where update.snapshots.count == 3 && update.loadingStatus != .loading {
            let _: CollectionUpdate<Channel> = update
            let _: [Channel] = update.snapshots
            let _: CollectionChange? = update.change
            break
        }
        #expect(ids(collection.snapshots) == ["p1", "p2", "p3"])
        #expect(!collection.hasNext)
        collection.previousPage()  // nothing before the first page of a channel list
        #expect(collection.count == 3)

        // An invalid query reports its error through the collection.
        let invalid = repository.getChannels(
            query: ChannelListQuery(filter: .all, sort: [Sorting(key: .default, isAscending: false)], pageSize: 0))
        for await update in invalid.updates where update.loadingStatus != .loading { break }
        guard case .invalidArgument = invalid.error as? ChatError else {
            Issue.record("pageSize 0: expected invalidArgument, got \(String(describing: invalid.error))")
            return
        }

        // Backwards paging: a message list starts with the newest page.
        let messages = MessageRepository(client: alice)
        for number in 1...35 {
            _ = try await messages.sendMessage(channelId: "p1", text: "m\(number)", mentionedUserIds: [])
        }
        let list = messages.getMessages(channelId: "p1")
        for await update in list.updates where update.loadingStatus == .loaded && !update.snapshots.isEmpty { break }
        #expect(list.hasPrevious)
        #expect(list.count < 35)
        #expect(list.object(at: list.count - 1)?.text == "m35")
        list.previousPage()
        for await update in list.updates where update.snapshots.count == 35 && update.loadingStatus != .loading {
            break
        }
        #expect(!list.hasPrevious)
        #expect(list.object(at: 0)?.text == "m1")
    }

    // MARK: CollectionChange

    @Test func collectionChangeDiffsAnyIdentifiableEquatableElements() {
        let old = [Row(id: "a", text: "a"), Row(id: "b", text: "b"), Row(id: "c", text: "c"), Row(id: "d", text: "d")]
        let new = [
            Row(id: "d", text: "d2"), Row(id: "a", text: "a"), Row(id: "c", text: "c2"), Row(id: "e", text: "e"),
        ]
        let diff = CollectionChange(from: old, to: new)
        #expect(diff.deletions == [1])  // b, old index
        #expect(diff.insertions == [3])  // e, new index
        #expect(diff.modifications == [2])  // c, old index
        #expect(diff.modificationsInNew == [2])  // c, new index
        #expect(diff.moves.count == 1)
        // d moved and changed: a move marked isModified, not a modification.
        #expect(diff.moves.first?.from == 3)
        #expect(diff.moves.first?.to == 0)
        #expect(diff.moves.first?.isModified == true)
        #expect(apply(diff, to: old, new: new) == new)

        // A non-generic, Sendable, Equatable value.
        requireSendableEquatable(CollectionChange.self)
        requireSendableEquatable(CollectionChange.Move.self)
        #expect(CollectionChange(from: old, to: old) == CollectionChange(from: new, to: new))
        #expect(CollectionChange(from: old, to: new) == diff)
        #expect(CollectionChange(from: old, to: old) != diff)
        // Any Identifiable & Equatable elements, Sendable or not.
        let plainOld = [PlainRow(id: 1, note: Note("a")), PlainRow(id: 2, note: Note("b"))]
        let plainNew = [PlainRow(id: 2, note: Note("b")), PlainRow(id: 1, note: Note("a"))]
        #expect(CollectionChange(from: plainOld, to: plainNew).moves.count == 1)
        let channels = [Channel(channelId: "x", type: .community)]
        #expect(CollectionChange(from: [Channel](), to: channels).insertions == [0])
    }
}

// MARK: - Helpers

/// Waits for `semaphore` without blocking a cooperative thread.
private func wait(for semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

/// `change` applied to `old` as a UIKit batch update would (contents of inserted, modified and
/// modified-moved elements taken from `new`); `nil` when the change does not fit.
private func apply<Element: Identifiable & Equatable>(_ change: CollectionChange, to old: [Element], new: [Element])
    -> [Element]?
{
    guard old.count - change.deletions.count + change.insertions.count == new.count,
        change.modifications.count == change.modificationsInNew.count
    else { return nil }
    var result = [Element?](repeating: nil, count: new.count)
    var usedOld = Set<Int>()
    for index in change.insertions {
        guard new.indices.contains(index), result[index] == nil else { return nil }
        result[index] = new[index]
    }
    for move in change.moves {
        guard old.indices.contains(move.from), new.indices.contains(move.to), result[move.to] == nil,
            usedOld.insert(move.from).inserted, old[move.from].id == new[move.to].id
        else { return nil }
        result[move.to] = move.isModified ? new[move.to] : old[move.from]
    }
    for (from, to) in zip(change.modifications, change.modificationsInNew) {
        guard old.indices.contains(from), new.indices.contains(to), result[to] == nil,
            usedOld.insert(from).inserted, old[from].id == new[to].id
        else { return nil }
        result[to] = new[to]
    }
    for index in change.deletions {
        guard old.indices.contains(index), usedOld.insert(index).inserted else { return nil }
    }
    let stayers = old.indices.filter { !usedOld.contains($0) }
    let free = result.indices.filter { result[$0] == nil }
    guard stayers.count == free.count else { return nil }
    for (from, to) in zip(stayers, free) { result[to] = old[from] }
    return result.map { $0! }
}

/// A class that is not `Sendable`.
private final class Note: Equatable {
    var text: String
    init(_ text: String) { self.text = text }
    static func == (lhs: Note, rhs: Note) -> Bool { lhs.text == rhs.text }
}

/// An Identifiable & Equatable element that is not `Sendable`.
private struct PlainRow: Identifiable, Equatable {
    var id: Int
    var note: Note
}

/// An Identifiable & Equatable element that is not a chat model.
private struct Row: Identifiable, Equatable, Sendable {
    var id: String
    var text: String
}
