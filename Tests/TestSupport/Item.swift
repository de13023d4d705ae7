/// A minimal identifiable element for diff tests and benchmarks: identity is `id`, content is
/// `value`.
public struct Item: Identifiable, Equatable, Hashable, Sendable, CustomStringConvertible {
    public var id: Int
    public var value: Int

    public init(id: Int, value: Int = 0) {
        self.id = id
        self.value = value
    }

    public var description: String { "\(id):\(value)" }
}

extension Array where Element == Item {
    /// Items with the given ids and value 0.
    public init(ids: [Int]) {
        self = ids.map { Item(id: $0) }
    }
}
