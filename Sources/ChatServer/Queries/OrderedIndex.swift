/// A set of `(key, id)` entries kept in ascending order of key, then id: an ordered index of
/// channels by one sort field, which a query walks from its cursor instead of scanning.
///
/// Stored as a sorted array of chunks of at most ``maximumChunkSize`` entries each: a chunk that
/// grows past it splits in two, one that shrinks below a quarter of it merges into a neighbour.
/// At 1,000,000 entries that is ~2,000–8,000 chunks, so finding a position is two binary
/// searches (the first over a contiguous array of each chunk's last entry, ``fences``) and an
/// update moves at most a chunk's entries plus the chunk references.
///
/// - Complexity: ``insert(key:id:)`` and ``remove(key:id:)`` O(log n + c + n / c) for chunk
///   size c (the last term is moving chunk references, a few thousand pointers at a million
///   entries); walks O(log n) to start, then O(1) per entry visited. Memory O(n).
struct OrderedIndex<Key: Comparable & Sendable>: Sendable {
    /// One indexed element.
    struct Entry: Sendable {
        var key: Key
        var id: String

        /// Whether the entry sorts before `(key, id)`.
        ///
        /// - Complexity: O(1) key comparisons.
        func precedes(_ key: Key, _ id: String) -> Bool {
            self.key < key || (self.key == key && self.id < id)
        }
    }

