import ChatAPI
import Foundation

extension ServerState {
    /// Moves the member's read marker forward to `sequence` (the channel's last message when
    /// `nil`); a marker never moves back.
    ///
    /// - Throws: `invalidArgument(field: "sequence")` for a negative sequence; `notFound`;
    ///   `notAllowed`; `forbidden` (not a member).
    mutating func markRead(_ channelId: String, upTo sequence: Int?, userId: String, now: Date) throws(ChatError) {
        if let sequence, sequence < 0 {
            throw .invalidArgument(field: "sequence", reason: "must not be negative")
        }
        let lastSequence = try authorizedRecord(channelId, .read, by: .user(userId), now: now).info.lastSequence
        let target = min(sequence ?? lastSequence, lastSequence)
        moveReadMarker(of: userId, in: channelId, to: target)
    }

    /// Starts reading on one device: the marker jumps to the last message and follows every new
    /// one while any of the user's devices reads. Idempotent.
    ///
    /// - Throws: `invalidArgument(field: "deviceId")`; `notFound`; `notAllowed`; `forbidden`.
    mutating func startReading(_ channelId: String, userId: String, deviceId: String, now: Date) throws(ChatError) {
        try InputCheck.id(deviceId, field: "deviceId")
        let channel = try authorizedRecord(channelId, .read, by: .user(userId), now: now)
        guard channel.isMember(userId) else {
            throw .forbidden("only members of channel '\(channelId)' have a read marker; join it first")
        }
        let lastSequence = channel.info.lastSequence
        _ = consume channel
        channels[channelId]!.readers[userId, default: []].insert(deviceId)
        readingByDevice[DeviceKey(userId: userId, deviceId: deviceId), default: []].insert(channelId)
        readingChanged.insert(DeviceKey(userId: userId, deviceId: deviceId))
        moveReadMarker(of: userId, in: channelId, to: lastSequence)
    }

    /// Stops reading on one device; the marker stays where it is. Idempotent.
    ///
    /// - Throws: `invalidArgument(field: "deviceId")`; `notFound` (channel unknown or invisible).
    mutating func stopReading(_ channelId: String, userId: String, deviceId: String, now: Date) throws(ChatError) {
        try InputCheck.id(deviceId, field: "deviceId")
        _ = try authorizedRecord(channelId, .view, by: .user(userId), now: now)
        stopReading(DeviceKey(userId: userId, deviceId: deviceId), in: channelId)
    }

    /// The devices whose reading changed since the last call.
    mutating func takeReadingChanges() -> Set<DeviceKey> {
        defer { readingChanged = [] }
        return readingChanged
    }

    /// Restores what a device reads (a node of a cluster starting from its stored connections).
    mutating func restoreReading(of device: DeviceKey, in channelIds: Set<String>) {
        for channelId in channelIds where channels[channelId] != nil {
            channels[channelId]!.readers[device.userId, default: []].insert(device.deviceId)
            readingByDevice[device, default: []].insert(channelId)
        }
    }

    /// Stops every reading of a device (it disconnected).
    ///
    /// - Complexity: O(channels the device reads).
    mutating func stopAllReading(device: DeviceKey) {
        for channelId in readingByDevice[device] ?? [] { stopReading(device, in: channelId) }
    }

    /// Stops the user's reading of one channel on all devices (they left it or it was deleted).
    mutating func stopAllReading(userId: String, in channelId: String) {
        for deviceId in channels[channelId]?.readers[userId] ?? [] {
            stopReading(DeviceKey(userId: userId, deviceId: deviceId), in: channelId)
        }
    }

    private mutating func stopReading(_ device: DeviceKey, in channelId: String) {
        if readingByDevice[device]?.remove(channelId) != nil { readingChanged.insert(device) }
        if readingByDevice[device]?.isEmpty == true { readingByDevice[device] = nil }
        channels[channelId]?.readers[device.userId]?.remove(device.deviceId)
        if channels[channelId]?.readers[device.userId]?.isEmpty == true {
            channels[channelId]?.readers[device.userId] = nil
        }
    }

    /// Moves a member's marker forward to `sequence` and tells the user's devices, and — with
    /// `tellingMembers`, in a channel of up to ``ServerConfiguration/maxMembersForReadEvents``
    /// members — every member (their member lists show it live).
    mutating func moveReadMarker(of userId: String, in channelId: String, to sequence: Int, tellingMembers: Bool = true)
    {
        guard let current = channels[channelId]?.members[userId]?.readSequence, sequence > current else { return }
        let memberCount = Self.setReadSequence(sequence, of: userId, in: &channels[channelId]!)
        let toEveryMember = tellingMembers && memberCount <= configuration.maxMembersForReadEvents
        emit(
            .readMarkerMoved(channelId: channelId, userId: userId),
            to: toEveryMember ? .channelMembers(channelId) : .users([userId]))
    }

    /// Moves a member's read marker in `record`; returns the channel's member count (one access
    /// to the record for both).
    private static func setReadSequence(_ sequence: Int, of userId: String, in record: inout ChannelRecord) -> Int {
        record.members[userId]!.readSequence = sequence
        return record.members.count
    }
}
