import ChatAPI
import Foundation

/// The one way a client's request enters the engine and the one way it leaves
/// (``submit(_:from:linkId:answer:)``): admission by the limits, the change log's route for it
/// (``ChangeLog/route(_:)``), the request table (`ServerState.handle`), a long channel query run
/// in steps, and the wait for the storage before the answer. What makes a request fast lives
/// inside: a request that needs nothing but its turn at the lock runs on the caller's thread when
/// no other request runs, or queued behind the one that runs (``RequestCombiner``) and answered
/// from that thread; only what must wait (the log, a scan in steps, stored history, the storage,
/// an injected fault) gets a task.
extension ServerEngine {
    /// Performs a request of connection `linkId` of `device`, which must still be the device's
    /// current one, and calls `answer` exactly once with its outcome. The response is stamped,
    /// under the same lock, with the device's last event sequence and the server's revision
    /// once the request's own events are queued: the events it caused are at or before its
    /// position, and nothing that happens later is. With a store, the answer comes once the
    /// request's changes (and every change before them) are written.
    ///
    /// `answer` runs on the caller's thread (the request ran at once), on the thread of the
    /// request running at the lock (it was queued behind it), or on a task of the engine's (it
    /// had to wait); it must not block: it may run between other requests.
    ///
    /// The outcome's error: `unavailable` when the connection has ended, the server closed or
    /// the write failed; else the request's error.
    func submit(
        _ request: ChatRequest, from device: DeviceKey, linkId: UInt64,
        answer: @escaping @Sendable (Result<ResponseEnvelope, ChatError>) -> Void
    ) {
        if answersInOneHold(request) {
            if requests.tryCombining() {
                // Nobody else's request runs: this one runs here, then whatever queued meanwhile.
                let firstHold = Result { () throws(ChatError) in
                    try handleFirstHold(of: request, from: device, linkId: linkId)
                }
                requests.finishCombining()
                deliver(firstHold, to: answer)
                return
            }
            let queued = requests.enqueueIfCombining { [self] in
                Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId) }
            } done: { [self] firstHold in
                deliver(firstHold, to: answer)
            }
            if queued { return }
        }
        // Detached: the task needs none of the caller's task-local values (a network front's:
        // service lifecycle, tracing), and copying them costs about four allocations.
        Task.detached { [self] in
            do throws(ChatError) {
                answer(.success(try await carryOut(request, from: device, linkId: linkId)))
            } catch {
                answer(.failure(error))
            }
        }
    }

    /// Answers a request done in one hold: at once, or once its changes are written.
    private func deliver(
        _ firstHold: Result<(result: Outcome, ticket: Int), ChatError>,
        to answer: @escaping @Sendable (Result<ResponseEnvelope, ChatError>) -> Void
    ) {
        switch firstHold {
        case .failure(let error):
            answer(.failure(error))
        case .success((.done(let envelope), let ticket)):
            guard store != nil, ticket > 0 else { return answer(.success(envelope)) }
            Task.detached { [self] in
                do throws(ChatError) {
                    try await written(ticket)
                    answer(.success(envelope))
                } catch {
                    answer(.failure(error))
                }
            }
        case .success:
            preconditionFailure("only a channel or message query answers in steps")
        }
    }

    /// Whether `request` needs nothing but its turn at the lock to be answered: applied inline
    /// by the change log, no request fault armed, and not a channel or message query (those may
    /// scan in steps or read stored history).
    private func answersInOneHold(_ request: ChatRequest) -> Bool {
        log.route(request) == .inline && !requestFaultsArmed.load() && !request.mayAnswerInSteps
    }

    /// A request that may wait, on a task: the injected fault it meets first, if any, then
    /// ``handle(_:from:linkId:)``.
    private func carryOut(_ request: ChatRequest, from device: DeviceKey, linkId: UInt64) async throws(ChatError)
        -> ResponseEnvelope
    {
        switch takeRequestFault(for: device) {
        case .fail(let error)?:
            throw error
        case .delay(let seconds)?:
            try? await clock.sleep(until: clock.now + seconds)
        case .dropBeforeAnswer?:
            // The work is done (or refused) in full; the answer is lost with the connection.
            _ = try? await handle(request, from: device, linkId: linkId)
            dropConnection(device, linkId: linkId)
            throw .unavailable("the connection dropped before the answer arrived (injected fault)")
        case nil:
            break
        }
        return try await handle(request, from: device, linkId: linkId)
    }

    /// The request, on a task: logged, after the read barrier, or at the lock (in turn with the
    /// others), then in steps or with stored history as it needs, then the storage's write.
    private func handle(_ request: ChatRequest, from device: DeviceKey, linkId: UInt64) async throws(ChatError)
        -> ResponseEnvelope
    {
        switch log.route(request) {
        case .logged:
            // Admitted here, applied by every node in log order, answered once applied here.
            let kind = ChangeEntry.Kind.request(userId: device.userId, deviceId: device.deviceId, request: request)
            let outcome = try await log.commit(kind, on: self) { (core, _, now) throws(ChatError) in
                try core.checkCurrent(device, linkId: linkId)
                try core.admit(request, from: device, linkId: linkId, now: now)
            }
            guard case .response(let envelope) = outcome else { throw .unavailable("the server lost the response") }
            return envelope
        case .afterBarrier:
            // A read on a node of a cluster, once it has applied every change committed before it.
            try await log.awaitCommitted()
        case .inline:
            break
        }
        let firstHold = await requests.run { [self] in
            Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId) }
        }
        let (outcome, ticket) = try firstHold.get()
        switch outcome {
        case .done(let envelope):
            try await written(ticket)
            return envelope
        case .scanning(let scan):
            return try await finishScan(scan, of: request, from: device, linkId: linkId)
        case .readingHistory(let query, let channelId, let sequences):
            return try await finishHistoryRead(
                query, needing: channelId, sequences, of: request, from: device, linkId: linkId)
        }
    }

    /// A request's first hold of the lock: all of it but a long scan's later steps.
    private func handleFirstHold(
        of request: ChatRequest, from device: DeviceKey, linkId: UInt64
    ) throws(ChatError) -> (result: Outcome, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Outcome in
            try core.checkCurrent(device, linkId: linkId)
            let now = clock.now
            housekeep(&core, now: now)
            try core.admit(request, from: device, linkId: linkId, now: now)
            let stateNow = stateTime(of: core, at: now)
            if case .queryChannels(let query, let cursor) = request {
                // A query that must test many channels runs in steps (see ``ChannelScan``).
                let plan = try core.state.planChannelQuery(
                    query, after: cursor, by: .user(device.userId), now: stateNow,
                    step: configuration.channelsPerScanStep)
                switch plan {
                case .answered(let page):
                    core.limits.spend(after: request, by: device.userId, created: false, now: now)
                    return .done(core.envelope(for: device, ChatResponse.channels(page)))
                case .scanning(let scan):
                    return .scanning(scan)
                }
            }
            if case .queryMessages(let query) = request {
                // A page reaching below the kept messages reads them from the store, outside the lock.
                switch try core.state.planMessagePage(query, by: .user(device.userId), now: stateNow) {
                case .answered(let page):
                    core.limits.spend(after: request, by: device.userId, created: false, now: now)
                    return .done(core.envelope(for: device, ChatResponse.messages(page)))
                case .needsHistory(let channelId, let sequences):
                    return .readingHistory(query, channelId: channelId, sequences: sequences)
                }
            }
            if request.isRead {
                // Stamped after the request's events are queued (a separate statement: an argument
                // that changes `core` would otherwise be evaluated after `core` was read for the stamp).
                let response = try core.applyRequest(request, from: device, now: stateNow)
                return .done(core.envelope(for: device, response))
            }
            // A change: the log of one's entry, applied here and now (``LocalChangeLog``).
            let kind = ChangeEntry.Kind.request(userId: device.userId, deviceId: device.deviceId, request: request)
            guard case .response(let envelope) = try LocalChangeLog.applyInline(kind, to: &core, now: stateNow) else {
                preconditionFailure("a request of this node is answered with its response")
            }
            return .done(envelope)
        }
    }

    /// What the first hold of a request ends with.
    enum Outcome: Sendable {
        case done(ResponseEnvelope)
        case scanning(ChannelScan)
        /// A message page that needs the stored messages of `channelId` numbered `sequences`.
        case readingHistory(MessagePageQuery, channelId: String, sequences: ClosedRange<Int>)
    }

    /// Reads the stored history a message page needs outside the lock, then answers the page in a
    /// new hold as of then (reading again what the kept messages no longer cover, if they moved
    /// meanwhile). No thread waits for the store while it holds the lock.
    ///
    /// - Throws: `unavailable` when the store cannot be read in time, the server closed or the
    ///   device's connection ended; the query's error as of the new hold.
    private func finishHistoryRead(
        _ query: MessagePageQuery, needing channelId: String, _ sequences: ClosedRange<Int>, of request: ChatRequest,
        from device: DeviceKey, linkId: UInt64
    ) async throws(ChatError) -> ResponseEnvelope {
        guard let archive = store else { throw .unavailable("the server keeps no history beyond memory") }
        var needed = (channelId: channelId, sequences: sequences)
        for _ in 0..<Self.historyReadAttempts {
            let history = ServerState.ArchivedHistory(
                channelId: needed.channelId, sequences: needed.sequences,
                messages: try await archive.messages(channelId: needed.channelId, in: needed.sequences))
            let (outcome, ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> Outcome in
                try core.checkCurrent(device, linkId: linkId)
                let now = clock.now
                switch try core.state.planMessagePage(
                    query, by: .user(device.userId), now: stateTime(of: core, at: now), history: history)
                {
                case .answered(let page):
                    core.limits.spend(after: request, by: device.userId, created: false, now: now)
                    return .done(core.envelope(for: device, ChatResponse.messages(page)))
                case .needsHistory(let channelId, let sequences):
                    return .readingHistory(query, channelId: channelId, sequences: sequences)
                }
            }
            switch outcome {
            case .done(let envelope):
                try await written(ticket)
                return envelope
            case .readingHistory(_, let channelId, let sequences):
                needed = (channelId, sequences)
            case .scanning:
                preconditionFailure("a message page never scans channels")
            }
        }
        throw .unavailable("the channel's kept messages moved on while its history was read; ask again")
    }

    /// How many times a page reads history before it gives up (each read covers what the kept
    /// messages no longer held; only a channel receiving thousands of messages during the read
    /// needs a second).
    static let historyReadAttempts = 4

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
                try core.checkCurrent(device, linkId: linkId)
                var scan = scan
                scan.step(in: core.state, limit: step)
                return scan
            }.result
        }
        let (envelope, ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> ResponseEnvelope in
            try core.checkCurrent(device, linkId: linkId)
            let now = clock.now
            let stateNow = stateTime(of: core, at: now)
            let page: Page<Channel>
            if let finished = scan.finish(in: core.state) {
                page = finished
                #if DEBUG
                    // The steps' page equals the one a single hold gives now.
                    let reference = try core.state.queryChannels(
                        scan.query, after: scan.cursor, by: scan.caller, now: stateNow)
                    assert(
                        finished.items.map(\.channelId) == reference.items.map(\.channelId)
                            && finished.hasNext == reference.hasNext,
                        "a stepped scan's page differs from a single hold's: \(finished.items.map(\.channelId)) vs \(reference.items.map(\.channelId))"
                    )
                #endif
            } else {
                page = try core.state.queryChannels(scan.query, after: scan.cursor, by: scan.caller, now: stateNow)
            }
            core.limits.spend(after: request, by: device.userId, created: false, now: now)
            return core.envelope(for: device, ChatResponse.channels(page))
        }
        try await written(ticket)
        return envelope
    }
}

extension ChatRequest {
    /// Whether the request may need more than one hold of the lock: a channel query may scan in
    /// steps, a message page may read stored history between holds.
    var mayAnswerInSteps: Bool {
        switch self {
        case .queryChannels, .queryMessages: true
        default: false
        }
    }
}
