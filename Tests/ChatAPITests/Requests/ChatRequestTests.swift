import ChatAPI
import Foundation
import Testing

@Suite struct ChatRequestTests {
    /// Exhaustive over the cases, so adding a case without a fixture fails to compile here
    /// and, once numbered, fails `fixturesCoverEveryCase`.
    static func ordinal(_ request: ChatRequest) -> Int {
        switch request {
        case .createChannel: 0
        case .joinChannel: 1
        case .leaveChannel: 2
        case .getChannel: 3
        case .queryChannels: 4
        case .updateChannel: 5
        case .deleteChannel: 6
        case .muteChannel: 7
        case .unmuteChannel: 8
        case .setRateLimit: 9
        case .removeRateLimit: 10
        case .addMembers: 11
        case .removeMembers: 12
        case .queryMembers: 13
        case .banMembers: 14
        case .unbanMembers: 15
        case .muteMembers: 16
        case .unmuteMembers: 17
        case .addRole: 18
        case .removeRole: 19
        case .sendMessage: 20
        case .editMessage: 21
        case .deleteMessage: 22
        case .queryMessages: 23
        case .startReading: 24
        case .stopReading: 25
        case .startTyping: 26
        case .stopTyping: 27
        case .getUser: 28
        case .searchUsers: 29
        case .updateCurrentUser: 30
        case .hasPermission: 31
        case .flagMessage: 32
        case .unflagMessage: 33
        case .flagUser: 34
        case .unflagUser: 35
        case .flagReports: 36
        case .getModerationSettings: 37
        case .setModerationSettings: 38
        case .addPushDevice: 39
        case .removePushDevice: 40
        case .setChannelNotifications: 41
        case .getChannelNotifications: 42
        }
    }
    static let caseCount = 43

    @Test func fixturesCoverEveryCase() {
        #expect(Set(Fixtures.requests.map(Self.ordinal)) == Set(0..<Self.caseCount))
    }

    @Test(arguments: Fixtures.requests)
    func codableRoundTrip(_ request: ChatRequest) throws {
        #expect(try roundTrip(request) == request)
    }

    @Test func draftsAndChangesRoundTrip() throws {
        let draft = ChannelDraft(type: .conversation, userIds: ["bob"])
        #expect(try roundTrip(draft) == draft)
        let changes = ChannelChanges(channelId: "c1", avatarFileId: "f")
        #expect(try roundTrip(changes) == changes)
        #expect(!changes.isEmpty)
        #expect(ChannelChanges(channelId: "c1").isEmpty)
    }

    @Test func distinctRequestsAreNotEqual() {
        #expect(ChatRequest.joinChannel(channelId: "a") != .joinChannel(channelId: "b"))
        #expect(ChatRequest.startReading(channelId: "a") != .stopReading(channelId: "a"))
    }
}
