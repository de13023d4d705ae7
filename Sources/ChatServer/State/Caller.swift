/// Who performs an operation: a connected user, or the console (the server-side API, which is
/// trusted and bypasses permissions, but not the rules of channel types).
enum Caller: Sendable, Hashable {
    case console
    case user(String)

    var userId: String? {
        if case .user(let id) = self { id } else { nil }
    }
}
