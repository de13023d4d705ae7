import ChatAPI
import LiveCore
import Testing

@testable import LiveChannels

@Suite struct MessageListStateTests {
    func message(_ sequence: Int, _ text: String = "m", channelId: String = "c") -> Message {
        Message(messageId: "m\(sequence)", channelId: channelId, sequence: sequence, userId: "u", text: text)
    }

    func page(_ range: ClosedRange<Int>, last: Int) -> MessagePage {
        MessagePage(messages: range.map { message($0) }, hasPrevious: range.lowerBound > 1, hasNext: range.upperBound < last)
    }

    @Test func eventsBeforeTheFirstPageAreIgnored() {
        var state = MessageListState(channelId: "c", pageSize: 3)
        #expect(state.apply(message(1)) == nil)
        #expect(state.items.isEmpty)
        #expect(!state.isLoaded && !state.hasPrevious)
        #expect(state.pageQuery.position == .latest)
    }

    @Test func newestPageThenOlderPagesThenNewMessages() {
        var state = MessageListState(channelId: "c", pageSize: 3)
        #expect(state.merge(page(5...7, last: 7)) == CollectionChange(insertions: [0, 1, 2]))
        #expect(state.hasPrevious)
        #expect(state.pageQuery.position == .before(sequence: 5))
        #expect(state.apply(message(8)) == CollectionChange(insertions: [3]))
        #expect(state.merge(page(2...4, last: 8)) == CollectionChange(insertions: [0, 1, 2]))
        #expect(state.hasPrevious)
        #expect(state.merge(page(1...1, last: 8)) == CollectionChange(insertions: [0]))
        #expect(!state.hasPrevious)
        #expect(state.items.map(\.sequence) == Array(1...8))
    }

    @Test func editsAndDeletionsAreModificationsInPlace() {
        var state = MessageListState(channelId: "c", pageSize: 3)
        _ = state.merge(page(1...3, last: 3))
        #expect(state.apply(message(2, "edited")) == CollectionChange(modifications: [1], modificationsInNew: [1]))
        #expect(state.apply(message(2, "edited")) == nil)
        var deleted = message(3, "")
        deleted.isDeleted = true
        #expect(state.apply(deleted) == CollectionChange(modifications: [2], modificationsInNew: [2]))
        #expect(state.items.count == 3)
        #expect(state.apply(message(4, channelId: "other")) == nil)
    }

    @Test func emptyChannelHasNothingBefore() {
        var state = MessageListState(channelId: "c", pageSize: 3)
        #expect(state.merge(MessagePage(messages: [], hasPrevious: false, hasNext: false)) == nil)
        #expect(state.isLoaded && !state.hasPrevious)
        #expect(state.apply(message(1)) == CollectionChange(insertions: [0]))
    }

    @Test func mergingAnOverlappingPageReplacesAndInserts() {
        var state = MessageListState(channelId: "c", pageSize: 3)
        _ = state.merge(page(3...4, last: 4))
        _ = state.apply(message(6))  // 5 was missed, e.g. before a resync
        let refreshed = MessagePage(
            messages: [message(3), message(4, "new"), message(5), message(6)], hasPrevious: true, hasNext: false)
        let change = state.merge(refreshed)
        #expect(change == CollectionChange(insertions: [2], modifications: [1], modificationsInNew: [1]))
        #expect(state.items.map(\.sequence) == [3, 4, 5, 6])
    }
}
