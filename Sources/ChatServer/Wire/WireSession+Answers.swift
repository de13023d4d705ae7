import ChatAPI

/// A session's answers: a request run by its own task (``answer(_:id:on:)``) or queued at the
/// server's lock and answered from the thread that ran it (``answerQueued(_:id:on:queueFrame:)``),
/// and the count of answers still being sent (what a close for too many refusals waits for).
extension WireSession {
    /// One request's answer was sent.
    func answered() {
        for waiter in answers.withLock({ $0.inFlight.finish() }) { waiter.resume() }
    }

    /// Ignores requests from now on and returns once every request taken was answered.
    func answersSent() async {
        await withCheckedContinuation { continuation in
            let waiting = answers.withLock { answers -> Bool in
                answers.ignoring = true
                return answers.inFlight.wait(continuation)
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Answers a request that ran queued at the server's lock (``ServerConnection/sendWhenQueued(_:done:)``),
    /// on the thread that ran it: as ``answer(_:id:on:)`` does, without waiting — unless its
    /// changes must be written to the storage first, which a task then waits for.
    func answerQueued(
        _ result: Result<(envelope: ResponseEnvelope, ticket: Int), ChatError>, id: Int,
        on transport: ServerConnection, queueFrame: @escaping @Sendable (WireFrame) -> Bool
    ) {
        let frame: WireFrame?
        switch result {
        case .success(let (envelope, ticket)) where ticket > 0:
            Task.detached {
                do throws(ChatError) {
                    try await transport.written(ticket)
                    await self.send(.response(id: id, envelope: envelope))
                } catch {
                    await self.fail(id: id, error, on: transport)
                }
                self.answered()
            }
            return
        case .success(let (envelope, _)):
            frame = .response(id: id, envelope: envelope)
        case .failure(let error):
            frame = failureFrame(id: id, error, on: transport)
        }
        if let frame, !queueFrame(frame) {
            // No room: a task waits for it.
            Task.detached {
                await self.send(frame)
                self.answered()
            }
            return
        }
        answered()
    }

    /// The failure frame of request `id` failing with `error` (recorded), or `nil` when its
    /// answer is lost with the connection (dropped under the request: the client fails the
    /// request when the socket closes, right after the events before the end).
    private func failureFrame(id: Int, _ error: ChatError, on transport: ServerConnection) -> WireFrame? {
        if case .unavailable = error, !transport.isCurrent { return nil }
        record(.failure(error))
        return .failure(id: id, error: error)
    }

    /// Sends the failure of request `id` (see ``failureFrame(id:_:on:)``).
    func fail(id: Int, _ error: ChatError, on transport: ServerConnection) async {
        if let frame = failureFrame(id: id, error, on: transport) { await send(frame) }
    }

    func answer(_ request: ChatRequest, id: Int, on transport: ServerConnection) async {
        do {
            let envelope: ResponseEnvelope
            if let atOnce = transport.sendAtOnce(request) {
                // Done on this thread, no frame of the transport's kept across a suspension.
                let (answered, ticket) = try atOnce.get()
                try await transport.written(ticket)
                envelope = answered
            } else {
                envelope = try await transport.send(request)
            }
            await send(.response(id: id, envelope: envelope))
        } catch let error as ChatError {
            await fail(id: id, error, on: transport)
        } catch {
            await send(.failure(id: id, error: .unavailable("\(error)")))
        }
    }
}
