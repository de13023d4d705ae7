import ChatGateway
import ChatServer
import Foundation
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The service's figures over the last 15 minutes, for the console's overview: a sample of
/// ``ChatServer/serviceSummary()`` (messages sent, devices connected) every ``interval``
/// seconds, the newest ``capacity`` kept. Runs as a service of the node; memory is fixed.
public final class ServiceHistory: Service, Sendable {
    /// One sample.
    public struct Sample: Sendable, Hashable, Codable {
        /// When it was taken (seconds since 1970).
        public var at: Date
        /// Messages sent in the service since it began.
        public var messagesSent: Int
        /// Devices connected to the service.
        public var connectedDevices: Int
    }

    /// What `GET /admin/v1/service/history` answers.
    public struct Answer: Sendable, Hashable, Codable {
        /// Seconds between samples.
        public var interval: Double
        /// Oldest first.
        public var samples: [Sample]
    }

    /// Seconds between samples.
    public let interval: Double
    /// Samples kept: 15 minutes' worth.
    public var capacity: Int { max(2, Int((15 * 60 / interval).rounded(.up)) + 1) }
    private let server: ChatServer
    private let samples = NIOLockedValueBox([Sample]())

    /// A history of `server`, sampled every `interval` seconds (10 by default).
    public init(server: ChatServer, interval: Double = 10) {
        self.server = server
        self.interval = interval
    }

    /// Takes a sample now.
    public func sample() {
        let summary = server.serviceSummary()
        let sample = Sample(
            at: server.clock.now, messagesSent: summary.messagesSent, connectedDevices: summary.connectedDevices)
        let capacity = capacity
        samples.withLockedValue { samples in
            samples.append(sample)
            if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        }
    }

    /// The samples kept, oldest first.
    public var answer: Answer { Answer(interval: interval, samples: samples.withLockedValue { $0 }) }

    /// Samples until the service group shuts down.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            self.sample()
            while !Task.isCancelled {
                try await self.server.clock.sleep(until: self.server.clock.now + self.interval)
                self.sample()
            }
        }
    }
}
