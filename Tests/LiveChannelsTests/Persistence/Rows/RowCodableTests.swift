import ChatAPI
import Foundation
@_spi(Persistence) @testable import LiveChannels
@testable import RowCoding
import Testing

/// Every stored field of every cached kind survives the row encoding; rows of one kind are not
/// read as another.
@Suite struct RowCodableTests {
    @Test func theSamplesSetEveryStoredField() {
        // A field added to a model later is caught here until the samples set it, and then by
        // the round trips below until the row encoding writes it.
        let samples: [Any] = [RowSamples.channel, RowSamples.member, RowSamples.message, RowSamples.user]
        for (sample, empty) in zip(samples, RowSamples.defaults) {
            #expect(RowSamples.unsetFields(of: sample, comparedWith: empty) == [], "\(type(of: sample))")
            #expect(RowSamples.storedFields(of: sample).keys.contains("version"))
        }
        #expect(RowSamples.storedFields(of: RowSamples.channel).count == 24)  // 23 fields + version
    }

    @Test func channelsRoundTrip() throws {
        let decoded = try Channel.decodeRow(RowSamples.encode(RowSamples.channel))
        #expect(decoded == RowSamples.channel)
        #expect(decoded.version == RowSamples.channel.version)  // `==` ignores the version
    }

    @Test func membersRoundTripWithTheirProfile() throws {
        let decoded = try ChannelMember.decodeRow(RowSamples.encode(RowSamples.member))
        #expect(decoded == RowSamples.member)
        #expect(decoded.version == RowSamples.member.version)
        #expect(decoded.user?.version == RowSamples.user.version)
        var withoutProfile = RowSamples.member
        withoutProfile.user = nil
        #expect(try ChannelMember.decodeRow(RowSamples.encode(withoutProfile)).user == nil)
    }

    @Test func messagesRoundTrip() throws {
        let decoded = try Message.decodeRow(RowSamples.encode(RowSamples.message))
        #expect(decoded == RowSamples.message)
        #expect(decoded.version == RowSamples.message.version)
    }

    /// Each sync state survives the row; a synced message's row ends where rows written before
    /// sync states existed end, so old files (and server stores) read the same.
    @Test func everySyncStateRoundTripsAndASyncedRowIsUnchanged() throws {
        for state in [MessageSyncState.synced, .syncing, .failed(.rateLimited(retryAfter: 2.5))] {
            var message = RowSamples.message
            message.syncState = state
            #expect(try Message.decodeRow(RowSamples.encode(message)).syncState == state)
        }
        // A failure holding a number JSON has no word for is written too (the write trapped).
        for retryAfter in [Double.infinity, -.infinity, .nan, 1e300] {
            var message = RowSamples.message
            message.syncState = .failed(.rateLimited(retryAfter: retryAfter))
            let read = try Message.decodeRow(RowSamples.encode(message)).syncState
            guard case .failed(.rateLimited(let readBack)) = read else {
                Issue.record("\(retryAfter) read back as \(read)")
                continue
            }
            #expect(readBack == retryAfter || (readBack.isNaN && retryAfter.isNaN), "\(retryAfter) → \(readBack)")
        }
        var synced = RowSamples.message
        synced.syncState = .synced
        var syncing = synced
        syncing.syncState = .syncing
        let (short, long) = (try RowSamples.encode(synced), try RowSamples.encode(syncing))
        // The synced row ends with `isDeleted` as a Boolean, as rows always did; the local one
        // flags the sync state that follows in that byte.
        #expect(short.last == 1 && long[short.count - 1] == 3 && long.last == 1 && long.count == short.count + 1)
        #expect(Array(long.prefix(short.count - 1)) == Array(short.prefix(short.count - 1)))
    }

    @Test func usersRoundTrip() throws {
        let decoded = try User.decodeRow(RowSamples.encode(RowSamples.user))
        #expect(decoded == RowSamples.user)
        #expect(decoded.version == RowSamples.user.version)
    }

    @Test func emptyValuesRoundTrip() throws {
        let channel = Channel(channelId: "", type: .standard)
        #expect(try Channel.decodeRow(RowSamples.encode(channel)) == channel)
        let message = Message(messageId: "", channelId: "", sequence: 0, userId: "", text: "")
        #expect(try Message.decodeRow(RowSamples.encode(message)) == message)
    }

    @Test func everyChannelTypeAndMembershipRoundTrips() throws {
        for type in ChannelType.allCases {
            for membership in Membership.allCases {
                var channel = RowSamples.channel
                channel.type = type
                channel.currentUserMembership = membership
                #expect(try Channel.decodeRow(RowSamples.encode(channel)) == channel)
            }
        }
    }

    @Test func aRowOfAnotherKindDoesNotDecode() throws {
        let channel = try RowSamples.encode(RowSamples.channel)
        #expect(throws: RowCodingError.self) { try Message.decodeRow(channel) }
        #expect(throws: RowCodingError.self) { try User.decodeRow(channel) }
        #expect(throws: RowCodingError.self) { try ChannelMember.decodeRow(channel) }
        #expect(throws: RowCodingError.self) { try Channel.decodeRow(RowSamples.encode(RowSamples.user)) }
    }

    @Test func bytesAfterTheValueDoNotDecode() throws {
        let row = try RowSamples.encode(RowSamples.user)
        #expect(throws: RowCodingError.invalid("1 bytes after the value")) { try User.decodeRow(row + [0]) }
    }

    @Test func aJSONRowIsNotARow() throws {
        // What a file of schema version 1 holds.
        let json = try [UInt8](JSONEncoder().encode(RowSamples.channel))
        #expect(throws: RowCodingError.self) { try Channel.decodeRow(json) }
    }
}
