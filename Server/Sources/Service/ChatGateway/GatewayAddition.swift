import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// A role served beside the WebSocket front by the same gateway, in a target of its own: the
/// admin API and the operator's console (`ChatAdmin`). The node assembling a gateway hands it
/// its additions (``ChatGateway/init(server:configuration:authority:metrics:pushQueue:additions:logger:)``);
/// the gateway knows nothing else of them.
public protocol GatewayAddition: Sendable {
    /// Mounts the addition's routes (it adds its own middleware to its groups).
    func mount(on router: Router<GatewayRequestContext>)

    /// Who a connect that carries no token acts for, by what the request carries for this
    /// addition (the console's session cookie); `nil` when it carries nothing of this addition's
    /// (the connect is then refused as tokenless).
    ///
    /// - Throws: the refusal of a connect that carries the addition's credential but may not
    ///   connect.
    func identity(forConnectWithoutToken head: HTTPRequest) async throws(ConnectRefusal) -> TokenAuthority.Identity?

    /// Services to run beside the gateway's own (in the same `ServiceGroup`).
    var services: [any Service] { get }
}
