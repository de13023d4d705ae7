import ChatAPI
import Foundation

/// The checks every entry point makes before it logs or applies anything, each written once:
/// the server is open, the caller's connection is current, the limits admit the request, the
/// user may connect one more device.
extension ServerCore {
    /// - Throws: `unavailable` once the server is closed, or when connection `linkId` is no
    ///   longer `device`'s current one.
    func checkCurrent(_ device: ServerState.DeviceKey, linkId: UInt64) throws(ChatError) {
        if isClosed { throw ServerEngine.closedError }
        guard hub.linkId(of: device) == linkId else {
            throw .unavailable("the connection of device '\(device.deviceId)' has ended")
        }
    }

    /// Admits `request` of `device` by the rate limits, or refuses it; a refusal that ends the
    /// connection (a device flooding) ends it here. On a node of a cluster the message and
    /// creation buckets hold every node's spends (spent as entries apply, on every node), so a
    /// user's budget is the cluster's.
    ///
    /// - Throws: `rateLimited` or `limitExceeded`; nothing is spent then.
    mutating func admit(
        _ request: ChatRequest, from device: ServerState.DeviceKey, linkId: UInt64, now: Date
    ) throws(ChatError) {
        do throws(ServerLimits.Refusal) {
            try limits.admit(request, from: device, now: now)
        } catch {
            switch error {
            case .refuse(let error):
                throw error
            case .refuseAndDisconnect(let error):
                detach(device, linkId: linkId, reason: .connectionLost(error))
                throw error
            }
        }
    }

    /// How many devices of `userId` are connected, to any node (the connections table).
    func connectedDeviceCount(of userId: String) -> Int {
        applied.connections.count(of: userId)
    }

    /// Whether `device` is connected, to any node (the connections table).
    func isConnected(_ device: ServerState.DeviceKey) -> Bool {
        applied.connections[device] != nil
    }

    /// Whether `device` may connect now: its user is not banned from the service and the
    /// device cap allows another device.
    ///
    /// - Throws: `forbidden` for a user banned from the service; `limitExceeded` when the user
    ///   has ``ServerConfiguration/maxDevicesPerUser`` other devices connected (this device's
    ///   own connection does not count: it is replaced).
    func checkConnect(of device: ServerState.DeviceKey) throws(ChatError) {
        if state.serviceBans[device.userId] != nil {
            throw .forbidden("user '\(device.userId)' is banned from the service")
        }
        guard let cap = state.configuration.maxDevicesPerUser else { return }
        let others = connectedDeviceCount(of: device.userId) - (isConnected(device) ? 1 : 0)
        if others >= cap {
            throw .limitExceeded("user '\(device.userId)' has \(others) devices connected; the limit is \(cap)")
        }
    }
}
