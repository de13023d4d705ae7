import ChatAPI
import LiveCore
import Locking

/// Something that shows entities of a cache and hears of every change: a live query.
protocol EntityCacheObserver<Entity>: AnyObject, Sendable {
    associatedtype Entity: CachedEntity
    /// Called after `changed` were stored, outside the cache's lock, on the sync engine.
    func entitiesDidChange(_ changed: [Entity])
    /// Called after `removed` left the cache for good (a local message discarded), outside the
    /// cache's lock: a list that shows them drops them.
    func entitiesDidDisappear(_ removed: [Entity])
    /// Reloads what it shows from the server (after a resync: missed events cannot be replayed).
    /// With `discarding`, the server's history started over (another epoch): the first page
    /// replaces every element shown, whatever their versions.
    func reload(discarding: Bool) async
    /// The channel whose entities it shows, if it shows one channel's.
    var channelScope: String? { get }
}

/// The client's cache of one entity kind, and the live handles that show it: the one way
/// entities are stored and published, for channels, members, messages and users alike.
///
/// - Versions: a value never replaces one with a higher ``Versioned/version`` (a stale
///   response or a replayed event changes nothing); a value with the same content but a newer
///   version is stored silently.
/// - Publishing: every stored change is published once, to the live objects of that entity and
///   to every registered observer (live queries), outside the lock.
/// - Retention (when given a limit): once the cache holds more than the limit (plus a quarter
///   of it), the entities nothing shows leave memory, a whole scope (a message's channel) at a
///   time, the least recently written scope first, until the limit is met or only shown
///   entities are left (shown ones count towards the limit). A scope a
///   live query shows stays whole (its pages are judged against what the cache holds), and so
///   does every entity a live object shows. The disk cache keeps what leaves. Amortized O(1)
///   per stored entity, plus O(s log s) per eviction pass for s scopes, one pass per
///   `limit / 4` new entities at most.
///
/// Read and register from any thread. Mutated only by the ``SyncEngine``, one change at a time
/// in event order, so observers see changes in the order they were stored. In debug builds every
/// change to the stored entities ends with the checks of ``checkInvariants()``, under the lock
/// (sampled: see `checkAfterMutation(_:)`).
final class EntityCache<Entity: CachedEntity>: Sendable {
    /// A change of one entity: its value before (if cached) and after.
    struct Change: Sendable {
        var old: Entity?
        var new: Entity
    }

    struct State: Sendable {
        var entities: [String: Entity] = [:]
        /// Live object sources by cache key, held weakly so that a handle nobody uses is freed.
        var objects: [String: [WeakReference<LiveObjectSource<Entity>>]] = [:]
        /// Held strongly until unregistered (a live query unregisters when its collection's
        /// source goes away): no weak reference to load per observer per change.
        var observers: [any EntityCacheObserver<Entity>] = []
        /// The highest version stored so far.
        var newestVersion = 0
        /// The keys of the values that live on the device only (``CachedEntity/isLocal``).
        var localKeys: Set<String> = []
        /// Cache keys by group, when the cache groups its entities (``entities(inGroup:)``).
        var groups: [String: [String]] = [:]
        /// Keys by scope and scopes by age, when the cache has a retention limit.
        var ledger = ScopeLedger()
        /// The entity count past which the next eviction pass runs.
        var nextEviction = Int.max
        #if DEBUG
            /// Which changes end with a full check of the invariants.
            var sampling = InvariantSampling()
        #endif
    }

    /// Guards every field. Lock order: `LockRank.entityCache`, after a live query's lock (a page
    /// reads the cache) and before a live value's (registering a live object publishes to it).
    let state = Lock(State(), rank: .entityCache)
    /// Told of every content change, before observers are (derived values such as unread
    /// counts).
    private let onChange: (@Sendable ([Change]) -> Void)?
    /// Told of every value stored (content and version-only changes), to write behind to disk
    /// (``CacheStore/record(_:)``). Called outside the lock; must not block.
    private let didStore: (@Sendable ([Entity]) -> Void)?
    /// Told of every value removed for good (``removeLocal(_:error:)``), to delete it on disk.
    /// Called outside the lock; must not block.
    private let didRemove: (@Sendable ([Entity]) -> Void)?
    /// The group of an entity, for ``entities(inGroup:)`` (a member's user id); fixed per entity.
    let group: (@Sendable (Entity) -> String)?
    /// How many entities the cache keeps before it evicts those nothing shows (`nil`: all).
    let retentionLimit: Int?

