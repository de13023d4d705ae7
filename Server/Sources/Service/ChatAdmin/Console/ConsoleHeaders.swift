import ChatGateway
import HTTPTypes
import Hummingbird

/// The headers of every answer under `/console`: a Content-Security-Policy that lets the page
/// run only the server's own script files (no inline script, no `eval`, nothing from another
/// origin, no plugins, no framing), and no sniffing, no referrer, no caching of pages that show
/// a session's data.
struct ConsoleHeaders<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return response
    }
}
