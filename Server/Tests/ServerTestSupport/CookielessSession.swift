import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// A session that neither stores nor sends cookies: each request carries only the headers
    /// its test gives it.
    ///
    /// Every server test runs in one process, and cookies ignore ports: a console session that
    /// `URLSession.cookieless` kept from one test would ride along on another test's requests to
    /// 127.0.0.1 (a token-less upgrade then reads as a console session from a foreign page, 403
    /// instead of 401). Tests call servers through this session instead.
    public static let cookieless: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }()
}