    /// A place in the index: an entry's chunk and offset in it. ``endPosition`` is
    /// `(chunks.count, 0)`; every other position names an entry.
    struct Position: Sendable, Hashable, Comparable {
        var chunk: Int
        var offset: Int

        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.chunk, lhs.offset) < (rhs.chunk, rhs.offset)
        }
    }

    /// The largest chunk; a chunk that grows past it splits in two.
    static var maximumChunkSize: Int { 512 }

    /// The entries, in order, in chunks that are never empty.
    private(set) var chunks: [[Entry]] = []
    /// The last entry of each chunk, contiguous: the first binary search reads only this
    /// array, not one chunk per step (at a million entries, a cache miss per step saved).
    private(set) var fences: [Entry] = []
    /// The number of entries.
    private(set) var count = 0

    init() {}

    /// An index of `entries` (ids unique), built at once: sorted, then cut into chunks half
    /// full, so the inserts that follow rarely split.
    ///
    /// - Complexity: O(n log n), against O(n × (log n + c + n / c)) for n inserts.
    init(_ entries: [Entry]) {
        let sorted = entries.sorted { $0.precedes($1.key, $1.id) }
        let size = Self.maximumChunkSize / 2
        chunks = stride(from: 0, to: sorted.count, by: size).map { Array(sorted[$0..<min($0 + size, sorted.count)]) }
        fences = chunks.map { $0[$0.count - 1] }
        count = sorted.count
    }

    /// The position after the last entry.
    var endPosition: Position { Position(chunk: chunks.count, offset: 0) }

    /// The entry at `position` (not ``endPosition``).
    ///
    /// - Complexity: O(1).
    subscript(position: Position) -> Entry { chunks[position.chunk][position.offset] }

    /// Every entry, in order.
    ///
    /// - Complexity: O(n).
    var entries: [Entry] { chunks.flatMap { $0 } }

    /// The first position whose entry satisfies `isAtOrAfter`, which must be false for a prefix
    /// of the entries and true for the rest (``endPosition`` when it is true for none).
    ///
    /// - Complexity: O(log n) evaluations of `isAtOrAfter`.
    func partitionPoint(_ isAtOrAfter: (Entry) -> Bool) -> Position {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(fences[middle]) { high = middle } else { low = middle + 1 }
        }
        guard low < chunks.count else { return endPosition }
        let chunk = low
        low = 0
        high = chunks[chunk].count - 1  // the last entry satisfies the predicate
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(chunks[chunk][middle]) { high = middle } else { low = middle + 1 }
        }
        return Position(chunk: chunk, offset: low)
    }

    /// The position of the first entry not before `(key, id)`.
    ///
    /// - Complexity: O(log n).
    private func lowerBound(_ key: Key, _ id: String) -> Position {
        partitionPoint { !$0.precedes(key, id) }
    }

    /// Whether `(key, id)` is in the index.
    ///
    /// - Complexity: O(log n).
    func contains(key: Key, id: String) -> Bool {
        let position = lowerBound(key, id)
        guard position != endPosition else { return false }
        let entry = self[position]
        return entry.key == key && entry.id == id
    }

    /// Adds `(key, id)`; returns `false` (and changes nothing) when it is already there.
    ///
    /// - Complexity: O(log n + c + n / c) for chunk size c.
    @discardableResult
    mutating func insert(key: Key, id: String) -> Bool {
        let entry = Entry(key: key, id: id)
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            fences = [entry]
            count = 1
            return true
        }
        var position = lowerBound(key, id)
        if position == endPosition {
            position = Position(chunk: chunks.count - 1, offset: chunks[chunks.count - 1].count)
        } else if self[position].key == key, self[position].id == id {
            return false
        }
        chunks[position.chunk].insert(entry, at: position.offset)
        count += 1
        if chunks[position.chunk].count > Self.maximumChunkSize {
            split(position.chunk, at: chunks[position.chunk].count / 2)
        } else {
            fences[position.chunk] = chunks[position.chunk][chunks[position.chunk].count - 1]
        }
        return true
    }

    /// Removes `(key, id)`; returns `false` (and changes nothing) when it is not there.
    ///
    /// - Complexity: O(log n + c + n / c) for chunk size c.
    @discardableResult
    mutating func remove(key: Key, id: String) -> Bool {
        let position = lowerBound(key, id)
        guard position != endPosition, self[position].key == key, self[position].id == id else { return false }
        let chunk = position.chunk
        chunks[chunk].remove(at: position.offset)
        count -= 1
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            fences.remove(at: chunk)
        } else {
            fences[chunk] = chunks[chunk][chunks[chunk].count - 1]
            if chunks[chunk].count < Self.maximumChunkSize / 4 { mergeSmallChunk(at: chunk) }
        }
        return true
    }

    /// Moves the entry of `id` from `old` to `new` (a no-op when they are equal).
    ///
    /// - Complexity: O(log n + c + n / c) for chunk size c.
    mutating func move(id: String, from old: Key, to new: Key) {
        guard old != new else { return }
        let position = lowerBound(old, id)
        if position != endPosition, self[position].key == old, self[position].id == id, staysInPlace(position, as: new)
        {
            // The common move (a channel's newest message): the entry keeps its place between
            // its neighbours, so only its key changes.
            chunks[position.chunk][position.offset].key = new
            if position.offset == chunks[position.chunk].count - 1 { fences[position.chunk].key = new }
            return
        }
        remove(key: old, id: id)
        insert(key: new, id: id)
    }

    /// Whether the entry at `position`, with its key changed to `key`, would still come after
    /// the entry before it and before the entry after it.
    private func staysInPlace(_ position: Position, as key: Key) -> Bool {
        let id = self[position].id
        let chunk = chunks[position.chunk]
        let previous: Entry? =
            position.offset > 0 ? chunk[position.offset - 1] : position.chunk > 0 ? fences[position.chunk - 1] : nil
        let next: Entry? =
            position.offset + 1 < chunk.count
            ? chunk[position.offset + 1] : position.chunk + 1 < chunks.count ? chunks[position.chunk + 1][0] : nil
        let afterPrevious = previous.map { $0.precedes(key, id) } ?? true
        let beforeNext = next.map { !$0.precedes(key, id) && !($0.key == key && $0.id == id) } ?? true
        return afterPrevious && beforeNext
    }

    /// Merges the chunk at `index` with a neighbour when the two fit in one chunk, and otherwise
    /// shares their entries evenly, so every chunk but a lone one holds at least a quarter of
    /// ``maximumChunkSize`` entries.
    ///
    /// - Complexity: O(c + n / c) for chunk size c.
    private mutating func mergeSmallChunk(at index: Int) {
        guard chunks.count > 1 else { return }
        let left = index + 1 < chunks.count ? index : index - 1
        let total = chunks[left].count + chunks[left + 1].count
        let right = chunks.remove(at: left + 1)
        chunks[left].append(contentsOf: right)
        fences.remove(at: left)  // the merged chunk ends where the right one did
        if total > Self.maximumChunkSize { split(left, at: total / 2) }
    }

    /// Splits the chunk at `index` into its first `size` entries and the rest.
    ///
    /// - Complexity: O(c + n / c) for chunk size c.
    private mutating func split(_ index: Int, at size: Int) {
        let tail = Array(chunks[index][size...])
        chunks[index].removeSubrange(size...)
        chunks.insert(tail, at: index + 1)
        fences[index] = chunks[index][size - 1]
        fences.insert(tail[tail.count - 1], at: index + 1)
    }

    // MARK: Walks

    /// Visits the entries in order of key (ascending or descending, as `keysAscending` says),
    /// then id ascending — the order of a query sorted by this key alone — starting with the
    /// first entry after `start` in that order (the first entry when `nil`), until `body`
    /// returns `false`.
    ///
    /// - Complexity: O(log n) to start, then O(1) per entry visited ascending; descending adds
    ///   O(1) per run of equal keys visited, O(log n) for a run longer than a few entries (each
    ///   run is found stepping back or by a binary search, then visited forward).
    func forEach(keysAscending: Bool, after start: (key: Key, id: String)?, _ body: (Entry) -> Bool) {
        guard keysAscending else { return forEachDescending(after: start, body) }
        let first = start.map { start in
            partitionPoint { $0.key > start.key || ($0.key == start.key && $0.id > start.id) }
        }
        visit(from: first ?? Position(chunk: 0, offset: 0), to: endPosition, body)
    }

    private func forEachDescending(after start: (key: Key, id: String)?, _ body: (Entry) -> Bool) {
        var groupEnd = endPosition
        if let start {
            // The rest of the cursor's own run of equal keys, then the runs of smaller keys.
            let first = partitionPoint { $0.key > start.key || ($0.key == start.key && $0.id > start.id) }
            let runEnd = partitionPoint { $0.key > start.key }
            guard visit(from: first, to: runEnd, body) else { return }
            groupEnd = partitionPoint { $0.key >= start.key }
        }
        let origin = Position(chunk: 0, offset: 0)
        while groupEnd != origin {
            let groupStart = startOfRun(endingAt: groupEnd)
            guard visit(from: groupStart, to: groupEnd, body) else { return }
            groupEnd = groupStart
        }
    }

    /// The first position of the run of equal keys that ends just before `end` (which must not
    /// be the first position).
    ///
    /// - Complexity: O(1) for a run of a few entries (found by stepping back), O(log n) for a
    ///   longer one (found by a binary search).
    private func startOfRun(endingAt end: Position) -> Position {
        let origin = Position(chunk: 0, offset: 0)
        var start = position(before: end)
        let key = self[start].key
        for _ in 0..<8 {
            guard start != origin else { return start }
            let previous = position(before: start)
            guard self[previous].key == key else { return start }
            start = previous
        }
        return partitionPoint { $0.key >= key }
    }

    /// The position before `position` (which must not be the first).
    private func position(before position: Position) -> Position {
        if position.offset > 0 { return Position(chunk: position.chunk, offset: position.offset - 1) }
        return Position(chunk: position.chunk - 1, offset: chunks[position.chunk - 1].count - 1)
    }

    /// Visits the entries from `start` up to (not including) `end` in order; returns `false`
    /// when `body` stopped the walk.
    @discardableResult
    private func visit(from start: Position, to end: Position, _ body: (Entry) -> Bool) -> Bool {
        var chunk = start.chunk
        var offset = start.offset
        while chunk < end.chunk || (chunk == end.chunk && offset < end.offset) {
            let entries = chunks[chunk]
            let upper = chunk == end.chunk ? end.offset : entries.count
            while offset < upper {
                guard body(entries[offset]) else { return false }
                offset += 1
            }
            chunk += 1
            offset = 0
        }
        return true
    }
}
