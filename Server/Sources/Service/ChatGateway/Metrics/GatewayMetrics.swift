import NIOConcurrencyHelpers
import Prometheus

/// What the gateway counts, in a Prometheus registry that `GET /metrics` exposes:
/// `chat_connections` (gauge), `chat_requests_total`, `chat_events_delivered_total`,
/// `chat_rejections_total{reason}`, and from the server at each scrape `chat_cluster_lag_seconds`
/// (gauge: how far this node's applied state is behind the change log; 0 on a single server),
/// `chat_log_entries` (gauge: the entries the cluster's change log keeps, as of this node's last
/// beat; 0 on a single server), `chat_db_commits_total` (transactions this node committed to
/// its database) and `chat_admin_requests_total` (calls of the admin API). Thread-safe.
public struct GatewayMetrics: Sendable {
    /// The registry behind `/metrics`; a `PrometheusMetricsFactory` over it carries swift-metrics'
    /// own metrics there too (`chat-server` bootstraps one).
    public let registry: PrometheusCollectorRegistry
    private let connections: Gauge
    private let requests: Counter
    private let events: Counter
    private let clusterLag: Gauge
    private let logEntries: Gauge
    private let commits: Counter
    private let adminRequests: Counter
    /// The commit count last added to ``commits``.
    private let commitsSeen = NIOLockedValueBox(0)
    private let pushQueueDepth: Gauge
    private let pushDropped: Counter
    /// The drop count last added to ``pushDropped``.
    private let droppedSeen = NIOLockedValueBox(0)

    /// Metrics in `registry` (a new one by default).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        connections = registry.makeGauge(
            descriptor: .init(
                metricName: "chat_connections", unitName: "", helpText: "WebSocket connections open"))
        requests = registry.makeCounter(
            descriptor: .init(
                metricName: "chat_requests", unitName: "total", helpText: "Requests received"))
        events = registry.makeCounter(
            descriptor: .init(
                metricName: "chat_events_delivered", unitName: "total", helpText: "Events sent to devices"))
        clusterLag = registry.makeGauge(
            descriptor: .init(
                metricName: "chat_cluster_lag_seconds", unitName: "",
                helpText: "How far this node's applied state is behind the cluster's change log"))
        logEntries = registry.makeGauge(
            descriptor: .init(
                metricName: "chat_log_entries", unitName: "",
                helpText: "Entries the cluster's change log keeps (it is trimmed below what every live node applied)"))
        commits = registry.makeCounter(
            descriptor: .init(
                metricName: "chat_db_commits", unitName: "total", helpText: "Transactions committed to the database"))
        pushQueueDepth = registry.makeGauge(
            descriptor: .init(
                metricName: "chat_push_queue_depth", unitName: "", helpText: "Pushes waiting for their provider"))
        pushDropped = registry.makeCounter(
            descriptor: .init(
                metricName: "chat_push_dropped", unitName: "total",
                helpText: "Pushes dropped because the queue was full (a provider down or slow)"))
        adminRequests = registry.makeCounter(
            descriptor: .init(
                metricName: "chat_admin_requests", unitName: "total",
                helpText: "Calls of the admin API (/admin/v1/) by admins"))
        // Every reason is exposed from the start, at 0: a scraper (and a rate() over it) sees
        // the series before the first refusal of its kind.
        for reason in Self.rejectionReasons { _ = rejections(reason) }
    }

    /// The reasons a refusal is counted under: before the upgrade (`unauthorized`, `forbidden`,
    /// `limitExceeded`, `unavailable`), per request (`rateLimited`, `limitExceeded`) and per close (`protocol`,
    /// `tooBig`, `rateLimited`, `tooSlow`, `heartbeatTimeout`).
    static let rejectionReasons = [
        "unauthorized", "forbidden", "limitExceeded", "unavailable", "rateLimited", "protocol", "tooBig", "tooSlow",
        "heartbeatTimeout",
    ]

    func connectionOpened() { connections.increment() }
    package func adminRequest() { adminRequests.increment() }
    func connectionClosed() { connections.decrement() }
    func requestReceived() { requests.increment() }
    func eventDelivered() { events.increment() }

    /// Counts a refusal under one of ``rejectionReasons``.
    func rejected(_ reason: String) {
        rejections(reason).increment()
    }

    /// The counter of refusals for `reason` (the registry returns the same one every time).
    private func rejections(_ reason: String) -> Counter {
        registry.makeCounter(
            descriptor: .init(
                metricName: "chat_rejections", unitName: "total", helpText: "Refused connections and requests"),
            labels: [("reason", reason)])
    }

    /// Takes the server's own figures (cluster lag, database commits) before a scrape.
    func refresh(lag: Double, logEntries entries: Int, commits total: Int) {
        clusterLag.set(lag)
        logEntries.set(Double(entries))
        let added = commitsSeen.withLockedValue { seen -> Int in
            defer { seen = max(seen, total) }
            return max(0, total - seen)
        }
        if added > 0 { commits.increment(by: Int64(added)) }
    }

    /// Counts a push's outcome with a provider (`sent`, `gone`, `retry` after the last attempt,
    /// `failed`): in `chat_push_sent_total{provider,result}` (its labels as API.md pins them) and,
    /// with the reason (``PushResult/reason``: a bounded set), in
    /// `chat_push_reasons_total{provider,result,reason}` — where an operator sees why pushes fail.
    public func pushSent(provider: String, result: String, reason: String) {
        registry.makeCounter(
            descriptor: .init(
                metricName: "chat_push_sent", unitName: "total", helpText: "Pushes handed to a provider, by outcome"),
            labels: [("provider", provider), ("result", result)]
        ).increment()
        registry.makeCounter(
            descriptor: .init(
                metricName: "chat_push_reasons", unitName: "total",
                helpText: "Pushes handed to a provider, by outcome and the provider's reason"),
            labels: [("provider", provider), ("result", result), ("reason", reason)]
        ).increment()
    }

    /// Takes the push queue's figures: how many wait, and how many were dropped so far.
    public func pushQueueDepth(_ depth: Int, dropped total: Int) {
        pushQueueDepth.set(Double(depth))
        let added = droppedSeen.withLockedValue { seen -> Int in
            defer { seen = max(seen, total) }
            return max(0, total - seen)
        }
        if added > 0 { pushDropped.increment(by: Int64(added)) }
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
