/// Rules for dotted metadata paths (`"custom_score.value"`) in filters and sorts.
enum MetadataPath {
    /// The prefix of metadata keys on the wire (`"metadata.state"`), which keeps custom fields
    /// from colliding with built-in names.
    static let prefix = "metadata."

    /// The key a wire `name` denotes: `metadata(path)` for `"metadata.<path>"`, else the built-in
    /// whose `nameOf` is `name`, else `nil`.
    static func key<Key>(
        named name: String, builtIns: [Key], nameOf: (Key) -> String,
        metadata: (String) -> Key
    ) -> Key? {
        if name.hasPrefix(prefix) { return metadata(String(name.dropFirst(prefix.count))) }
        return builtIns.first { nameOf($0) == name }
    }

    /// Throws `ChatError.invalidArgument(field:)` unless `path` is a non-empty sequence of
    /// non-empty keys separated by dots, none starting with `$`.
    static func validate(_ path: String, field: String) throws {
        let components = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !path.isEmpty, components.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("$") }) else {
            throw ChatError.invalidArgument(
                field: field,
                reason: "metadata path '\(path)' must be dot-separated keys, none empty or "
                    + "starting with '$'")
        }
    }
}
