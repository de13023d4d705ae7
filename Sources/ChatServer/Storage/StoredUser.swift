import ChatAPI
import Foundation
import RowCoding

/// A user as the server's storage keeps it: the ``User`` and what the server keeps of them
/// beside it — a ban from the whole service (since when), their push tokens, and the channels
/// whose push notifications they turned off.
///
/// Its row is a ``User`` row followed, only when one of those is set, by a format byte (1) and
/// them: a row written before they existed reads as a user with none.
struct StoredUser: Sendable, Hashable {
    var user: User
    var bannedAt: Date?
    var pushDevices: [PushRegistration] = []
    var notificationsOff: [String] = []

    var hasExtras: Bool { bannedAt != nil || !pushDevices.isEmpty || !notificationsOff.isEmpty }
}

extension StoredUser: RowCodable {
    static var rowTag: UInt8 { User.rowTag }
    private static let extrasFormat: UInt8 = 1

    func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        try user.writeFields(to: &writer)
        guard hasExtras else { return }
        writer.write(byte: Self.extrasFormat)
        writer.write(bannedAt)
        writer.write(count: pushDevices.count)
        for registration in pushDevices {
            writer.write(registration.deviceId)
            registration.device.write(to: &writer)
        }
        writer.write(notificationsOff)
    }

    init(fields reader: inout RowReader) throws(RowCodingError) {
        let user = try User(fields: &reader)
        self.init(user: user)
        guard reader.remaining > 0 else { return }
        let format = try reader.byte()
        guard format == Self.extrasFormat else { throw .invalid("a user's extras of format \(format)") }
        bannedAt = try reader.optionalDate()
        for _ in 0..<(try reader.count()) {
            let deviceId = try reader.string()
            let device = try PushDevice.read(from: &reader)
            pushDevices.append(PushRegistration(userId: user.userId, deviceId: deviceId, device: device))
        }
        notificationsOff = try reader.strings()
    }
}
