import ChatAPI
import Foundation
import Locking

/// A transport backed by an in-memory channel table instead of a server, so a benchmark can put
/// 100,000 channels behind a client and push events at it as fast as the client can apply them.
/// It answers channel queries (a filtered page, selected without sorting everything) and
/// `connect`; anything else is `unavailable`.
final class ScriptedTransport: ChatTransport {
    let userId: String
    let deviceId = "bench"
    let events: AsyncStream<ConnectionEvent>
    private let continuation: AsyncStream<ConnectionEvent>.Continuation
    /// Guards the channel table and the event sequence.
    private let state: Lock<(channels: [Channel], sequence: Int)>

    init(userId: String, channels: [Channel]) {
        self.userId = userId
        state = Lock((channels, 0))
        (events, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self, bufferingPolicy: .unbounded)
    }

    var lastEventSequence: Int { state.withLock { $0.sequence } }

    func connect(resumingAfter sequence: Int?) async throws -> ConnectResult {
        ConnectResult(status: .new, currentUser: User(userId: userId), lastSequence: lastEventSequence)
    }

    func disconnect() async {}

    func send(_ request: ChatRequest) async throws -> ResponseEnvelope {
        guard case .queryChannels(let query, let cursor) = request else {
            throw ChatError.unavailable("the scripted transport answers channel queries only")
        }
        let (channels, sequence) = state.withLock { ($0.channels, $0.sequence) }
        // Select the page: the `pageSize + 1` smallest matching keys after the cursor.
        var best: [(SortKey, Channel)] = []
        let limit = query.pageSize + 1
        for channel in channels
        where ClientBenchmark.isVisible(channel) && query.filter.matches(channel, viewerId: userId) {
            guard query.isAfter(channel, cursor: cursor) else { continue }
            let key = query.sortKey(for: channel)
            if best.count == limit, let last = best.last, !(key < last.0) { continue }
            let index = best.firstIndex { key < $0.0 } ?? best.count
            best.insert((key, channel), at: index)
            if best.count > limit { best.removeLast() }
        }
        let items = best.prefix(query.pageSize).map(\.1)
        let page = Page(
            items: items, next: items.last.map(query.cursor(after:)) ?? cursor, hasNext: best.count == limit)
        return ResponseEnvelope(position: sequence, revision: sequence, response: .channels(page))
    }

    /// Replaces a channel in the table and pushes the matching `channelUpdated` event.
    func update(_ channel: Channel, at index: Int) {
        continuation.yield(.event(stamp(channel, at: index)))
    }

    /// Replaces a channel in the table and returns the matching `channelUpdated` event without
    /// delivering it (for `ChatClient.applyEvents(_:)`).
    func stamp(_ channel: Channel, at index: Int) -> EventEnvelope {
        let (sequence, channel) = state.withLock { state in
            state.sequence += 1
            var channel = channel
            channel.version = state.sequence
            state.channels[index] = channel
            return (state.sequence, channel)
        }
        return EventEnvelope(sequence: sequence, event: .channelUpdated(channel))
    }

    func channel(at index: Int) -> Channel { state.withLock { $0.channels[index] } }
}
