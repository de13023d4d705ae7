import ChatGateway
import HTTPTypes
import Hummingbird

/// The headers of every answer under `/admin/v1/`, refusals included: its answers carry users,
/// sessions' data and moderation queues, so no cache (a browser's or a proxy's) keeps them
/// (`Cache-Control: no-store`), and no browser reads a JSON answer as anything else
/// (`X-Content-Type-Options: nosniff`). A route's error thrown past the routes gets them too.
struct AdminHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.cacheControl] = "no-store"
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}
