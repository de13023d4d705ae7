/// The page size rule shared by every paginated query.
enum PageSize {
    /// The largest page a query may ask for.
    static let maximum = 100

    /// Throws `ChatError.invalidArgument(field:)` unless `size` is in 1…`maximum`.
    static func validate(_ size: Int, field: String = "pageSize") throws {
        guard (1...maximum).contains(size) else {
            throw ChatError.invalidArgument(
                field: field, reason: "must be between 1 and \(maximum)")
        }
    }
}
