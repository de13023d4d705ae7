import Prometheus

/// What the gateway counts, in a Prometheus registry that `GET /metrics` exposes:
/// `chat_connections` (gauge), `chat_requests_total`, `chat_events_delivered_total` and
/// `chat_rejections_total{reason}`. Thread-safe.
public struct GatewayMetrics: Sendable {
    /// The registry behind `/metrics`; a `PrometheusMetricsFactory` over it carries swift-metrics'
    /// own metrics there too (`chat-server` bootstraps one).
    public let registry: PrometheusCollectorRegistry
    private let connections: Gauge
    private let requests: Counter
    private let events: Counter

    /// Metrics in `registry` (a new one by default).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        connections = registry.makeGauge(descriptor: .init(
            metricName: "chat_connections", unitName: "", helpText: "WebSocket connections open"))
        requests = registry.makeCounter(descriptor: .init(
            metricName: "chat_requests", unitName: "total", helpText: "Requests received"))
        events = registry.makeCounter(descriptor: .init(
            metricName: "chat_events_delivered", unitName: "total", helpText: "Events sent to devices"))
    }

    func connectionOpened() { connections.increment() }
    func connectionClosed() { connections.decrement() }
    func requestReceived() { requests.increment() }
    func eventDelivered() { events.increment() }

    /// Counts a refusal: `unauthorized`, `protocol`, `rateLimited`, …
    func rejected(_ reason: String) {
        registry.makeCounter(
            descriptor: .init(metricName: "chat_rejections", unitName: "total", helpText: "Refused connections and requests"),
            labels: [("reason", reason)]
        ).increment()
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
