import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made by a test, and a server certificate it signed for 127.0.0.1:
/// what a stand-in for a provider serves, and what `chat-server --push-ca-file` is told to
/// trust. Valid for an hour from now.
struct TestCertificateAuthority {
    /// The authority's certificate, in PEM (the `--push-ca-file`).
    let authorityPEM: String
    /// The server's certificate and private key.
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey

    init() throws {
        let now = Date()
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName { CommonName("LiveChannels push stand-in CA") }
        let authority = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(authorityKey.publicKey),
            notValidBefore: now - 300, notValidAfter: now + 3_600, issuer: authorityName, subject: authorityName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(authorityKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 300, notValidAfter: now + 3_600, issuer: authorityName,
            subject: try DistinguishedName { CommonName("127.0.0.1") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            }, issuerPrivateKey: .init(authorityKey))
        authorityPEM = try authority.serializeAsPEM().pemString
        serverCertificate = try NIOSSLCertificate(bytes: Array(server.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
    }

    /// A server's TLS that speaks HTTP/2 only (ALPN `h2`), as APNs does.
    var http2ServerTLS: TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(serverCertificate)], privateKey: .privateKey(serverKey))
        tls.applicationProtocols = ["h2"]
        return tls
    }
}
