import ChatAPI
import Foundation
import Testing

@Suite struct ChatErrorTests {
    @Test(arguments: Fixtures.errors)
    func codableRoundTrip(_ error: ChatError) throws {
        #expect(try roundTrip(error) == error)
    }

    @Test func fixturesCoverEveryCase() {
        #expect(Set(Fixtures.errors.map(caseName)).count == 8)
    }

    @Test func invalidArgumentNamesTheField() {
        let error = ChatError.invalidArgument(field: "pageSize", reason: "must be at least 1")
        #expect(error.description.contains("'pageSize'"))
        #expect(error.localizedDescription == error.description)
    }
}