    /// - Parameter retentionLimit: past this many entities, those nothing shows leave memory
    ///   (see the type's "Retention"); `nil` keeps every entity. Not for grouped caches.
    init(
        groupedBy group: (@Sendable (Entity) -> String)? = nil, retaining retentionLimit: Int? = nil,
        onChange: (@Sendable ([Change]) -> Void)? = nil, didStore: (@Sendable ([Entity]) -> Void)? = nil,
        didRemove: (@Sendable ([Entity]) -> Void)? = nil
    ) {
        precondition(group == nil || retentionLimit == nil, "a grouped cache keeps every entity")
        precondition(retentionLimit.map { $0 >= 0 } ?? true, "a retention limit is 0 or more")
        self.group = group
        self.retentionLimit = retentionLimit
        self.onChange = onChange
        self.didStore = didStore
        self.didRemove = didRemove
        if let retentionLimit { state.withLock { $0.nextEviction = Self.nextPass(after: 0, limit: retentionLimit) } }
    }

    // MARK: Reading (any thread)

    /// The cached value with this cache key.
    func entity(_ key: String) -> Entity? {
        state.withLock { $0.entities[key] }
    }

    /// Every cached value, in no particular order.
    /// - Complexity: O(n).
    var all: [Entity] {
        state.withLock { Array($0.entities.values) }
    }

    /// The cached entities of a group (see `groupedBy`; empty for a cache without groups).
    /// - Complexity: O(entities in the group).
    func entities(inGroup key: String) -> [Entity] {
        state.withLock { state in (state.groups[key] ?? []).compactMap { state.entities[$0] } }
    }

    /// How many entities the cache holds in memory.
    /// - Complexity: O(1).
    var count: Int {
        state.withLock { $0.entities.count }
    }

    /// The highest version stored so far: when it is at or below a response's revision, no
    /// cached value is newer than the response.
    var newestVersion: Int {
        state.withLock { $0.newestVersion }
    }

    /// The values that live on the device only (``CachedEntity/isLocal``), in no particular
    /// order.
    /// - Complexity: O(local values).
    var localEntities: [Entity] {
        state.withLock { state in state.localKeys.compactMap { state.entities[$0] } }
    }

    /// Whether the cache holds a value that lives on the device only. O(1).
    var hasLocalEntities: Bool {
        state.withLock { !$0.localKeys.isEmpty }
    }

    /// The cache keys shown by live objects that still exist.
    var observedKeys: [String] {
        state.withLock { state in
            state.objects.compactMap { key, sources in sources.contains { $0.object != nil } ? key : nil }
        }
    }

    // MARK: Registration (any thread)

    /// Starts showing the entity `key` in `source`, which shows the cached value at once
    /// (`.local`) when there is one and it has nothing newer. Atomic with respect to mutations,
    /// so the source misses no change and never shows an older value after a newer one.
    /// - Returns: the cached value, if any.
    @discardableResult
    func register(_ source: LiveObjectSource<Entity>, for key: String) -> Entity? {
        state.withLock { state in
            state.objects[key, default: []].removeAll { $0.object == nil }
            state.objects[key, default: []].append(WeakReference(source))
            guard let cached = state.entities[key] else { return nil }
            if (source.snapshot?.version ?? -1) < cached.version {
                source.publish(snapshot: cached, dataStatus: source.snapshot == nil ? .local : nil)
            }
            return cached
        }
    }

