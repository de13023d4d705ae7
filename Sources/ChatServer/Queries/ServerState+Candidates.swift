import ChatAPI

extension ServerState {
    /// The ids of the channels that can match `filter` for `viewer`, taken from an index when a
    /// top-level condition (one every match must satisfy) names one; `nil` means "every
    /// channel". The query still evaluates the whole filter on each candidate, so this only
    /// narrows the scan, never changes the answer.
    ///
    /// Indexed conditions: the viewer's membership (`joined == true`, `membership == member`),
    /// `members` containing given users, `type` equal to / in given types, `tags` containing /
    /// equal to / in given tags, a top-level metadata key equal to / in given scalar values. The smallest candidate set wins, if it holds at most a quarter
    /// of the channels (beyond that a scan is cheaper).
    ///
    /// - Complexity: O(filter size) to plan; the set returned is the index's own.
    func candidateIds(for filter: Filter, viewer: String?) -> Set<String>? {
        // Each indexed condition yields sets whose union holds its matches; the union is
        // built only for the condition with the smallest bound, and not at all for one set.
        var best: [Set<String>]?
        var bestBound = Int.max
        for condition in Self.conjuncts(of: filter) {
            guard let sets = indexed(condition, viewer: viewer) else { continue }
            let bound = sets.reduce(0) { $0 + $1.count }
            if bound < bestBound { (best, bestBound) = (sets, bound) }
        }
        // Looking ids up costs more than scanning past them: an index that keeps more than a
        // quarter of the channels does not pay.
        guard let best, bestBound <= channels.count / 4 else { return nil }
        if best.count == 1 { return best[0] }
        return best.reduce(into: Set<String>()) { $0.formUnion($1) }
    }

    /// The conditions every match must satisfy: the filter's top-level `and` terms, flattened.
    private static func conjuncts(of filter: Filter) -> [Filter] {
        if case .and(let terms) = filter { return terms.flatMap(conjuncts) }
        return [filter]
    }

    /// Index sets whose union holds every channel satisfying `condition`; `nil` when no index
    /// applies.
    private func indexed(_ condition: Filter, viewer: String?) -> [Set<String>]? {
        guard case .condition(let field, let op) = condition else { return nil }
        let members = { (id: String) in memberships[id, default: []] }
        let ofType = { (name: String) in ChannelType(rawValue: name).map { channelsByType[$0, default: []] } ?? [] }
        let tagged = { (tag: String) in channelsByTag[tag, default: []] }
        switch (field, op) {
        case (.joined, .equal(.bool(true))), (.membership, .equal(.string(Membership.member.rawValue))):
            return [viewer.map(members) ?? []]
        case (.members, .containsAll(let ids)):
            // Every match has all these members: the smallest member's channels suffice.
            return ids.compactMap(\.stringValue).map(members).min { $0.count < $1.count }.map { [$0] }
        case (.members, .in(let ids)): return Self.sets(ids, members)
        case (.members, .equal(let id)), (.members, .contains(let id)): return Self.sets([id], members)
        case (.type, .equal(let type)): return Self.sets([type], ofType)
        case (.type, .in(let types)): return Self.sets(types, ofType)
        case (.tags, .equal(let tag)), (.tags, .contains(let tag)): return Self.sets([tag], tagged)
        case (.tags, .in(let tags)): return Self.sets(tags, tagged)
        case (.metadata(let key), .equal(let value)) where Self.isIndexedMetadata(key, [value]):
            return [channelsByMetadata[MetadataIndexEntry(key: key, value: value), default: []]]
        case (.metadata(let key), .in(let values)) where Self.isIndexedMetadata(key, values):
            return values.map { channelsByMetadata[MetadataIndexEntry(key: key, value: $0), default: []] }
        default: return nil
        }
    }

    /// Whether the metadata index answers an `equal`/`in` on `path` with `values`: a top-level
    /// key (no dot) and scalar operands (a `null` also matches channels without the key).
    private static func isIndexedMetadata(_ path: String, _ values: [JSON]) -> Bool {
        !path.contains(".") && values.allSatisfy(MetadataIndexEntry.isIndexable)
    }

    /// The index sets of string operands (a non-string operand matches nothing).
    private static func sets(_ operands: [JSON], _ index: (String) -> Set<String>) -> [Set<String>] {
        operands.compactMap(\.stringValue).map(index)
    }
}
