import ChatAPI

/// The checks of an ``EntityCache``'s invariants, in debug builds (a no-op in release).
extension EntityCache {
    // MARK: Invariants

    /// Traps unless the cache is consistent: every entity is stored under its own cache key, none
    /// has a version above ``newestVersion``; in a grouped cache every key is listed once, in its
    /// entity's group; in a cache with a retention limit the ledger lists every key once, in its
    /// entity's scope (see ``ScopeLedger``), and the next eviction pass is still ahead; a cache
    /// without groups or without a limit keeps neither.
    ///
    /// Debug builds only: a no-op in release.
    /// - Complexity: O(n).
    func checkInvariants() {
        #if DEBUG
            state.withLock { checkInvariants(of: $0) }
        #endif
    }

    #if DEBUG
        /// ``checkInvariants()`` on the state, under the lock.
        func checkInvariants(of state: State) {
            checkCounts(of: state)
            for (key, entity) in state.entities {
                precondition(entity.cacheKey == key, "entity \(entity.cacheKey) stored under key \(key)")
                precondition(
                    entity.isLocal == state.localKeys.contains(key), "entity \(key) is local without being listed")
                precondition(entity.version <= state.newestVersion, "entity \(key) is newer than the newest version")
            }
            if let group {
                var listed: Set<String> = []
                for (name, keys) in state.groups {
                    for key in keys {
                        precondition(listed.insert(key).inserted, "key \(key) is listed in two groups")
                        precondition(state.entities[key].map(group) == name, "key \(key) is listed in another group")
                    }
                }
                precondition(listed.count == state.entities.count, "an entity is missing from its group")
            }
            if retentionLimit != nil {
                let listed = state.ledger.checkInvariants { state.entities[$0]?.storedScope }
                precondition(listed == state.entities.count, "an entity is missing from the ledger")
            }
        }

        /// The invariants that need no pass over the entities. O(1).
        func checkCounts(of state: State) {
            if retentionLimit == nil {
                precondition(state.ledger.scopeCount == 0 && state.nextEviction == .max, "a ledger without a limit")
            } else {
                precondition(state.entities.count <= state.nextEviction, "an eviction pass is overdue")
            }
            if group == nil { precondition(state.groups.isEmpty, "groups in a cache without groups") }
        }
    #endif

    /// Ends every change to the stored entities in debug builds, under the lock: the checks that
    /// need no pass over the entities after every change; the whole of ``checkInvariants()``
    /// after every eviction pass (one per `limit / 4` new entities at most) and after the changes
    /// `sampling` picks (see ``InvariantSampling``: every change while the cache is small, one in
    /// n / ``InvariantSampling/smallCount`` above), amortized O(1) per change. A no-op in release.
    func checkAfterMutation(_ state: inout State, evicted: Bool) {
        #if DEBUG
            if state.sampling.isDue(count: state.entities.count) || evicted {
                checkInvariants(of: state)
            } else {
                checkCounts(of: state)
            }
        #endif
    }
}
