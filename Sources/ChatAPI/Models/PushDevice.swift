import Foundation

/// A device's push token, registered for the current user so the server can reach the device
/// while the app is closed (Stream's `PushDevice`; Amity's `registerPushNotification`).
///
/// On the wire: `{"provider":"apn","token":HEX}` (APNs' token as lowercase hex) or
/// `{"provider":"firebase","token":TOKEN}`. A token has 1 to 4,096 characters.
public enum PushDevice: Sendable, Hashable, Codable {
    /// An Apple Push Notification service token, as `UIApplicationDelegate` gets it.
    case apn(token: Data)
    /// A Firebase Cloud Messaging registration token.
    case firebase(token: String)

    /// Who delivers the pushes of a ``PushDevice``.
    public enum Provider: String, Sendable, Hashable, Codable, CaseIterable {
        case apn
        case firebase
    }

    /// The provider.
    public var provider: Provider {
        switch self {
        case .apn: .apn
        case .firebase: .firebase
        }
    }

    /// The token as the provider's API takes it, and the device's id for
    /// `removeDevice(id:)`: APNs' token as lowercase hex, Firebase's as it is.
    public var id: String {
        switch self {
        case .apn(let token): token.map { String(format: "%02x", $0) }.joined()
        case .firebase(let token): token
        }
    }

    /// The device of `provider` whose token reads `id` (hex for APNs), or `nil` when `id` is not
    /// such a token: empty, longer than ``maximumTokenLength``, not hex (APNs), or holding
    /// spaces (Firebase). The server refuses such a token (`invalidArgument`).
    public init?(provider: Provider, id: String) {
        guard (1...Self.maximumTokenLength).contains(id.utf8.count) else { return nil }
        switch provider {
        case .apn:
            guard let bytes = Self.bytes(hex: id) else { return nil }
            self = .apn(token: bytes)
        case .firebase:
            guard !id.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
            self = .firebase(token: id)
        }
    }

    /// Whether the token is one the server accepts (see ``init(provider:id:)``).
    public var isValid: Bool { PushDevice(provider: provider, id: id) == self }

    /// The bytes that `hex` (an even number of hex digits) spells, or `nil`.
    private static func bytes(hex: String) -> Data? {
        guard hex.utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }

    /// The longest token accepted, in characters (bytes of its UTF-8).
    public static let maximumTokenLength = 4_096

    private enum CodingKeys: String, CodingKey { case provider, token }

    /// Decodes any token the wire can carry (an APNs token must be hex); whether the server
    /// accepts it is ``isValid``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let provider = try container.decode(Provider.self, forKey: .provider)
        let token = try container.decode(String.self, forKey: .token)
        switch provider {
        case .apn:
            guard let bytes = Self.bytes(hex: token) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .token, in: container, debugDescription: "an APNs token is written in hex")
            }
            self = .apn(token: bytes)
        case .firebase:
            self = .firebase(token: token)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(id, forKey: .token)
    }
}