    /// Starts telling `observer` of every change; returns every cached value, to fill it from.
    /// Atomic with respect to mutations. The cache keeps `observer` alive until
    /// ``unregister(_:)``.
    func register(_ observer: some EntityCacheObserver<Entity>) -> [Entity] {
        state.withLock { state in
            state.observers.append(observer)
            return Array(state.entities.values)
        }
    }

    /// Stops telling `observer` of changes and releases it. A change being published when this
    /// is called may still reach it. O(observers).
    func unregister(_ observer: ObjectIdentifier) {
        state.withLock { $0.observers.removeAll { ObjectIdentifier($0) == observer } }
    }

    /// The registered observers.
    var observers: [any EntityCacheObserver<Entity>] {
        state.withLock { $0.observers }
    }

    // MARK: Mutation (sync engine only)

    /// Stores values, skipping any older than the cached one, and publishes the content changes
    /// to live objects and observers.
    /// - Parameters:
    ///   - excluded: an observer not to tell (the live query applying these values as its page,
    ///     which publishes them in one change with the page).
    ///   - persisting: whether to write the stored values behind to disk (not for values read
    ///     from it).
    ///   - dataStatus: what live objects of the values show: `.fresh` for the server's word,
    ///     `.local` for values read from the cache file.
    /// - Returns: the content changes, in the order given.
    /// - Complexity: O(k) to store k values, plus publishing.
    @discardableResult
    func upsert(
        _ values: [Entity], excluding excluded: (any EntityCacheObserver<Entity>)? = nil, persisting: Bool = true,
        dataStatus: DataStatus = .fresh
    ) -> [Change] {
        guard !values.isEmpty else { return [] }
        let recordsStores = persisting && didStore != nil
        let (changes, objects, observers, stored) = state.withLock { state in
            var changes: [Change] = []
            var objects: [(LiveObjectSource<Entity>, Entity)] = []
            var stored: [Entity] = []
            var wrote = false
            for incoming in values {
                let key = incoming.cacheKey
                let old = state.entities[key]
                if let old, old.version > incoming.version { continue }
                let value = old.map(incoming.merging(cached:)) ?? incoming
                state.entities[key] = value
                wrote = true
                if value.isLocal {
                    state.localKeys.insert(key)
                } else if old?.isLocal == true {
                    state.localKeys.remove(key)
                }
                if old == nil, let group { state.groups[group(value), default: []].append(key) }
                if retentionLimit != nil {
                    if old == nil {
                        state.ledger.insert(key, scope: value.storedScope)
                    } else {
                        state.ledger.touch(value.storedScope)
                    }
                }
                state.newestVersion = max(state.newestVersion, value.version)
                if recordsStores, old == nil || old!.version != value.version || old != value { stored.append(value) }
                guard old != value else { continue }
                changes.append(Change(old: old, new: value))
                for source in state.objects[key] ?? [] {
                    if let object = source.object { objects.append((object, value)) }
                }
            }
            let observers =
                changes.isEmpty ? [] : excluded == nil ? state.observers : state.observers.filter { $0 !== excluded }
            var evicted = false
            if let retentionLimit, state.entities.count > state.nextEviction {
                Self.evict(&state, downTo: retentionLimit)
                evicted = true
            }
            if wrote { checkAfterMutation(&state, evicted: evicted) }
            return (changes, objects, observers, stored)
        }
        if !stored.isEmpty { didStore?(stored) }
        if !changes.isEmpty { onChange?(changes) }
        for (source, value) in objects { source.publish(snapshot: value, dataStatus: dataStatus) }
        if !changes.isEmpty {
            let changed = changes.map(\.new)
            for observer in observers { observer.entitiesDidChange(changed) }
        }
        return changes
    }

