import ChatAPI

/// One entry of the index of channels by top-level metadata values
/// (``ServerState/channelsByMetadata``): a key of a channel's metadata and a scalar value it
/// holds there — the value itself, or each scalar element of an array value, as a filter's
/// `equal` matches either.
struct MetadataIndexEntry: Sendable, Hashable {
    var key: String
    var value: JSON

    /// The entries of `metadata`: every top-level key with a string, number or boolean value,
    /// or with an array holding such values (one entry per distinct element).
    ///
    /// - Complexity: O(top-level keys + elements of top-level arrays).
    static func entries(of metadata: [String: JSON]) -> Set<MetadataIndexEntry> {
        var entries: Set<MetadataIndexEntry> = []
        for (key, value) in metadata {
            if isIndexable(value) { entries.insert(MetadataIndexEntry(key: key, value: value)) }
            for element in value.arrayValue ?? [] where isIndexable(element) {
                entries.insert(MetadataIndexEntry(key: key, value: element))
            }
        }
        return entries
    }

    /// Whether a value is one the index holds (and so one an `equal` can be answered from it).
    static func isIndexable(_ value: JSON) -> Bool {
        switch value {
        case .string, .number, .bool: true
        default: false
        }
    }
}
