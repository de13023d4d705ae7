import AsyncHTTPClient
import ChatAPI
import ChatServer
import Foundation
import NIOCore
import NIOFoundationCompat

/// Delivers pushes to one provider (APNs, FCM, an operator's webhook).
public protocol PushProvider: Sendable {
    /// The name metrics and logs use (`webhook`, `apns`, `fcm`).
    var name: String { get }
    /// Whether it delivers pushes for `device` (APNs' tokens go to APNs, and so on).
    func handles(_ device: PushDevice) -> Bool
    /// Sends one push and says how it went. Never throws: a failure is an outcome.
    func send(_ notification: PushNotification) async -> PushOutcome
    /// Sends one push and says how it went and why (the provider's reason, how long it asked to
    /// wait before another try). Never throws. By default, ``send(_:)``'s outcome with the reason
    /// `ok` when sent and `other` else.
    func deliver(_ notification: PushNotification) async -> PushResult
}

extension PushProvider {
    public func deliver(_ notification: PushNotification) async -> PushResult {
        let outcome = await send(notification)
        return PushResult(outcome, reason: outcome == .sent ? PushResult.ok : PushResult.other)
    }
}

/// How a push went.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted by the provider.
    case sent
    /// The provider says the device is gone: the token is removed.
    case gone
    /// Worth trying again soon (429, FCM's 5xx, a connection that failed).
    case retry
    /// Refused for good (another 4xx, APNs' 5xx): dropped.
    case failed
}

/// How a push went with a provider, and why: what ``PushDelivery`` counts
/// (`chat_push_reasons_total{provider,result,reason}`), logs and waits for.
public struct PushResult: Sendable, Hashable {
    public var outcome: PushOutcome
    /// Why, as a value of a bounded set (it labels a metric): the provider's own reason when it
    /// is one of those it documents (APNs' `reason`, FCM's `errorCode` or `status`), ``ok``,
    /// ``noAnswer`` (no answer within 10 s, or no connection), ``credential`` (no credential
    /// could be made), `http<status>` for a few statuses (``http(_:)``), else ``other``.
    public var reason: String
    /// The status the provider answered (`nil`: no answer).
    public var status: Int?
    /// How long the provider asked to wait before trying again (`Retry-After`), for ``PushOutcome/retry``.
    public var retryAfter: Duration?

    public init(_ outcome: PushOutcome, reason: String, status: Int? = nil, retryAfter: Duration? = nil) {
        self.outcome = outcome
        self.reason = reason
        self.status = status
        self.retryAfter = retryAfter
    }

    /// The reason of a push the provider accepted.
    public static let ok = "ok"
    /// The reason of a push that got no answer (a connection refused or reset, 10 s of silence).
    public static let noAnswer = "noAnswer"
    /// The reason of a push for which no credential could be made (FCM's token endpoint refused
    /// the service account).
    public static let credential = "credential"
    /// The reason of a push whose provider's reason is none of those it documents.
    public static let other = "other"

    /// The statuses named in a reason (`http410`); another becomes `http4xx` or `http5xx`.
    static let namedStatuses: Set<Int> = [400, 401, 403, 404, 408, 410, 413, 429, 500, 502, 503, 504]

    /// The reason for an answer of `status` that says nothing more: `http410`, `http4xx`, ``other``.
    public static func http(_ status: Int) -> String {
        if namedStatuses.contains(status) { return "http\(status)" }
        switch status {
        case 400..<500: return "http4xx"
        case 500..<600: return "http5xx"
        default: return other
        }
    }

    /// `reason` when it is in `known`, else ``other``: what keeps a label's values bounded.
    static func known(_ reason: String?, in known: Set<String>) -> String? {
        reason.map { known.contains($0) ? $0 : other }
    }
}

/// An answer to a provider's `POST`.
struct ProviderAnswer: Sendable {
    var status: Int
    var body: Data
    /// The `Retry-After` header, in whole seconds or as an HTTP date (`nil`: absent or unreadable).
    var retryAfter: Duration?
}

extension HTTPClient {
    /// `POST`s `body` to `url` with `headers` and `content-type`, within 10 s; the answer's
    /// status, its body (at most 64 KB) and its `Retry-After`. Throws when no answer came (the
    /// caller retries).
    func post(
        _ url: String, headers: [(String, String)], contentType: String = "application/json", body: Data
    ) async throws -> ProviderAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await execute(request, timeout: .seconds(10))
        let answer = (try? await response.body.collect(upTo: 64 * 1024)).map { Data(buffer: $0) } ?? Data()
        return ProviderAnswer(
            status: Int(response.status.code), body: answer,
            retryAfter: response.headers.first(name: "retry-after").flatMap { Self.retryAfter($0) })
    }

    /// A `Retry-After` value: whole seconds (`3`), or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`)
    /// counted from `now`; `nil` when it is neither.
    static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = format.date(from: trimmed) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}

extension Date {
    /// Now, to the whole second below: what a JWT's `iat` and `exp` carry (Apple and Google
    /// document whole seconds; JWTKit would write a fraction).
    static func wholeSecond() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}
