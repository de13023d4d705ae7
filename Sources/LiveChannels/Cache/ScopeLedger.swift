/// The keys of an ``EntityCache`` by scope (a message's channel), and the order in which the
/// scopes were last written to: what eviction walks to free the entities nothing shows, the
/// least recently written scope first.
///
/// A pure value, kept under the cache's lock.
struct ScopeLedger: Sendable {
    /// The keys stored per scope, in the order they arrived.
    private var keys: [String: [String]] = [:]
    /// When each scope was last written to (a counter, not a clock).
    private var touched: [String: Int] = [:]
    private var counter = 0

    /// The number of scopes with keys.
    var scopeCount: Int { keys.count }

    /// Records a key stored for the first time.
    /// - Complexity: O(1) amortized.
    mutating func insert(_ key: String, scope: String) {
        keys[scope, default: []].append(key)
        touch(scope)
    }

    /// Records a write to a scope (its entities are wanted now).
    /// - Complexity: O(1).
    mutating func touch(_ scope: String) {
        counter += 1
        touched[scope] = counter
    }

    /// The scopes, the least recently written first.
    /// - Complexity: O(s log s) for s scopes.
    func scopesByAge() -> [String] {
        touched.sorted { $0.value < $1.value }.map(\.key)
    }

    /// Forgets a scope and returns its keys.
    /// - Complexity: O(1).
    mutating func remove(_ scope: String) -> [String] {
        touched[scope] = nil
        return keys.removeValue(forKey: scope) ?? []
    }

    /// Forgets one key of a scope (a value removed for good); the scope goes with its last key.
    /// - Complexity: O(keys in the scope).
    mutating func remove(_ key: String, scope: String) {
        keys[scope]?.removeAll { $0 == key }
        if keys[scope]?.isEmpty == true {
            keys[scope] = nil
            touched[scope] = nil
        }
    }

    /// Records the keys of a scope that stay after it was removed (keeping its age).
    /// - Complexity: O(kept).
    mutating func restore(_ kept: [String], in scope: String, touched time: Int) {
        guard !kept.isEmpty else { return }
        keys[scope] = kept
        touched[scope] = time
    }

    /// When the scope was last written to.
    func lastTouch(of scope: String) -> Int { touched[scope] ?? 0 }

    #if DEBUG
        /// Traps unless every scope with keys has an age (and no other scope has one), no key is
        /// listed twice, and every key is stored in the scope it is listed in: `storedScope(key)`
        /// is the scope of the entity stored under `key` (`nil`: none is). Returns the number of
        /// keys listed. Debug builds only (see ``EntityCache/checkInvariants()``).
        /// - Complexity: O(k) for k keys.
        @discardableResult
        func checkInvariants(storedScope: (String) -> String?) -> Int {
            precondition(
                keys.count == touched.count && keys.keys.allSatisfy { touched[$0] != nil },
                "scopes with keys and scopes with an age differ")
            var listed: Set<String> = []
            for (scope, list) in keys {
                for key in list {
                    precondition(listed.insert(key).inserted, "key \(key) is listed twice")
                    precondition(
                        storedScope(key) == scope, "key \(key) is listed in scope \(scope), not where it is stored")
                }
            }
            precondition(touched.values.allSatisfy { $0 <= counter }, "a scope touched after the last touch")
            return listed.count
        }
    #endif
}
