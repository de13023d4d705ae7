import ChatAPI
import Foundation

/// The one entry point of a client's request (``handle(_:from:linkId:)``): admission by the
/// limits, the request table (`ServerState.handle`), a long channel query run in steps, and the
/// wait for the storage before the response.
extension ServerEngine {

    /// Performs a request of connection `linkId`, which must still be the device's current one.
    /// The response is stamped, under the same lock, with the device's last event sequence and
    /// the server's revision once the request's own events are queued: the events it caused are
    /// at or before its position, and nothing that happens later is.
    ///
    /// With a store, the response comes once the request's changes (and every change before
    /// them) are written.
    ///
    /// - Throws: `unavailable` when the connection has ended or the write failed; else the
    ///   request's error.
    func handle(_ request: ChatRequest, from device: DeviceKey, linkId: UInt64) async throws(ChatError)
        -> ResponseEnvelope
    {
        if let cluster { return try await handleReplicated(request, from: device, linkId: linkId, replica: cluster) }
        let firstHold: Result<(result: Outcome, ticket: Int), ChatError>
        if requests.tryCombining() {
            // Nobody else's request runs: this one runs here, then whatever queued meanwhile.
            firstHold = Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId)
            }
            requests.finishCombining()
        } else {
            firstHold = await requests.run { [self] in
                Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId) }
            }
        }
        let (outcome, ticket) = try firstHold.get()
        switch outcome {
        case .done(let envelope):
            try await written(ticket)
            return envelope
        case .scanning(let scan):
            return try await finishScan(scan, of: request, from: device, linkId: linkId)
        }
    }

    /// A request's first hold of the lock: all of it but a long scan's later steps.
    private func handleFirstHold(
        of request: ChatRequest, from device: DeviceKey, linkId: UInt64
    ) throws(ChatError) -> (result: Outcome, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Outcome in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            guard core.hub.linkId(of: device) == linkId else {
                throw .unavailable("the connection of device '\(device.deviceId)' has ended")
            }
            core.housekeep(now: now)
            do throws(ServerLimits.Refusal) {
                try core.limits.admit(request, from: device, now: now)
            } catch {
                switch error {
                case .refuse(let error):
                    throw error
                case .refuseAndDisconnect(let error):
                    core.detach(device, linkId: linkId, reason: .connectionLost(error), now: now)
                    throw error
                }
            }
            if case .queryChannels(let query, let cursor) = request {
                // A query that must test many channels runs in steps (see ``ChannelScan``).
                let plan = try core.state.planChannelQuery(
                    query, after: cursor, by: .user(device.userId), now: now, step: configuration.channelsPerScanStep)
                switch plan {
                case .answered(let page):
                    core.limits.spend(after: request, by: device.userId, created: false, now: now)
                    return .done(core.envelope(for: device, ChatResponse.channels(page)))
                case .scanning(let scan):
                    return .scanning(scan)
                }
            }
            let response: ChatResponse
            do {
                defer { core.publishOutbox(now: now) }
                let channelCount = core.state.channels.count
                response = try core.state.handle(request, from: device, now: now)
                core.limits.spend(
                    after: request, by: device.userId, created: core.state.channels.count > channelCount, now: now)
            }
            return .done(core.envelope(for: device, response))
        }
    }

    /// What the first hold of a request ends with.
    enum Outcome: Sendable {
        case done(ResponseEnvelope)
        case scanning(ChannelScan)
    }

    /// Runs a channel query's scan a step per hold of the lock (others run between steps), then
    /// answers it as of the last hold.
    private func finishScan(
        _ scan: ChannelScan, of request: ChatRequest, from device: DeviceKey, linkId: UInt64
    ) async throws(ChatError) -> ResponseEnvelope {
        var scan = scan
        let step = configuration.channelsPerScanStep
        while !scan.isComplete {
            await Task.yield()
            scan = try withCore { (core: inout ServerCore) throws(ChatError) -> ChannelScan in
                try Self.checkStillConnected(device, linkId: linkId, in: core)
                var scan = scan
                scan.step(in: core.state, limit: step)
                return scan
            }.result
        }
        let (envelope, ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> ResponseEnvelope in
            try Self.checkStillConnected(device, linkId: linkId, in: core)
            let now = clock.now
            let page: Page<Channel>
            if let finished = scan.finish(in: core.state) {
                page = finished
                #if DEBUG
                    // The steps' page equals the one a single hold gives now.
                    let reference = try core.state.queryChannels(
                        scan.query, after: scan.cursor, by: scan.caller, now: now)
                    assert(
                        finished.items.map(\.channelId) == reference.items.map(\.channelId)
                            && finished.hasNext == reference.hasNext,
                        "a stepped scan's page differs from a single hold's: \(finished.items.map(\.channelId)) vs \(reference.items.map(\.channelId))"
                    )
                #endif
            } else {
                page = try core.state.queryChannels(scan.query, after: scan.cursor, by: scan.caller, now: now)
            }
            core.limits.spend(after: request, by: device.userId, created: false, now: now)
            return core.envelope(for: device, ChatResponse.channels(page))
        }
        try await written(ticket)
        return envelope
    }

    /// - Throws: `unavailable` when the server closed or the device's connection ended.
    private static func checkStillConnected(_ device: DeviceKey, linkId: UInt64, in core: ServerCore) throws(ChatError)
    {
        if core.isClosed { throw closedError }
        guard core.hub.linkId(of: device) == linkId else {
            throw .unavailable("the connection of device '\(device.deviceId)' has ended")
        }
    }
}
