/// How many of a node's pushes wait for their providers, and how many were dropped, read when
/// `/metrics` is scraped (the node's `ChatPush` lanes give it).
public typealias PushQueueCounts = @Sendable () -> (depth: Int, dropped: Int)
