import ChatAPI

/// A session's answers (``answer(_:id:on:)``), and the count of answers still being sent (what a
/// close for too many refusals waits for).
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

    /// The one way an answer leaves: the response or failure frame of request `id`, queued at
    /// once when the network front has room (``queueFrame``), else sent by a task that waits for
    /// room; called by the request's pipeline (``ServerConnection/submit(_:answer:)``) on any
    /// thread, it never blocks.
    func answer(_ result: Result<ResponseEnvelope, ChatError>, id: Int, on transport: ServerConnection) {
        let frame: WireFrame?
        switch result {
        case .success(let envelope): frame = .response(id: id, envelope: envelope)
        case .failure(let error): frame = failureFrame(id: id, error, on: transport)
        }
        guard let frame, !(queueFrame?(frame) ?? false) else { return answered() }
        Task.detached {
            await self.send(frame)
            self.answered()
        }
    }

    /// The failure frame of request `id` failing with `error` (recorded), or `nil` when its
    /// answer is lost with the connection (dropped under the request: the client fails the
    /// request when the socket closes, right after the events before the end).
    private func failureFrame(id: Int, _ error: ChatError, on transport: ServerConnection) -> WireFrame? {
        if case .unavailable = error, !transport.isCurrent { return nil }
        record(.failure(error))
        return .failure(id: id, error: error)
    }
}
