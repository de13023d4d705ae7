import ChatGateway
import ChatPush
import ChatServer
import Logging
import ServiceLifecycle

/// One `chat-server` node as a service: opens its `ChatServer` (its storage loaded), serves it
/// through a `ChatGateway` until graceful shutdown, then closes the server — every queued
/// change written — after the gateway has closed every connection.
///
/// In `chat-server`'s `ServiceGroup` it comes after the services its storage needs (the
/// PostgreSQL client), so on shutdown it stops first and they still run while it writes.
struct ChatNode: Service {
    /// Opens the server; throws ``StartupFailure`` when it cannot (the process exits with its code).
    let open: @Sendable () async throws -> ChatServer
    /// Users registered as admins at start (`--admin`).
    let admins: [String]
    /// Where the node's pushes go (none: it pushes nothing).
    let pushProviders: [any PushProvider]
    /// The gateway in front of an opened server, given the node's push queues.
    let makeGateway: @Sendable (ChatServer, PushLanes?) async throws -> ChatGateway
    /// Called with the port once the gateway listens.
    let onRunning: @Sendable (Int) async -> Void
    let logger: Logger

    func run() async throws {
        // Ctrl-C while the storage is not there yet (PostgreSQL still starting) stops the wait.
        let server = try await cancelWhenGracefulShutdown { try await open() }
        server.reportDiagnostics { [logger] diagnostic in
            logger.warning("\(diagnostic.message)", metadata: ["reason": "\(diagnostic.reason)"])
        }
        do {
            for user in admins { try await server.registerUser(id: user, isAdmin: true) }
            // Pushes: the server hands each message's pushes to the lanes, one per provider,
            // which the delivery drains beside the gateway.
            let pushes = pushProviders.isEmpty ? nil : PushLanes(providers: pushProviders)
            if let pushes { server.deliverPushes(to: pushes) }
            let gateway = try await makeGateway(server, pushes)
            var services = gateway.services(onRunning: onRunning)
            if let pushes {
                services.append(PushDelivery(lanes: pushes, server: server, metrics: gateway.metrics, logger: logger))
            }
            // A node of a cluster that stops by itself (an entry it cannot read, its id taken by
            // another process) says why; its /healthz answers 503 with the reason.
            let watcher = Task { [logger] in
                if let reason = await server.waitForHalt() { logger.critical("this node stopped serving: \(reason)") }
            }
            defer { watcher.cancel() }
            // A group of the gateway's services inside this one: it shuts down when this one is
            // asked to.
            try await ServiceGroup(services: services, logger: logger).run()
        } catch {
            await server.close()
            throw error
        }
        await server.close()
    }
}

/// Why a node could not start: a one-line message and the exit status (2: the operator's input
/// is wrong; 1: something outside is).
struct StartupFailure: Error, CustomStringConvertible {
    let message: String
    let status: Int32
    var description: String { message }
}
