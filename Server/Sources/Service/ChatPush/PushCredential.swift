import Foundation

/// A credential a provider reuses until shortly before it expires — APNs' provider token (a
/// signed JWT, reused up to 50 minutes as Apple asks), FCM's OAuth2 access token (until its
/// `expires_in`) — made again when it is due or when the provider refused it.
///
/// One refresh at a time: the pushes in flight that find it due wait for the same one, so a
/// burst of pushes makes one token, not sixteen. The refresh is told which credential the
/// provider last refused, so that one shared by a cluster's nodes is replaced, not read back.
actor PushCredential {
    /// A credential and the moment it must no longer be used.
    struct Issued: Sendable {
        var value: String
        var usableUntil: Date
    }

    private let make: @Sendable (_ refused: String?) async throws -> Issued
    private var current: Issued?
    /// The credential the provider refused last.
    private var lastRefused: String?
    private var making: Task<Issued, any Error>?

    /// - Parameter make: makes a new credential (signs a JWT, asks a token endpoint), given the
    ///   one the provider refused last (`nil`: none).
    init(make: @escaping @Sendable (_ refused: String?) async throws -> Issued) {
        self.make = make
    }

    /// The credential to send with: the one held while it is usable, else a new one.
    /// - Throws: what `make` throws (the push is then retried).
    func value(now: Date = Date()) async throws -> String {
        if let current, current.usableUntil > now { return current.value }
        let task: Task<Issued, any Error>
        if let making {
            task = making
        } else {
            task = Task { [make, lastRefused] in try await make(lastRefused) }
            making = task
        }
        let issued: Issued
        do {
            issued = try await task.value
        } catch {
            if making == task { making = nil }
            throw error
        }
        // Kept only by the first caller back from this refresh: a later one must not put back a
        // credential refused meanwhile.
        if making == task {
            making = nil
            current = issued
        }
        return issued.value
    }

    /// Forgets `value` when the provider refused it (expired, revoked): the next push makes a
    /// new one.
    func refused(_ value: String) {
        lastRefused = value
        if current?.value == value { current = nil }
    }
}
