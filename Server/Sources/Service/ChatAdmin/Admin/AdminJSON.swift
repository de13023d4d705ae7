import ChatGateway
import ChatAPI
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How the admin API (`/admin/v1/`, ``AdminRoutes``) reads and writes JSON: bodies in, the
/// protocol's models out (dates as seconds since 1970, as on the wire), and a refused call as the
/// protocol's `{"error":CHAT_ERROR}` with the status that names its case.
enum AdminJSON {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// The most bytes a request body may have.
    static let maximumBodyBytes = 1 << 20

    /// `value` as JSON, with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }

    /// `value` encoded as a JSON object, with `extra`'s keys added (values already JSON-encodable
    /// models): a model's own fields stay at the top level, beside what the admin API adds.
    static func object(_ value: some Encodable, adding extra: [String: any Encodable]) throws -> Response {
        guard var object = try JSONSerialization.jsonObject(with: try encoder.encode(value)) as? [String: Any] else {
            throw ChatError.unavailable("a model did not encode as a JSON object")
        }
        for (key, member) in extra {
            object[key] = try JSONSerialization.jsonObject(
                with: try encoder.encode(AnyEncodable(member)), options: [.fragmentsAllowed])
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// A refusal: `{"error":CHAT_ERROR}` (as the wire protocol writes errors) with its status.
    static func refusal(_ error: ChatError) -> Response {
        Response(
            status: status(of: error), headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: WireCodec.refusalBody(error))))
    }

    /// The HTTP status of each `ChatError` case.
    static func status(of error: ChatError) -> HTTPResponse.Status {
        switch error {
        case .notFound: return .notFound
        case .alreadyExists, .notAllowed: return .conflict
        case .forbidden: return .forbidden
        case .invalidArgument: return .badRequest
        case .limitExceeded, .rateLimited: return .tooManyRequests
        case .unavailable: return .serviceUnavailable
        case .unauthorized: return .unauthorized
        }
    }

    /// The request's body decoded as `Body`.
    ///
    /// - Throws: `invalidArgument` naming the field that is missing or of the wrong type (`body`
    ///   when the body is not JSON, or too big).
    static func body<Body: Decodable>(_ type: Body.Type, of request: Request) async throws(ChatError) -> Body {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodyBytes)
        } catch {
            throw .invalidArgument(field: "body", reason: "must be JSON of at most \(maximumBodyBytes) bytes")
        }
        do {
            return try decoder.decode(Body.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .invalidArgument(field: key.stringValue, reason: "is required")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidArgument(
                field: context.codingPath.last?.stringValue ?? "body", reason: "has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidArgument(
                field: context.codingPath.last?.stringValue ?? "body",
                reason: context.codingPath.isEmpty ? "must be a JSON object" : "is not valid")
        } catch {
            throw .invalidArgument(field: "body", reason: "must be a JSON object")
        }
    }

    /// Runs `work`, answering its `ChatError` (or any error, as `unavailable`) as a refusal.
    static func answer(_ work: () async throws -> Response) async -> Response {
        do {
            return try await work()
        } catch let error as ChatError {
            return refusal(error)
        } catch {
            return refusal(.unavailable("\(error)"))
        }
    }
}

/// Any encodable value (for ``AdminJSON/object(_:adding:)``).
private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
