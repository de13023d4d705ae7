import Hummingbird
import NIOCore

/// The context of every HTTP request the gateway answers: Hummingbird's core context, and the
/// client's address (the console's sign-in attempts are bounded per address).
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the request's TCP connection (a proxy's, behind one).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
