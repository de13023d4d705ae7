import Foundation

/// Where a PostgreSQL database is, from a URL of the form
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (`postgresql://` too; the port defaults to
/// 5432; user, password and database may be percent-encoded).
public struct PostgresEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `url`.
    ///
    /// - Throws: ``PostgresEndpointError`` saying what is missing or wrong.
    public init(url text: String) throws(PostgresEndpointError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw PostgresEndpointError(reason: "not a postgres:// URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else { throw PostgresEndpointError(reason: "the URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw PostgresEndpointError(reason: "the URL names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresEndpointError(reason: "the URL names no database (…@HOST[:PORT]/DATABASE)")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw PostgresEndpointError(reason: "the port must be from 1 to 65535") }
        self.init(
            host: host, port: port, user: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.removingPercentEncoding ?? database)
    }

    /// The endpoint without its password, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// A PostgreSQL URL that cannot be used.
public struct PostgresEndpointError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var description: String { reason }
}
