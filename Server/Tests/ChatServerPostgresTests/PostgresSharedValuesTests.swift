import ChatServer
import Foundation
import PostgresNIO
import ServerTestSupport
import Testing

@testable import ChatServerPostgres

/// The values a cluster's nodes share (`chat.shared_values`), in a real PostgreSQL, through two
/// databases as two nodes hold them: nodes racing to store keep one value and are all told
/// which; a stored value is replaced only when it expired or was refused, and only once.
@Suite(.timeLimit(.minutes(2))) struct PostgresSharedValuesTests {
    @Test func nodesKeepOneValueAndReplaceOnlyWhatExpiredOrWasRefused() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let first = PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name)))
        let second = PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name)))
        try await first.prepare()
        try await second.prepare()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await first.sharedValue(for: "token", now: now) == nil)

        // Both nodes store at once: one value is kept, and both are told which.
        for round in 0..<20 {
            let key = "race-\(round)"
            async let one = first.storeSharedValue("A", for: key, until: now + 60, replacing: nil, now: now)
            async let other = second.storeSharedValue("B", for: key, until: now + 60, replacing: nil, now: now)
            let (kept, alsoKept) = try await (one, other)
            #expect(kept.value == alsoKept.value && ["A", "B"].contains(kept.value), "round \(round)")
            #expect(try await second.sharedValue(for: key, now: now)?.value == kept.value)
        }

        // A live value stays unless the writer saw that very value refused.
        #expect(
            try await first.storeSharedValue("T1", for: "token", until: now + 60, replacing: nil, now: now).value
                == "T1")
        let notTheStored = try await second.storeSharedValue(
            "T2", for: "token", until: now + 60, replacing: "T0", now: now)
        #expect(notTheStored.value == "T1" && notTheStored.until == now + 60)
        // T1 refused on both nodes: the first to store replaces it, the other reads that.
        #expect(
            try await second.storeSharedValue("T2", for: "token", until: now + 120, replacing: "T1", now: now).value
                == "T2")
        #expect(
            try await first.storeSharedValue("T3", for: "token", until: now + 120, replacing: "T1", now: now).value
                == "T2")
        #expect(try await first.sharedValue(for: "token", now: now + 119)?.until == now + 120)

        // Expired: not read, replaced by the next store, and forgotten under every key.
        #expect(try await first.sharedValue(for: "token", now: now + 120) == nil)
        #expect(
            try await first.storeSharedValue("T4", for: "token", until: now + 200, replacing: nil, now: now + 120).value
                == "T4")
        let rows = try await first.client.query("SELECT count(*) FROM chat.shared_values", logger: first.logger)
            .collect().first?.decode(Int.self)
        #expect(rows == 1, "the 20 race values expired at +60 are gone")
        await first.close()
        await second.close()
    }
}
