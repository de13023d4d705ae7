/// A dictionary that remembers which keys were written since they were last taken: the
/// server state's users, channels and each channel's members, so that the storage writes what
/// an operation changed and nothing else.
///
/// Every write through the subscript — an assignment, a removal, or an in-place change of the
/// value (`dictionary[key]!.field = x`) — records its key; reads record nothing. The record is
/// not part of the value's identity: two dictionaries with the same entries are equal whatever
/// they changed.
///
/// - Complexity: as `Dictionary`, plus amortized O(1) per write to record the key.
struct ChangeTrackedDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private(set) var entries: [Key: Value] = [:]
    /// The first key written since the last take, held inline: an operation that writes one
    /// key (a member's read marker) allocates no set. `nil` only when nothing was written.
    private var firstChangedKey: Key?
    /// The other keys written since the last take (never `firstChangedKey`).
    private var moreChangedKeys: Set<Key> = []
    /// The key recorded last, if it is in ``changedKeys``: an operation writes the same key
    /// several times in a row (a channel's messages, then its info, then a member), and a
    /// comparison is cheaper than hashing it again.
    private var lastRecorded: Key?

    init() {}

    /// A dictionary holding `entries`, with no key changed.
    init(unchanged entries: [Key: Value]) {
        self.entries = entries
    }

    subscript(key: Key) -> Value? {
        get { entries[key] }
        set {
            record(key)
            entries[key] = newValue
        }
        _modify {
            record(key)
            yield &entries[key]
        }
    }

    private mutating func record(_ key: Key) {
        guard key != lastRecorded else { return }
        if let first = firstChangedKey {
            if first != key { moreChangedKeys.insert(key) }
        } else {
            firstChangedKey = key
        }
        lastRecorded = key
    }

    /// The keys written since the last take (a set made for the caller: for tests).
    var changedKeys: Set<Key> {
        var keys = moreChangedKeys
        if let firstChangedKey { keys.insert(firstChangedKey) }
        return keys
    }

    /// How many keys the set of changed keys has room for before it grows (for tests).
    var changedKeysCapacity: Int { moreChangedKeys.capacity }

    /// Changes the value at `key` in place without recording the key (for bookkeeping that is
    /// not a change of the value, such as taking the changes nested in it).
    mutating func modifyUntracked<Result>(_ key: Key, _ body: (inout Value?) -> Result) -> Result {
        body(&entries[key])
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var keys: Dictionary<Key, Value>.Keys { entries.keys }
    var values: Dictionary<Key, Value>.Values { entries.values }

    /// Returns the keys written since the last call and forgets them.
    ///
    /// - Complexity: O(1) (the set is handed over, not copied).
    mutating func takeChangedKeys() -> Set<Key> {
        var keys: Set<Key> = []
        swap(&keys, &moreChangedKeys)
        if let first = firstChangedKey { keys.insert(first) }
        firstChangedKey = nil
        lastRecorded = nil
        return keys
    }

    /// The keys written since the last take, as a list that allocates nothing for one key;
    /// forgets them. For a dictionary whose set is not recycled (a channel's members).
    ///
    /// - Complexity: O(1) (the set is handed over, not copied).
    mutating func takeChangedKeyList() -> ChangedKeyList {
        var more: Set<Key> = []
        swap(&more, &moreChangedKeys)
        defer {
            firstChangedKey = nil
            lastRecorded = nil
        }
        return ChangedKeyList(first: firstChangedKey, more: more)
    }

    /// Keys ``takeChangedKeyList()`` took: each once, in no particular order.
    struct ChangedKeyList: Sequence {
        fileprivate let first: Key?
        fileprivate let more: Set<Key>

        func makeIterator() -> Iterator { Iterator(first: first, rest: more.makeIterator()) }

        struct Iterator: IteratorProtocol {
            fileprivate var first: Key?
            fileprivate var rest: Set<Key>.Iterator

            mutating func next() -> Key? {
                if let key = first {
                    first = nil
                    return key
                }
                return rest.next()
            }
        }
    }

    /// Gives back a set ``takeChangedKeys()`` returned, once read: emptied, it holds the next
    /// changes, so that an operation allocates no set of its own (a set of more than
    /// `recycledCapacity` keys is let go instead: one large operation keeps no memory). For the
    /// state's own dictionaries (users, channels), not for one per channel: each would keep a
    /// set's storage for good.
    ///
    /// - Complexity: O(count of `keys`).
    mutating func recycleChangedKeys(_ keys: consuming Set<Key>) {
        guard firstChangedKey == nil, moreChangedKeys.isEmpty, keys.capacity <= Self.recycledCapacity else { return }
        keys.removeAll(keepingCapacity: true)
        moreChangedKeys = keys
    }

    /// The most keys a recycled set has room for.
    static var recycledCapacity: Int { 64 }
}

extension ChangeTrackedDictionary: Sequence {
    func makeIterator() -> Dictionary<Key, Value>.Iterator { entries.makeIterator() }
}

extension ChangeTrackedDictionary: Equatable where Value: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.entries == rhs.entries }
}

extension ChangeTrackedDictionary: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(unchanged: Dictionary(uniqueKeysWithValues: elements))
    }
}