    /// Removes the values of `keys` that live on the device only (a discarded local message) —
    /// a value the server stored stays — and tells live objects (no value, `.error` with
    /// `error`) and observers (``EntityCacheObserver/entitiesDidDisappear(_:)``). Writes the
    /// removal behind with `didRemove`.
    /// - Returns: the values removed.
    /// - Complexity: O(k) for k keys, plus publishing.
    @discardableResult
    func removeLocal(_ keys: [String], error: any Error) -> [Entity] {
        let (removed, objects, observers) = state.withLock { state in
            var removed: [Entity] = []
            var objects: [LiveObjectSource<Entity>] = []
            for key in keys {
                guard let value = state.entities[key], value.isLocal else { continue }
                state.entities[key] = nil
                state.localKeys.remove(key)
                if retentionLimit != nil { state.ledger.remove(key, scope: value.storedScope) }
                if let group { state.groups[group(value)]?.removeAll { $0 == key } }
                removed.append(value)
                objects += (state.objects[key] ?? []).compactMap(\.object)
            }
            if !removed.isEmpty { checkAfterMutation(&state, evicted: true) }
            return (removed, objects, removed.isEmpty ? [] : state.observers)
        }
        guard !removed.isEmpty else { return [] }
        didRemove?(removed)
        for source in objects {
            source.publish(snapshot: .some(nil), dataStatus: .error, loadingStatus: .error, error: error)
        }
        for observer in observers { observer.entitiesDidDisappear(removed) }
        return removed
    }

    // MARK: Starting over

    /// Forgets every cached value and the newest version — the server's history started over
    /// (another epoch), so nothing cached is the server's word any more — keeping the live
    /// objects and observers registered. Publishes nothing: live objects keep showing their
    /// value until the reload that follows stores the server's (judged against nothing cached,
    /// whatever its version), and live queries are restarted by the sync engine.
    /// - Returns: the values forgotten.
    /// - Complexity: O(n).
    @discardableResult
    func removeAll() -> [Entity] {
        state.withLock { state in
            let removed = Array(state.entities.values)
            state.entities.removeAll()
            state.localKeys.removeAll()
            state.groups.removeAll()
            state.ledger = ScopeLedger()
            state.newestVersion = 0
            if let retentionLimit { state.nextEviction = Self.nextPass(after: 0, limit: retentionLimit) }
            checkAfterMutation(&state, evicted: true)
            return removed
        }
    }

    /// Tells the live objects of `key` that the server has no such entity (any more): they show
    /// no value, `.error` and `error`.
    func publishMissing(_ key: String, error: any Error) {
        let sources = state.withLock { state in (state.objects[key] ?? []).compactMap(\.object) }
        for source in sources {
            source.publish(snapshot: .some(nil), dataStatus: .error, loadingStatus: .error, error: error)
        }
    }

    // MARK: Retention

    /// Removes the entities nothing shows, whole scopes at a time from the least recently
    /// written, until at most `limit` remain or only shown ones are left; schedules the next
    /// pass.
    /// - Complexity: O(s log s + evicted) for s scopes.
    private static func evict(_ state: inout State, downTo limit: Int) {
        defer { state.nextEviction = nextPass(after: state.entities.count, limit: limit) }
        var shown: Set<String> = []
        for observer in state.observers {
            // A list not bound to one scope may show any entity: keep everything.
            guard let scope = observer.channelScope else { return }
            shown.insert(scope)
        }
        for scope in state.ledger.scopesByAge() where !shown.contains(scope) {
            guard state.entities.count > limit else { break }
            let age = state.ledger.lastTouch(of: scope)
            var kept: [String] = []
            for key in state.ledger.remove(scope) {
                if state.localKeys.contains(key) {
                    kept.append(key)
                    continue
                }
                if let sources = state.objects[key], sources.contains(where: { $0.object != nil }) {
                    kept.append(key)
                    continue
                }
                state.entities[key] = nil
                state.objects[key] = nil
            }
            state.ledger.restore(kept, in: scope, touched: age)
        }
    }

    /// The entity count at which the pass after one that left `count` entities runs: a
    /// quarter of the limit later (at least 16), so passes stay rare.
    private static func nextPass(after count: Int, limit: Int) -> Int {
        max(count, limit) + max(limit / 4, 16)
    }
}
