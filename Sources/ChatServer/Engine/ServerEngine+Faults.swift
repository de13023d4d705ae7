import Foundation

/// The fault plan of tests and demos (``ServerFaults``), consulted by the request path.
extension ServerEngine {
    /// Consumes the request fault armed for `device`, if any. Takes the lock only while some
    /// request fault is armed (see ``armFaults(_:)``): a request holds it once, not twice.
    func takeRequestFault(for device: DeviceKey) -> FaultPlan.RequestFault? {
        guard requestFaultsArmed.load() else { return nil }
        return core.withLock { core in
            defer { requestFaultsArmed.store(core.faults.hasRequestFaults) }
            return core.faults.takeRequestFault(for: device)
        }
    }

    /// Changes the fault plan.
    func armFaults(_ body: (inout FaultPlan) -> Void) {
        core.withLock { core in
            body(&core.faults)
            requestFaultsArmed.store(core.faults.hasRequestFaults)
        }
    }

    /// Drops `device`'s connection (connection `linkId`, or whichever is current) as a network
    /// failure would; whether there was one to drop.
    @discardableResult
    func dropConnection(_ device: DeviceKey, linkId: UInt64? = nil) -> Bool {
        withCore { core in
            guard let current = core.hub.linkId(of: device), linkId.map({ $0 == current }) ?? true else {
                return false
            }
            core.detach(
                device, linkId: current,
                reason: .connectionLost(.unavailable("the server dropped the connection (injected fault)")))
            return true
        }.result
    }
}
