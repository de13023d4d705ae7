import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

/// Registering a device for pushes, as the Amity calls (`registerPushNotification`,
/// `unregisterPushNotification`), Stream's (`addDevice`, `removeDevice`) and the per-channel
/// `ChannelNotificationsManager` do it, against the embedded server.
@Suite(.timeLimit(.minutes(1))) struct PushRegistrationTests {
    let fixture = ChatFixture()

    @Test func amitysCallsRegisterAndUnregisterThisDevicesToken() async throws {
        let alice = try await fixture.client("alice")
        try await alice.registerPushNotification(withDeviceToken: "0AFF10")
        #expect(fixture.server.pushDevices(userId: "alice") == [.apn(token: Data([0x0a, 0xff, 0x10]))])
        // Again: nothing changes.
        try await alice.registerPushNotification(withDeviceToken: "0aff10")
        #expect(fixture.server.pushDevices(userId: "alice").count == 1)
        // Not hex: refused, naming the field; another user's unregistering: refused.
        #expect(
            await chatError { try await alice.registerPushNotification(withDeviceToken: "not hex") }?.cause
                == "invalidArgument")
        #expect(
            await chatError { try await alice.unregisterPushNotification(forUserId: "bob") }?.cause == "invalidArgument"
        )
        try await alice.unregisterPushNotification(forUserId: "alice")
        #expect(fixture.server.pushDevices(userId: "alice").isEmpty)
        #expect(await chatError { try await alice.unregisterPushNotification(forUserId: "alice") }?.cause == "notFound")
    }

    @Test func aTokenBelongsToOneUserAndStreamsCallsAddAndRemoveIt() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob", deviceId: "tablet")
        let aliceUser = await alice.currentUserController()
        try await aliceUser.addDevice(.firebase(token: "fcm-token-1"))
        try await aliceUser.addDevice(.apn(token: Data([1, 2, 3])))
        #expect(Set(fixture.server.pushDevices(userId: "alice").map(\.id)) == ["fcm-token-1", "010203"])
        // The same token registered by bob (the phone changed hands): it moves.
        try await bob.currentUserController().addDevice(.firebase(token: "fcm-token-1"))
        #expect(fixture.server.pushDevices(userId: "alice").map(\.id) == ["010203"])
        #expect(fixture.server.pushDevices(userId: "bob") == [.firebase(token: "fcm-token-1")])
        try await aliceUser.removeDevice(id: "010203")
        #expect(fixture.server.pushDevices(userId: "alice").isEmpty)
        #expect(await chatError { try await aliceUser.removeDevice(id: "fcm-token-1") }?.cause == "notFound")
        #expect(await chatError { try await aliceUser.addDevice(.firebase(token: "")) }?.cause == "invalidArgument")
        // The completion form.
        let done = await withCheckedContinuation { continuation in
            Task { @MainActor in
                aliceUser.addDevice(.firebase(token: "fcm-token-2")) { error in
                    continuation.resume(returning: error == nil)
                }
            }
        }
        #expect(done && fixture.server.pushDevices(userId: "alice") == [.firebase(token: "fcm-token-2")])
    }

    @Test func aChannelsNotificationsAreOnUntilTurnedOffForMembersOnly() async throws {
        let alice = try await fixture.client("alice")
        let carol = try await fixture.client("carol")
        try await makeClub("ops", by: alice)
        let notifications = ChannelNotificationsManager(client: alice, channelId: "ops")
        #expect(try await notifications.isEnabled())
        try await notifications.disable()
        #expect(try await notifications.isEnabled() == false)
        let enabled = await withCheckedContinuation { continuation in
            notifications.enable { worked, _ in continuation.resume(returning: worked) }
        }
        #expect(enabled)
        #expect(try await notifications.isEnabled())
        let outsider = ChannelNotificationsManager(client: carol, channelId: "ops")
        #expect(await chatError { try await outsider.disable() }?.cause == "forbidden")
        let nowhere = ChannelNotificationsManager(client: alice, channelId: "nowhere")
        #expect(await chatError { _ = try await nowhere.isEnabled() }?.cause == "notFound")
    }

    @Test func pushDevicesCodeAsTheWireSays() throws {
        let apn = try JSONEncoder().encode(PushDevice.apn(token: Data([0x0a, 0xff])))
        #expect(String(decoding: apn, as: UTF8.self).contains(#""token":"0aff""#))
        #expect(try JSONDecoder().decode(PushDevice.self, from: apn) == .apn(token: Data([0x0a, 0xff])))
        let bad = Data(#"{"provider":"apn","token":"xyz"}"#.utf8)
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(PushDevice.self, from: bad) }
        #expect(PushDevice(provider: .firebase, id: "has space") == nil)
        #expect(!PushDevice.firebase(token: "").isValid && PushDevice.firebase(token: "t").isValid)
        #expect(PushDevice(provider: .apn, id: "abc") == nil)
    }
}
