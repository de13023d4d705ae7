/// What the cache file may hold before it evicts.
///
/// - Messages beyond `messagesPerChannel` in a channel are evicted, oldest (lowest sequence)
///   first.
/// - When the stored values exceed `totalBytes`, the oldest-stored rows are evicted until they
///   take 90% of it: messages first, then members, users, and channels the user is not a member
///   of. Channels the user is a member of are never evicted (the unread total needs them).
///
/// Eviction bounds the file, not the memory cache: what a running client shows stays.
public struct PersistenceLimits: Sendable, Hashable {
    /// Messages kept per channel; default 200.
    public var messagesPerChannel: Int
    /// Bytes of stored values (encoded entities) kept in all; default 64 MiB.
    public var totalBytes: Int

    /// Limits for the cache on disk: the newest `messagesPerChannel` messages of each channel, and about `totalBytes` of stored values (the oldest-stored rows are evicted past it).
    public init(messagesPerChannel: Int = 200, totalBytes: Int = 64 << 20) {
        self.messagesPerChannel = max(1, messagesPerChannel)
        self.totalBytes = max(1, totalBytes)
    }
}
