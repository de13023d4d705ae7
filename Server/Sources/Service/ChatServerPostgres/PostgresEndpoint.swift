import Foundation

/// Where a PostgreSQL database is, and how to reach it, from a URL of the form
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE[&sslrootcert=PATH]]`
/// (`postgresql://` too; the port defaults to 5432; user, password and database may be
/// percent-encoded). `sslmode` takes libpq's names (``TLSMode``); any other parameter is refused,
/// so that a setting is never silently ignored.
public struct PostgresEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// Whether the connection is encrypted, and what is checked of the server's certificate.
    public var tls: TLSMode
    /// PEM certificates to trust instead of the system's (`sslrootcert`).
    public var trustedCertificates: String?

    /// TLS to PostgreSQL, as libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Never encrypted.
        case disable
        /// Encrypted when the server offers it, without checking its certificate; plain otherwise
        /// (libpq's default, and ours).
        case prefer
        /// Always encrypted, without checking the certificate; a server without TLS is refused.
        case require
        /// Always encrypted; the certificate must chain to a trusted root (any host name).
        case verifyCA = "verify-ca"
        /// Always encrypted; the certificate must chain to a trusted root and name the host.
        case verifyFull = "verify-full"
    }

    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer,
        trustedCertificates: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.trustedCertificates = trustedCertificates
    }

    /// Parses `url`.
    ///
    /// - Throws: ``PostgresEndpointError`` saying what is missing or wrong.
    public init(url text: String) throws(PostgresEndpointError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw PostgresEndpointError(
                reason: "not a postgres:// URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresEndpointError(reason: "the URL names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresEndpointError(reason: "the URL names no user")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresEndpointError(reason: "the URL names no database (…@HOST[:PORT]/DATABASE)")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else {
            throw PostgresEndpointError(reason: "the port must be from 1 to 65535")
        }
        var tls = TLSMode.prefer
        var trusted: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw PostgresEndpointError(reason: "sslmode '\(item.value ?? "")' is not one of \(modes)")
                }
                tls = mode
            case "sslrootcert":
                guard let path = item.value, !path.isEmpty else {
                    throw PostgresEndpointError(reason: "sslrootcert names no file")
                }
                trusted = path
            default:
                throw PostgresEndpointError(
                    reason: "the URL parameter '\(item.name)' is not supported (only sslmode and sslrootcert are)")
            }
        }
        self.init(
            host: host, port: port, user: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.removingPercentEncoding ?? database, tls: tls, trustedCertificates: trusted)
    }

    /// The endpoint without its password, for messages and logs.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (tls == .prefer ? "" : "?sslmode=\(tls.rawValue)")
    }
}

/// A PostgreSQL URL that cannot be used.
public struct PostgresEndpointError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var description: String { reason }
}
