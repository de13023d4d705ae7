import ChatAPI
import Foundation
import Testing

@Suite struct ChatResponseTests {
    @Test(arguments: Fixtures.responses)
    func codableRoundTrip(_ response: ChatResponse) throws {
        #expect(try roundTrip(response) == response)
    }

    @Test func fixturesCoverEveryCase() {
        let names = Set(Fixtures.responses.map(caseName))
        #expect(names.count == Fixtures.responses.count)
        #expect(names.count == 12)
    }

    @Test func accessorsReturnOnlyTheirCase() {
        let channel = ChatResponse.channel(Fixtures.channel)
        #expect(channel.channelValue == Fixtures.channel)
        #expect(channel.messageValue == nil)
        #expect(ChatResponse.bool(false).boolValue == false)
        #expect(ChatResponse.empty.boolValue == nil)
        #expect(ChatResponse.members([Fixtures.member]).membersValue == [Fixtures.member])
        #expect(ChatResponse.message(Fixtures.message).messageValue == Fixtures.message)
        #expect(ChatResponse.user(Fixtures.user).userValue == Fixtures.user)
        for response in Fixtures.responses {
            let hits = [
                response.channelValue != nil, response.channelsValue != nil,
                response.membersValue != nil, response.memberPageValue != nil,
                response.messageValue != nil, response.messagesValue != nil,
                response.userValue != nil, response.usersValue != nil, response.boolValue != nil,
                response.flagReportsValue != nil, response.moderationSettingsValue != nil,
            ].filter { $0 }.count
            #expect(hits == (response == .empty ? 0 : 1), "\(response)")
        }
    }
}
