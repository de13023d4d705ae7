/// The cache file is ours but cannot be used as it is (damaged rows, a schema from a newer
/// build): it is rebuilt as an empty cache.
enum StoreDamage: Error, Sendable {
    case undecodable(kind: String, key: String)
    case newerSchema(Int)
}
