import ChatAPI
import Foundation
import LiveChannels

/// The `offlinePeriods` variation: devices go offline for several steps and come back, around
/// the shapes that once left a call waiting forever or a list behind the server — a handle opened
/// just before going offline, a connection dropped while a request is in flight and then offline
/// with sends, `synchronize()` called around reconnects, lists of pages of 2 loaded deep, and
/// server time jumping past the replay logs' retention while a device is away (so it resyncs).
///
/// Its operations are drawn from ``ConvergenceScenario/offlineRandom``, so a seed's other
/// operations are the same with or without it. A device's disconnects and connects run one after
/// another, in the order drawn (``Device/connectionChain``); everything else runs concurrently,
/// like the other operations, and is awaited before healing.
extension ConvergenceScenario {
    /// Zero to two operations of the variation, each on a random device.
    func performOfflineOperations() {
        for _ in 0..<Int.random(in: 0...2, using: &offlineRandom) { performOfflineOperation() }
    }

    private func performOfflineOperation() {
        let device = devices.randomElement(using: &offlineRandom)!
        let channelId = channelPool.randomElement(using: &offlineRandom)!
        switch Int.random(in: 0..<100, using: &offlineRandom) {
        case 0..<22:
            if device.isOffline { comeOnline(device) } else { goOffline(device) }
        case 22..<34:
            // A handle opened just before going offline: its load is in flight (or not yet
            // sent) when the connection goes.
            if Bool.random(using: &offlineRandom) {
                openObject(channelId, on: device)
            } else {
                openListOfPagesOfTwo(on: device)
            }
            variationCounts["handles opened just before going offline", default: 0] += 1
            if !device.isOffline { goOffline(device) }
        case 34..<48:
            dropWithRequestInFlight(device, channelId)
        case 48..<60:
            synchronizeAroundReconnect(device)
        case 60..<70:
            pageDeep(openListOfPagesOfTwo(on: device), on: device, counted: "deep pagings in pages of 2")
            if Bool.random(using: &offlineRandom) {
                if device.isOffline { comeOnline(device) } else { goOffline(device) }
            }
        case 70..<82:
            if !device.isOffline { goOffline(device) }
            sendWhileOffline(device, channelId)
        case 82..<90:
            // Past the replay logs' retention while a device is away: it must resync.
            let jump: TimeInterval = devices.contains(where: \.isOffline) ? 90_000 : 600
            log.append("server time jumps \(Int(jump)) s (devices offline: \(devices.filter(\.isOffline).map(\.name)))")
            variationCounts[jump > 86_400 ? "clock jumps past retention" : "clock jumps of 600 s", default: 0] += 1
            clock.advance(by: jump)
        default:
            if device.isOffline {
                comeOnline(device)
            } else if let open = device.lists.randomElement(using: &offlineRandom) {
                log.append("\(device.name) asks for the next page of '\(open.name)'")
                open.list.nextPage()
            }
        }
    }

    /// Runs `body` after the device's earlier disconnects and connects, as a pending call.
    private func chain(_ device: Device, _ body: @escaping @Sendable () async -> Void) {
        let previous = device.connectionChain
        let task = Task {
            await previous?.value
            await body()
        }
        device.connectionChain = task
        pending.append((log.last ?? "setup", task))
    }

    private func goOffline(_ device: Device) {
        device.isOffline = true
        log.append("\(device.name) goes offline")
        variationCounts["offline periods", default: 0] += 1
        let client = device.client
        chain(device) { await client.disconnect() }
    }

    private func comeOnline(_ device: Device) {
        device.isOffline = false
        let synchronizes = Bool.random(using: &offlineRandom)
        log.append("\(device.name) comes back online\(synchronizes ? " and synchronizes" : "")")
        let client = device.client
        chain(device) {
            try? await client.connect()
            if synchronizes { await client.synchronize() }
        }
    }

    /// A request in flight when the server drops the connection, then the device goes offline
    /// and sends while offline.
    private func dropWithRequestInFlight(_ device: Device, _ channelId: String) {
        let client = device.client
        let server = server
        let (userId, deviceId) = (device.userId, device.deviceId)
        let kind = Int.random(in: 0..<3, using: &offlineRandom)
        let turns = Int.random(in: 0..<30, using: &offlineRandom)
        let object = kind == 2 ? device.channels.getChannel(channelId) : nil
        if let object { device.objects.append(.init(channelId: channelId, object: object)) }
        log.append(
            "\(device.name) \(["sends in", "asks the server for", "opens channel object"][kind]) \(channelId); its connection drops with that in flight"
        )
        variationCounts["drops with a request in flight", default: 0] += 1
        spawn {
            let request = Task {
                switch kind {
                case 0:
                    _ = try? await MessageRepository(client: client).sendMessage(
                        channelId: channelId, text: "m", mentionedUserIds: [])
                case 1: _ = try? await ChannelRepository(client: client).getChannel(channelId: channelId)
                default: break
                }
            }
            for _ in 0..<turns { await Task.yield() }
            server.faults.dropConnection(userId: userId, deviceId: deviceId)
            await request.value
        }
        if !device.isOffline { goOffline(device) }
        sendWhileOffline(device, channelId)
    }

    private func sendWhileOffline(_ device: Device, _ channelId: String) {
        log.append("\(device.name) sends in \(channelId) while offline")
        variationCounts["sends while offline", default: 0] += 1
        let client = device.client
        chain(device) {
            _ = try? await MessageRepository(client: client).sendMessage(
                channelId: channelId, text: "offline", mentionedUserIds: [])
        }
    }

    /// `synchronize()` before, during and after a reconnect.
    private func synchronizeAroundReconnect(_ device: Device) {
        log.append("\(device.name) synchronizes around a reconnect")
        variationCounts["synchronize() around reconnects", default: 0] += 1
        device.isOffline = false
        let client = device.client
        spawn { await client.synchronize() }
        chain(device) {
            await client.disconnect()
            async let during: Void = client.synchronize()
            try? await client.connect()
            await during
            await client.synchronize()
        }
    }

    /// Opens a list of the device's channels in pages of 2.
    @discardableResult
    private func openListOfPagesOfTwo(on device: Device) -> Device.OpenList {
        let byChannelId = Bool.random(using: &offlineRandom)
        let query =
            byChannelId
            ? ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 2)
            : ChannelListQuery(
                filter: .containMembers(userIds: [device.userId]),
                sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 2)
        let name = byChannelId ? "all visible by channelId (page 2)" : "mine by lastMessageAt desc (page 2)"
        let open = Device.OpenList(name: name, query: query, list: device.channels.getChannels(query: query))
        device.lists.append(open)
        log.append("\(device.name) opens list '\(name)'")
        return open
    }

    /// Loads `open` page after page while it has more (bounded: a list that stays loading is
    /// caught when healing), counting it under `variation`.
    func pageDeep(_ open: Device.OpenList, on device: Device, counted variation: String) {
        log.append("\(device.name) pages '\(open.name)' to its end")
        variationCounts[variation, default: 0] += 1
        let list = open.list
        spawn {
            for _ in 0..<12 {
                for await update in list.updates where update.loadingStatus != .loading { break }
                guard list.hasNext else { return }
                list.nextPage()
            }
        }
    }
}
