import ChatAPI

extension SyncEngine {
    /// Sends `request` and applies its response on the engine, followed by whatever newer events
    /// had already been applied: the response's data is never left on top of newer data.
    ///
    /// `body` runs on the engine once every event queued before the response was applied; it gets
    /// the response and what the events queued *after* the response carried (as recorded by
    /// `log`, oldest first), and must apply both.
    /// - Throws: the server's `ChatError`, or what `body` throws.
    func performApplying<Element: Sendable, Result>(
        _ request: ChatRequest, recordedBy log: some RecentEventRecording<Element>,
        _ body: (ChatResponse, [Element]) throws -> Result
    ) async throws -> Result {
        let id = log.beginResponse()
        let response: ChatResponse
        do {
            response = try await transport.send(request)
        } catch {
            _ = log.endResponse(id, newerEvents: 0)
            throw error
        }
        let target = transport.lastEventSequence
        await waitUntilApplied(target)
        // No suspension from here on: the count of newer events stays exact while `body` runs.
        let newer = log.endResponse(id, newerEvents: appliedSequence - target)
        return try body(response, newer)
    }
}
