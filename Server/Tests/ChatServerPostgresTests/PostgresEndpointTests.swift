import ChatServerPostgres
import Foundation
import Testing

/// `--postgres URL`: what parses, what is refused with a reason, and TLS as libpq's `sslmode`.
@Suite struct PostgresEndpointTests {
    @Test func aURLGivesEveryPart() throws {
        let endpoint = try PostgresEndpoint(
            url: "postgresql://chat:p%40ss@db.internal:6543/chat%5Fmain?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(endpoint.host == "db.internal")
        #expect(endpoint.port == 6543)
        #expect(endpoint.user == "chat")
        #expect(endpoint.password == "p@ss")
        #expect(endpoint.database == "chat_main")
        #expect(endpoint.tls == .verifyFull)
        #expect(endpoint.trustedCertificates == "/etc/ca.pem")
        #expect(!endpoint.description.contains("p@ss"), "the password stays out of messages")
        let plain = try PostgresEndpoint(url: "postgres://chat@localhost/chat")
        #expect(plain.port == 5432 && plain.password == nil && plain.tls == .prefer, "libpq's defaults")
        for mode in PostgresEndpoint.TLSMode.allCases {
            #expect(try PostgresEndpoint(url: "postgres://u@h/d?sslmode=\(mode.rawValue)").tls == mode)
        }
    }

    @Test(arguments: [
        ("mysql://u@h/d", "not a postgres:// URL"),
        ("postgres://h/d", "no user"),
        ("postgres://u@h", "no database"),
        ("postgres://u@h:0/d", "port"),
        ("postgres://u@h/d?sslmode=always", "sslmode 'always'"),
        ("postgres://u@h/d?connect_timeout=3", "'connect_timeout' is not supported"),
    ])
    func aURLThatCannotBeUsedSaysWhy(url: String, reason: String) {
        #expect {
            _ = try PostgresEndpoint(url: url)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
