import ChatAPI
import Testing

@Suite struct UserSearchQueryTests {
    static let users = [
        User(userId: "u1", displayName: "Álvaro"),
        User(userId: "u2", displayName: "alice"),
        User(userId: "u3", displayName: "Bob Alder"),
        User(userId: "u4"),
        User(userId: "u5", displayName: "ALICE"),
    ]

    static func search(_ prefix: String) throws -> [String] {
        let query = UserSearchQuery(displayNamePrefix: prefix)
        return try query.page(of: users.filter(query.matches), after: nil, limit: 20).items.map(
            \.userId)
    }

    @Test func prefixIgnoresCaseAndDiacritics() throws {
        #expect(try Self.search("al") == ["u5", "u2", "u1"])
        #expect(try Self.search("ÁLV") == ["u1"])
        #expect(try Self.search("alder").isEmpty)
        #expect(try Self.search("") == ["u5", "u2", "u1", "u3"])
    }

    @Test func validation() throws {
        try UserSearchQuery(displayNamePrefix: "a").validate()
        #expect(throws: ChatError.self) {
            try UserSearchQuery(displayNamePrefix: "a", pageSize: 500).validate()
        }
    }
}
