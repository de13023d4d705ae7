import ChatAPI
import Foundation

/// Push notifications, Amity style: this device's token registered for the current user, so
/// the server can reach the device while no device of the user is connected.
///
/// ```swift
/// // In UIApplicationDelegate.application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
/// let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
/// try await client.registerPushNotification(withDeviceToken: hex)
/// ```
extension ChatClient {
    /// Registers this device's APNs token (as hex, the way Amity takes it) for the current user.
    /// A token another user registered moves to this one. Registering it again changes
    /// nothing.
    ///
    /// - Throws: `ChatError.invalidArgument(field: "deviceToken")` for a token that is not hex;
    ///   `.unavailable` when the server cannot be reached.
    public func registerPushNotification(withDeviceToken deviceToken: String) async throws {
        guard let device = PushDevice(provider: .apn, id: deviceToken.lowercased()) else {
            throw ChatError.invalidArgument(
                field: "deviceToken", reason: "must be the APNs device token in hex (1 to 4,096 characters)")
        }
        try await addPushDevice(device)
    }

    /// Removes this device's push tokens (those it registered) for `userId`, the current user:
    /// the server sends this device no more pushes.
    ///
    /// - Throws: `ChatError.invalidArgument(field: "userId")` for another user than the current
    ///   one; `.notFound` when this device registered no token.
    public func unregisterPushNotification(forUserId userId: String) async throws {
        guard userId == currentUserId else {
            throw ChatError.invalidArgument(
                field: "userId", reason: "'\(userId)' is not the current user ('\(currentUserId)')")
        }
        try sync.checkOpen()
        _ = try await transport.send(.removePushDevice(id: nil))
    }

    /// Registers `device` for the current user, as this device's.
    func addPushDevice(_ device: PushDevice) async throws {
        try sync.checkOpen()
        _ = try await transport.send(.addPushDevice(device))
    }

    /// Removes the current user's push token `id` (hex for APNs), registered from any device.
    func removePushDevice(id: String) async throws {
        try sync.checkOpen()
        _ = try await transport.send(.removePushDevice(id: id))
    }
}
