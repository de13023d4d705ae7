import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import LiveCore
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct UserRepositoryTests {
    let fixture = ChatFixture()

    @Test func getUserIsLiveAcrossProfileChanges() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.registerUser(id: "bob", displayName: "Bob")
        let users = UserRepository(client: alice)
        let object = await users.getUser("bob").loaded()
        #expect(object.snapshot?.displayName == "Bob")
        #expect(object.dataStatus == .fresh)

        let renamed = try await UserRepository(client: bob).updateCurrentUser(displayName: "Robert")
        #expect(renamed.displayName == "Robert")
        await alice.synchronize()
        #expect(object.snapshot?.displayName == "Robert")
        // A second handle starts from the cache.
        #expect(users.getUser("bob").snapshot?.displayName == "Robert")
        #expect(try await users.getUser(userId: "bob").displayName == "Robert")
    }

    @Test func unknownUserIsReported() async throws {
        let alice = try await fixture.client("alice")
        let object = await UserRepository(client: alice).getUser("nobody").loaded()
        #expect(object.dataStatus == .error)
        #expect(object.error as? ChatError == .notFound("user 'nobody'"))
        await #expect(throws: ChatError.self) { try await UserRepository(client: alice).getUser(userId: "nobody") }
    }

    @Test func searchIsCaseAndDiacriticInsensitivePrefixAndPaginates() async throws {
        let alice = try await fixture.client("alice")
        let names = ["Álvaro": "u1", "alba": "u2", "ALICE": "u3", "Alina": "u4", "Bob": "u5", "Malice": "u6"]
        for (name, id) in names { try await fixture.server.registerUser(id: id, displayName: name) }
        let search = await UserRepository(client: alice).searchUsers(displayName: "al", pageSize: 2).loaded()
        #expect(search.snapshots.map(\.displayName) == ["alba", "ALICE"])
        #expect(search.hasNext)
        search.nextPage()
        #expect(search.loadingStatus == .loading)
        await search.loaded()
        #expect(search.snapshots.map(\.displayName) == ["alba", "ALICE", "Alina", "Álvaro"])
        while search.hasNext {
            search.nextPage()
            await search.loaded()
        }
        #expect(search.snapshots.map(\.userId) == ["u2", "u3", "u4", "u1"])
        let accented = await UserRepository(client: alice).searchUsers(displayName: "ÁLV").loaded()
        #expect(accented.snapshots.map(\.userId) == ["u1"])
        #expect(!accented.hasNext)
    }

    @Test func searchFollowsRenames() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let carol = try await fixture.client("carol")
        try await fixture.server.registerUser(id: "bob", displayName: "Bob")
        try await fixture.server.registerUser(id: "carol", displayName: "Bodil")
        let search = await UserRepository(client: alice).searchUsers(displayName: "bo").loaded()
        #expect(search.snapshots.map(\.userId) == ["bob", "carol"])
        let changes = Recorder<CollectionChange>()
        let previous = Recorder<[User]>()
        previous.append(search.snapshots)
        let token = search.observe(on: .synchronous) { collection, change, _ in
            if let change, let before = previous.last {
                #expect(change.applying(to: before, new: collection.snapshots) == collection.snapshots)
                changes.append(change)
            }
            previous.append(collection.snapshots)
        }
        defer { token.invalidate() }

        try await UserRepository(client: bob).updateCurrentUser(displayName: "Zed")  // leaves
        try await fixture.server.registerUser(id: "carol", displayName: "Boa")  // renamed in place (console)
        try await UserRepository(client: alice).updateCurrentUser(displayName: "böse")  // enters
        await alice.synchronize()
        _ = carol
        #expect(search.snapshots.map(\.displayName) == ["Boa", "böse"])
        #expect(changes.values.first == CollectionChange(deletions: [0]))
        #expect(changes.count >= 3)
    }

    @Test func invalidPageSizeIsReported() async throws {
        let alice = try await fixture.client("alice")
        let search = await UserRepository(client: alice).searchUsers(displayName: "a", pageSize: 500).loaded()
        #expect(search.dataStatus == .error)
        #expect(search.error is ChatError)
    }
}
