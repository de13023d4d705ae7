import ChatAPI
import Foundation
import RowCoding

/// A user as the server's storage keeps it: the ``User`` and, when the user is banned from the
/// whole service, since when.
///
/// Its row is a ``User`` row followed, only for a banned user, by the ban's time: a row written
/// before service bans existed reads as a user who is not banned.
struct StoredUser: Sendable, Hashable {
    var user: User
    var bannedAt: Date?
}

extension StoredUser: RowCodable {
    static var rowTag: UInt8 { User.rowTag }

    func writeFields(to writer: inout RowWriter) throws(RowCodingError) {
        try user.writeFields(to: &writer)
        if let bannedAt { writer.write(bannedAt) }
    }

    init(fields reader: inout RowReader) throws(RowCodingError) {
        let user = try User(fields: &reader)
        self.init(user: user, bannedAt: reader.remaining > 0 ? try reader.date() : nil)
    }
}
