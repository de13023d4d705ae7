import ChatAPI

/// The state machine of one live message list: a channel's messages from the start of the loaded
/// window to the newest, in ascending `sequence` order (oldest at index 0, newest last, as a chat
/// screen shows them). A pure value, mutated by the sync engine; each mutation returns the exact
/// ``CollectionChange`` it made.
///
/// The window is every message whose sequence is at least ``windowStart``: the newest page sets
/// it, each older page lowers it, and new messages simply append. Messages are numbered 1, 2, 3 …
/// without gaps and keep their number when deleted, so the window is contiguous and
/// ``hasPrevious`` is exactly `windowStart > 1`.
///
/// Deleted messages stay in the list, as the server keeps them: `isDeleted == true`, empty text
/// (a modification, not a deletion), so a chat screen can show "message deleted" in place.
struct MessageListState: Sendable {
    let channelId: String
    /// Messages per page.
    let pageSize: Int
    /// The messages of the window, in ascending sequence order.
    private(set) var items: [Message] = []
    /// The lowest sequence number in the window; `nil` until the newest page arrived.
    private(set) var windowStart: Int?
    /// Whether a page load is under way (set and cleared by the sync engine and the pager).
    var isLoading = false

    init(channelId: String, pageSize: Int) {
        self.channelId = channelId
        self.pageSize = pageSize
    }

    /// Whether the newest page has arrived.
    var isLoaded: Bool { windowStart != nil }

    /// Whether older messages exist before the window (`false` until the newest page arrived).
    var hasPrevious: Bool { (windowStart ?? 1) > 1 }

    /// The query for the next page to load: the newest page first, then the one before the window.
    var pageQuery: MessagePageQuery {
        MessagePageQuery(
            channelId: channelId, position: windowStart.map { .before(sequence: $0) } ?? .latest, limit: pageSize)
    }

    /// Whether a page can be loaded now (none is loading, and there is one to load).
    var canLoadPage: Bool { !isLoading && (!isLoaded || hasPrevious) }

    // MARK: One message at a time

    /// Applies a new, edited or deleted message: it is inserted (a new message appends) or
    /// modified in place. Messages of other channels, and before the window, are ignored.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n) to find it, O(1) to append, O(n) to insert elsewhere.
    mutating func apply(_ message: Message) -> CollectionChange? {
        guard message.channelId == channelId, let windowStart, message.sequence >= windowStart else { return nil }
        let index = insertionIndex(for: message.sequence)
        if index < items.count, items[index].sequence == message.sequence {
            if items[index] == message { return nil }
            items[index] = message
            return CollectionChange(modifications: [index], modificationsInNew: [index])
        }
        items.insert(message, at: index)
        return CollectionChange(insertions: [index])
    }

    // MARK: Pages

    /// Merges a page the server returned: the window now starts at its first message (or at 1
    /// when the server has nothing older), its messages are inserted or replace the listed ones.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(n + k) for n listed and k paged messages.
    mutating func merge(_ page: MessagePage) -> CollectionChange? {
        let paged = page.messages.filter { $0.channelId == channelId }
        if let first = paged.first {
            windowStart = min(windowStart ?? first.sequence, first.sequence)
        } else if !page.hasPrevious {
            windowStart = 1
        }
        var merged: [Message] = []
        merged.reserveCapacity(items.count + paged.count)
        var insertions: [Int] = []
        var modifications: [Int] = []
        var modificationsInNew: [Int] = []
        var old = 0
        var new = 0
        while old < items.count || new < paged.count {
            if new == paged.count || (old < items.count && items[old].sequence < paged[new].sequence) {
                merged.append(items[old])
                old += 1
            } else if old == items.count || paged[new].sequence < items[old].sequence {
                insertions.append(merged.count)
                merged.append(paged[new])
                new += 1
            } else {
                if items[old] != paged[new] {
                    modifications.append(old)
                    modificationsInNew.append(merged.count)
                }
                merged.append(paged[new])
                old += 1
                new += 1
            }
        }
        items = merged
        let change = CollectionChange(
            insertions: insertions, modifications: modifications, modificationsInNew: modificationsInNew)
        return change.isEmpty ? nil : change
    }

    /// Forgets everything (to reload from the newest page).
    mutating func reset() {
        items = []
        windowStart = nil
    }

    /// The first index whose message's sequence is not less than `sequence`.
    private func insertionIndex(for sequence: Int) -> Int {
        if let last = items.last, last.sequence < sequence { return items.count }
        var low = 0
        var high = items.count
        while low < high {
            let mid = (low + high) / 2
            if items[mid].sequence < sequence { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
