import ChatServer
import Foundation
import LiveChannels
import Testing

// The helpers the API contract suites (`*ContractTests` in this folder) share: a log of what
// callbacks saw, the main-queue check, connecting a client, waiting for a loaded value or for a
// condition, the `ChatError` a call throws, and a conformance check. Internal, as the suites are
// in several files (distinct names: the test target shares one module).

/// A lock-guarded list of what callbacks saw, readable from any thread.
final class Log<Item: Sendable>: @unchecked Sendable {
    /// Guards `items`.
    private let lock = NSLock()
    private var items: [Item] = []

    func append(_ item: Item) { lock.withLock { items.append(item) } }
    var all: [Item] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

/// Whether code runs on the main queue, where the main actor runs (`Thread.isMainThread` is not
/// reliable under `swift test` on Linux).
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Marks the main queue; call before observing.
    static func prepare() { _ = key }
}

func connectedClient(_ server: ChatServer, _ userId: String, deviceId: String = "phone") async throws -> ChatClient {
    let client = ChatClient(transport: server.connection(userId: userId, deviceId: deviceId))
    try await client.connect()
    return client
}

/// The value of `object` once it is no longer loading; throws its error if it has no value.
func loadedValue(of object: LiveObject<Channel>) async throws -> Channel {
    for await _ in object.values where object.loadingStatus != .loading { break }
    if let error = object.error { throw error }
    return try #require(object.snapshot)
}

func ids<Element: Identifiable>(_ elements: [Element]) -> [Element.ID] { elements.map(\.id) }

/// The `ChatError` `body` throws, or `nil` when it succeeds (another error is recorded).
func thrownChatError(_ body: () async throws -> Void) async -> ChatError? {
    do {
        try await body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        Issue.record("not a ChatError: \(error)")
        return nil
    }
}

/// Checks `condition` after each turn of the other tasks until it holds, giving up after
/// 10 s (a bound for a failing test, not a wait a passing test depends on). Runs in the caller's
/// isolation, so a main-actor test may read its controllers in `condition`.
func eventually(
    isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

func requireSendableEquatable<T: Sendable & Equatable>(_: T.Type) {}
