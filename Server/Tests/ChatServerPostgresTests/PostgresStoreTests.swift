import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing

@testable import ChatServerPostgres
import ServerTestSupport

/// The server's state in a real PostgreSQL (a throw-away cluster per test): everything comes
/// back after a restart, history beyond memory is read from the database, and `chat-server
/// --postgres` starts, refuses and exits as pinned.
@Suite(.timeLimit(.minutes(2))) struct PostgresStoreTests {
    private let chatServer = Subprocess.product("chat-server")

    private func database(_ cluster: PostgresCluster, _ name: String) throws -> PostgresServerDatabase {
        PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name)))
    }

    @Test func everythingComesBackAfterARestart() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let configuration = ServerConfiguration(messagesPerChannel: 3)
        let server = try await ChatServer(
            configuration: configuration, opening: .cluster(try database(cluster, name), nodeId: "n0"))
        _ = try await server.registerUser(id: "bob", displayName: "Bob")
        let alice = server.connection(userId: "alice", deviceId: "phone")
        _ = try await alice.connect(resumingAfter: nil)
        _ = try await alice.send(
            .createChannel(
                ChannelDraft(
                    type: .community, channelId: "room", userIds: ["bob"], tags: ["t"], metadata: ["k": .number(1)])))
        for number in 1...10 {
            _ = try await alice.send(.sendMessage(MessageDraft(channelId: "room", text: "m\(number)")))
        }
        _ = try await alice.send(.muteMembers(channelId: "room", userIds: ["bob"], period: 600))
        _ = try await alice.send(.setModerationSettings(channelId: "room", ModerationSettings(blockedWords: ["nope"])))
        let channel = server.channel("room")
        // Presence is not stored (everyone starts offline): members compare without their user.
        func stored(_ members: [ChannelMember]) -> [ChannelMember] {
            members.map {
                var member = $0; member.user = nil; return member
            }
        }
        let members = stored(server.members(channelId: "room"))
        let epoch = server.epoch
        await server.close()

        var restored = configuration
        restored.startsNewEpoch = true  // as after restoring a backup
        let renewed = try await ChatServer(
            configuration: restored, opening: .cluster(try database(cluster, name), nodeId: "n0"))
        let newEpoch = renewed.epoch
        #expect(newEpoch != epoch && !epoch.isEmpty)
        await renewed.close()
        let reopened = try await ChatServer(
            configuration: configuration, opening: .cluster(try database(cluster, name), nodeId: "n0"))
        #expect(reopened.epoch == newEpoch)
        #expect(reopened.channel("room") == channel)
        #expect(stored(reopened.members(channelId: "room")) == members)
        #expect(reopened.user("bob")?.displayName == "Bob")
        #expect(reopened.messages(channelId: "room").map(\.text) == ["m8", "m9", "m10"], "memory keeps three")
        // Older pages come from PostgreSQL; numbering continues.
        let again = reopened.connection(userId: "alice", deviceId: "phone")
        _ = try await again.connect(resumingAfter: nil)
        guard
            case .messages(let page) = try await again.send(
                .queryMessages(MessagePageQuery(channelId: "room", position: .before(sequence: 8), limit: 10))
            ).response
        else { Issue.record("not a page"); return }
        #expect(page.messages.map(\.text) == (1...7).map { "m\($0)" })
        let next = try await again.send(.sendMessage(MessageDraft(channelId: "room", text: "m11"))).response
            .messageValue
        #expect(next?.sequence == 11)
        await reopened.close()
    }

    /// A send with a client-chosen id happens once on PostgreSQL: its repeat after a restart
    /// answers the stored message; two nodes of a cluster asked at once with one id store one.
    @Test func aChosenMessageIdIsSentOnceAcrossARestartAndAcrossNodes() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let send = ChatRequest.sendMessage(MessageDraft(channelId: "room", text: "once", messageId: "m-once"))
        let create = ChatRequest.createChannel(ChannelDraft(type: .community, channelId: "room", userIds: ["bob"]))

        let single = try cluster.createDatabase()
        let server = try await ChatServer(opening: .cluster(try database(cluster, single), nodeId: "n0"))
        _ = try await server.registerUser(id: "bob")
        let alice = server.connection(userId: "alice", deviceId: "phone")
        _ = try await alice.connect(resumingAfter: nil)
        _ = try await alice.send(create)
        let first = try await alice.send(send).response.messageValue
        await server.close()
        let reopened = try await ChatServer(opening: .cluster(try database(cluster, single), nodeId: "n0"))
        let again = reopened.connection(userId: "alice", deviceId: "phone")
        _ = try await again.connect(resumingAfter: nil)
        let repeated = try await again.send(send).response.messageValue
        #expect(repeated == first && repeated?.sequence == 1)
        #expect(reopened.messages(channelId: "room").map(\.messageId) == ["m-once"])
        let bob = reopened.connection(userId: "bob", deviceId: "phone")
        _ = try await bob.connect(resumingAfter: nil)
        await #expect(throws: ChatError.alreadyExists("message 'm-once'")) {
            try await bob.send(.sendMessage(MessageDraft(channelId: "room", text: "mine", messageId: "m-once")))
        }
        await reopened.close()

        let shared = try cluster.createDatabase()
        let nodes = [
            try await ChatServer(opening: .cluster(try database(cluster, shared), nodeId: "n0")),
            try await ChatServer(opening: .cluster(try database(cluster, shared), nodeId: "n1")),
        ]
        _ = try await nodes[0].registerUser(id: "bob")
        let phone = nodes[0].connection(userId: "alice", deviceId: "phone")
        let laptop = nodes[1].connection(userId: "alice", deviceId: "laptop")
        _ = try await phone.connect(resumingAfter: nil)
        _ = try await laptop.connect(resumingAfter: nil)
        _ = try await phone.send(create)
        async let one = phone.send(send)
        async let other = laptop.send(send)
        let (a, b) = (try await one.response.messageValue, try await other.response.messageValue)
        #expect(a != nil && a == b && a?.sequence == 1)
        for node in nodes {
            let deadline = Date() + 10
            while node.messages(channelId: "room").isEmpty, Date() < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(node.messages(channelId: "room").map(\.messageId) == ["m-once"])
        }
        for node in nodes { await node.close() }
    }

    /// PostgreSQL killed (`pg_ctl -m immediate`) under a running server: a change fails within
    /// 10 s with `unavailable`, never hangs; PostgreSQL back, everything works again without a
    /// restart of the server, and every acknowledged message is in the database.
    @Test func aDatabaseThatGoesAwayFailsChangesInTimeAndComesBack() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let server = try await ChatServer(opening: .cluster(try database(cluster, name), nodeId: "n0"))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        var acknowledged = [try await server.sendMessage(as: "ann", channelId: "room", text: "before").messageId]
        try cluster.kill()
        let started = ContinuousClock.now
        do {
            _ = try await server.sendMessage(as: "ann", channelId: "room", text: "while away")
            Issue.record("acknowledged while PostgreSQL was away")
        } catch ChatError.unavailable {
        }
        #expect(ContinuousClock.now - started < .seconds(10), "failed in time")
        #expect(!server.isStorageHealthy, "what /healthz reports as 503")
        try cluster.restart()
        var back = false
        for _ in 0..<30 where !back {
            do {
                acknowledged.append(try await server.sendMessage(as: "ann", channelId: "room", text: "after").messageId)
                back = true
            } catch {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        #expect(back, "works again once PostgreSQL is back")
        #expect(server.isStorageHealthy)
        await server.close()
        let reopened = try await ChatServer(
            configuration: ServerConfiguration(messagesPerChannel: 100),
            opening: .cluster(try database(cluster, name), nodeId: "n0")
        )
        #expect(Set(acknowledged).isSubset(of: Set(reopened.messages(channelId: "room").map(\.messageId))))
        await reopened.close()
    }

    /// `chat-server --postgres` waiting for a database that is not up yet says so once, with how
    /// long it waits; stopped while it waits, it stops at once (status 0).
    @Test func chatServerSaysItIsWaitingForTheDatabase() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        try cluster.kill()
        let server = try Subprocess(
            chatServer, ["--dev", "--port", "0", "--postgres", cluster.url(name)],
            environment: ["CHAT_SERVER_SECRET": ""])
        try await Task.sleep(for: .seconds(3))
        #expect(server.process.isRunning, "chat-server waits for the database")
        server.process.terminate()
        let status = await server.exitStatus()
        let said = server.standardError  // a pipe: read once
        let notice =
            "chat-server: waiting for PostgreSQL at \(try PostgresEndpoint(url: cluster.url(name))) (up to 30 s)"
        #expect(said.components(separatedBy: notice).count == 2, "said once: \(said)")
        // SIGTERM (Ctrl-C) ends the wait at once: a stop, not a failure.
        #expect(status == 0 && said.contains("chat-server: stopped while waiting for PostgreSQL"), "\(said)")
    }

    @Test func chatServerRunsOnPostgresAndRefusesWhatItMustNotTouch() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        try await ChatServerProcess.expectStateKeptAcrossARestart(["--postgres", cluster.url(name)])

        // --postgres and --data exclude each other.
        let both = try Subprocess(
            chatServer, ["--dev", "--port", "0", "--postgres", cluster.url(name), "--data", "/tmp/x.sqlite"])
        #expect(await both.exitStatus() == 2)
        // A chat schema that is not ours is left untouched.
        let foreign = try cluster.createDatabase()
        try cluster.sql(
            "CREATE SCHEMA chat; CREATE TABLE chat.notes(body text); INSERT INTO chat.notes VALUES ('mine')",
            database: foreign)
        let refused = try Subprocess(chatServer, ["--dev", "--port", "0", "--postgres", cluster.url(foreign)])
        #expect(await refused.exitStatus() == 2)
        let refusal = refused.standardError
        #expect(refusal.contains("not a LiveChannels server's"), "\(refusal)")
        try cluster.sql("SELECT 1/(count(*) = 1 AND min(body) = 'mine')::int FROM chat.notes", database: foreign)
        // A URL that does not parse; a database that does not exist: one line, non-zero.
        let badURL = try Subprocess(chatServer, ["--dev", "--port", "0", "--postgres", "mysql://x"])
        #expect(await badURL.exitStatus() == 2)
        let missing = try Subprocess(
            chatServer, ["--dev", "--port", "0", "--postgres", cluster.url("no_such_database")])
        #expect(await missing.exitStatus() == 1)
        // A wrong password: one line, exit 1, at once; the right one starts.
        let guarded = try cluster.createDatabase()
        let wrong = try cluster.addPasswordRole("guard", password: "right", database: guarded, urlPassword: "wrong")
        let refusedLogin = try Subprocess(chatServer, ["--dev", "--port", "0", "--postgres", wrong])
        #expect(await refusedLogin.exitStatus() == 1)
        let loginError = refusedLogin.standardError
        #expect(loginError.contains("password authentication failed"), "\(loginError)")
        let (signedIn, _) = try await ChatServerProcess.start([
            "--postgres", wrong.replacingOccurrences(of: ":wrong@", with: ":right@"),
        ])
        signedIn.process.terminate()
        #expect(await signedIn.exitStatus() == 0)
        // TLS required of a PostgreSQL without it: refused at once, never sent in the clear.
        let started = ContinuousClock.now
        let clear = try Subprocess(
            chatServer, ["--dev", "--port", "0", "--postgres", cluster.url(name) + "?sslmode=require"])
        #expect(await clear.exitStatus() == 1)
        let clearError = clear.standardError
        #expect(clearError.contains("does not offer TLS"), "\(clearError)")
        #expect(ContinuousClock.now - started < .seconds(20), "without the 30 s wait")
        // An unknown URL parameter is refused, not ignored.
        let unknown = try Subprocess(
            chatServer, ["--dev", "--port", "0", "--postgres", cluster.url(name) + "?sslcert=x.pem"])
        #expect(await unknown.exitStatus() == 2)
    }

    /// A write that ends after a newer one committed (a transaction PostgreSQL kept while the
    /// server had given up on it) is rolled back: it cannot put older values back.
    @Test func aWriteOvertakenByANewerOneChangesNothing() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let writer = try database(cluster, name)
        _ = try await writer.open()
        func user(_ value: UInt8) -> ServerDatabaseBatch {
            var batch = ServerDatabaseBatch()
            batch.users = [ServerRow.User(userId: "ann", value: [value])]
            return batch
        }
        try await writer.writeTransaction(user(2), number: 2)
        await #expect(throws: PostgresStoreError.self) { try await writer.writeTransaction(user(1), number: 1) }
        let kept = try await writer.open().users.map(\.value)
        #expect(kept == [[2]], "the newer value stays")
        try await writer.writeTransaction(user(3), number: 3)
        await writer.close()
        let reopened = try database(cluster, name)
        let contents = try await reopened.open()
        #expect(contents.users.map(\.value) == [[3]])
        #expect(contents.counters.keys.allSatisfy { !$0.hasPrefix("write_fence") }, "fences are not counters")
        await reopened.close()
    }

    /// A restart asks for thousands of channels' newest messages in one read: every row asked
    /// for comes back, once, and no other.
    @Test func manyRangesAreReadInChunksAndNothingIsMissed() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let database = try database(cluster, try cluster.createDatabase())
        _ = try await database.open()
        var batch = ServerDatabaseBatch()
        let stored = [0, 4_999, 5_000, 9_999, 12_345]
        for channel in stored {
            for sequence in 1...3 {
                batch.messages.append(
                    ServerRow.Message(channelId: "c\(channel)", sequence: sequence, value: [UInt8(sequence)]))
            }
        }
        try await database.write(batch)
        let ranges = (0..<12_346).map { ServerRow.MessageRange(channelId: "c\($0)", sequences: 2...3) }
        let rows = try await database.messages(in: ranges)
        let found = rows.map { "\($0.channelId)/\($0.sequence)" }.sorted()
        #expect(found == stored.flatMap { ["c\($0)/2", "c\($0)/3"] }.sorted())
        await database.close()
    }
}
