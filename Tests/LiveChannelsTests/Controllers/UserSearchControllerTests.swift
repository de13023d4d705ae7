import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

@MainActor
@Suite(.timeLimit(.minutes(2))) struct UserSearchControllerTests {
    let fixture = ChatFixture()

    @Test func searchMatchesAnyPartOfIdOrNameAndStaysLive() async throws {
        for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("rob-1", "Robert"), ("x-bo", nil), ("eve", "Bóris")] {
            try await fixture.server.registerUser(id: id, displayName: name)
        }
        let alice = try await fixture.client("alice")
        let search = alice.userSearchController()
        let spy = ControllerSpy()
        search.delegate = spy
        #expect(search.state == .initialized && search.userArray.isEmpty)

        let error: (any Error)? = await withCheckedContinuation { continuation in
            search.search(term: "BO") { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        // "bob" (id and name), "x-bo" (id), "Bóris" (name, diacritics folded); not "Robert".
        #expect(search.userArray.map(\.userId) == ["bob", "eve", "x-bo"])
        #expect(spy.states == [.localDataFetched, .remoteDataFetched])

        // Bob connects: his presence changes in place (alice looked him up).
        let bob = try await fixture.client("bob")
        await spy.until { search.userArray.first?.isOnline == true }
        #expect(spy.userChanges.last?.map(\.isUpdate) == [true])

        // Bob renames himself: still found by his id, he moves to the end ("Zed").
        try await UserRepository(client: bob).updateCurrentUser(displayName: "Zed")
        await spy.until { search.userArray.map(\.userId) == ["eve", "x-bo", "bob"] }

        // A new search replaces the results.
        try await search.search(term: "ali")
        #expect(search.userArray.map(\.userId) == ["alice"])
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func loadNextUsersHonoursTheLimit() async throws {
        for index in 0..<6 {
            try await fixture.server.registerUser(id: "user\(index)", displayName: "User \(index)")
        }
        let alice = try await fixture.client("alice")
        let search = alice.userSearchController()
        let spy = ControllerSpy()
        search.delegate = spy
        try await search.loadNextUsers(limit: 2)  // no search yet: everyone, first page
        #expect(search.userArray.count == 7)  // page size 25 > 7 users (alice and six)
        #expect(search.hasLoadedAllUsers)

        try await search.search(term: "user")
        #expect(search.userArray.count == 6)
        let small = alice.userSearchController()
        let smallSpy = ControllerSpy()
        small.delegate = smallSpy
        try await small.search(term: nil)
        #expect(small.userArray.count == 7)
        #expect(spy.inconsistencies.isEmpty && smallSpy.inconsistencies.isEmpty)
    }
}
