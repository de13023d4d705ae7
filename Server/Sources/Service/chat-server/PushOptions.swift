import ArgumentParser
import AsyncHTTPClient
import ChatGateway
import ChatPush
import Foundation
import NIOSSL
import ServiceLifecycle

/// `chat-server`'s push flags: which providers a node pushes through (none: no pushes). Secrets
/// come from files only, and are never logged. A file that cannot be read or does not hold
/// what its flag needs stops the server with status 2, naming the file.
struct PushOptions: ParsableArguments {
    @Option(
        help:
            "APNs: the auth key file (.p8) of the Apple Developer account (with --apns-key-id, --apns-team-id, --apns-topic)."
    )
    var apnsKeyFile: String?
    @Option(help: "APNs: the auth key's id (10 characters).") var apnsKeyId: String?
    @Option(help: "APNs: the team id of the Apple Developer account.") var apnsTeamId: String?
    @Option(help: "APNs: the app's bundle id (the topic of its pushes).") var apnsTopic: String?
    @Flag(help: "APNs: push through Apple's development endpoint (apps signed for development).") var apnsSandbox =
        false
    @Option(help: "APNs: push through URL instead of Apple's endpoint (a proxy, or a local stand-in).") var apnsUrl:
        String?
    @Option(help: "FCM HTTP v1: the Firebase project's service account key file (JSON).") var fcmServiceAccount: String?
    @Option(help: "FCM: push through URL instead of Google's endpoint (a proxy, or a local stand-in).") var fcmUrl:
        String?
    @Option(help: "Push every message to members who are away by POSTing it to URL (an operator's own push service).")
    var pushWebhook: String?
    @Option(
        help:
            "A file holding the secret that signs the webhook's pushes (X-Chat-Webhook-Signature: t=TIME,v1=HMAC of TIME.BODY; X-Chat-Signature: sha256=HMAC of the body)."
    )
    var pushWebhookSecretFile: String?
    @Option(help: "A PEM file of certificate authorities trusted for the providers' TLS, besides the system's.")
    var pushCaFile: String?

    /// Whether any provider is named.
    var isEnabled: Bool { apnsKeyFile != nil || fcmServiceAccount != nil || pushWebhook != nil }

    func validate() throws {
        if apnsKeyFile != nil {
            for (flag, value) in [
                ("--apns-key-id", apnsKeyId), ("--apns-team-id", apnsTeamId), ("--apns-topic", apnsTopic),
            ]
            where value?.isEmpty ?? true {
                throw ValidationError("--apns-key-file needs \(flag)")
            }
        } else if apnsKeyId != nil || apnsTeamId != nil || apnsTopic != nil || apnsSandbox || apnsUrl != nil {
            throw ValidationError("the --apns-… flags need --apns-key-file FILE: the APNs auth key (.p8)")
        }
        if fcmServiceAccount == nil && fcmUrl != nil {
            throw ValidationError("--fcm-url needs --fcm-service-account FILE")
        }
        if pushWebhook != nil && pushWebhookSecretFile == nil {
            throw ValidationError(
                "--push-webhook needs --push-webhook-secret-file FILE: the secret that signs the pushes")
        }
        for (flag, url) in [("--push-webhook", pushWebhook), ("--apns-url", apnsUrl), ("--fcm-url", fcmUrl)] {
            if let url, !["http", "https"].contains(URL(string: url)?.scheme ?? "") {
                throw ValidationError("\(flag) \(url) is not an http or https URL")
            }
        }
    }

    /// A file's contents, or the exit with status 2 naming it.
    private static func read(_ file: String, for flag: String) throws -> Data {
        guard let contents = FileManager.default.contents(atPath: file), !contents.isEmpty else {
            throw refusal("\(flag) \(file): cannot read the file")
        }
        return contents
    }

    /// Says `message` on standard error; exits with status 2.
    private static func refusal(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("chat-server: \(message)\n".utf8))
        return ExitCode(2)
    }

    /// The HTTP client the providers share: the process's own, or, with `--push-ca-file`, one
    /// that also trusts those authorities (shut down by the returned service, after the node).
    private func httpClient() throws -> (HTTPClient, (any Service)?) {
        guard let file = pushCaFile else { return (.shared, nil) }
        let authorities: [NIOSSLCertificate]
        do {
            authorities = try NIOSSLCertificate.fromPEMFile(file)
        } catch {
            throw Self.refusal("--push-ca-file \(file): not a PEM file of certificates")
        }
        guard !authorities.isEmpty else { throw Self.refusal("--push-ca-file \(file): holds no certificate") }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(authorities)]
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        return (client, HTTPClientShutdown(client: client))
    }

    /// The providers the flags name, and the service that shuts their HTTP client down when it
    /// is the node's own (`--push-ca-file`).
    func start(sharedValues: (any ClusterSharedValues)?) async throws -> ([any PushProvider], (any Service)?) {
        guard isEnabled else { return ([], nil) }
        let (client, shutdown) = try httpClient()
        do {
            return (try await providers(client: client, sharedValues: sharedValues), shutdown)
        } catch {
            if shutdown != nil { try? await client.shutdown() }
            throw error
        }
    }

    /// The providers the flags name, through `client`.
    private func providers(
        client: HTTPClient, sharedValues: (any ClusterSharedValues)?
    ) async throws -> [any PushProvider] {
        var providers: [any PushProvider] = []
        if let file = apnsKeyFile, let keyId = apnsKeyId, let teamId = apnsTeamId, let topic = apnsTopic {
            let key = String(decoding: try Self.read(file, for: "--apns-key-file"), as: UTF8.self)
            do {
                providers.append(
                    try await APNsPushProvider(
                        keyPEM: key, keyId: keyId, teamId: teamId, topic: topic,
                        baseURL: apnsUrl
                            ?? (apnsSandbox ? APNsPushProvider.sandboxURL : APNsPushProvider.productionURL),
                        client: client, sharedValues: sharedValues))
            } catch let error as APNsPushProvider.KeyError {
                throw Self.refusal("--apns-key-file \(file): \(error)")
            }
        }
        if let file = fcmServiceAccount {
            let json = try Self.read(file, for: "--fcm-service-account")
            do {
                providers.append(
                    try await FCMPushProvider(
                        account: try FCMPushProvider.ServiceAccount(json: json),
                        baseURL: fcmUrl ?? FCMPushProvider.productionURL, client: client))
            } catch let error as FCMPushProvider.AccountError {
                throw Self.refusal("--fcm-service-account \(file): \(error)")
            }
        }
        if let url = pushWebhook, let file = pushWebhookSecretFile {
            let secret = String(decoding: try Self.read(file, for: "--push-webhook-secret-file"), as: UTF8.self)
            let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw Self.refusal("--push-webhook-secret-file \(file): the file is empty") }
            providers.append(WebhookPushProvider(url: url, secret: Array(trimmed.utf8), client: client))
        }
        return providers
    }
}

/// Shuts the providers' HTTP client down when the node has stopped.
struct HTTPClientShutdown: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
