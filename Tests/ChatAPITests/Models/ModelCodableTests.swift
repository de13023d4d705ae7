import ChatAPI
import Foundation
import Testing

@Suite struct ModelCodableTests {
    @Test func channelRoundTrip() throws {
        #expect(try roundTrip(Fixtures.channel) == Fixtures.channel)
        let bare = Channel(channelId: "c2", type: .conversation)
        #expect(try roundTrip(bare) == bare)
    }

    @Test func memberMessageUserRoundTrip() throws {
        #expect(try roundTrip(Fixtures.member) == Fixtures.member)
        #expect(try roundTrip(Fixtures.message) == Fixtures.message)
        #expect(try roundTrip(Fixtures.user) == Fixtures.user)
    }

    @Test func enumsRoundTrip() throws {
        for type in ChannelType.allCases { #expect(try roundTrip(type) == type) }
        for membership in Membership.allCases { #expect(try roundTrip(membership) == membership) }
        for permission in Permission.allCases { #expect(try roundTrip(permission) == permission) }
        for filter in ChannelQueryFilter.allCases { #expect(try roundTrip(filter) == filter) }
    }

    @Test func unreadCountIsForMembersOnly() {
        var channel = Fixtures.channel
        #expect(channel.unreadCount == 3)
        channel.currentUserMembership = .banned
        #expect(channel.unreadCount == 0)
    }
}
