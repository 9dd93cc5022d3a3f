import ActivationConfiguration
import Foundation
import Testing

enum Fixture {
    static let directory: String = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("Fixtures missing")
        }
        return url.path
    }()

    static func path(_ name: String) -> String { "\(directory)/\(name)" }
    static func bytes(_ name: String) throws -> [UInt8] { try FileIO.read(path(name), limit: 1 << 20) }
    static func text(_ name: String) throws -> String { String(decoding: try bytes(name), as: UTF8.self) }

    static func publicKey(_ name: String) throws -> VerificationKey {
        try VerificationKey(pem: try text("keys/\(name).pub.pem"))
    }
    static func privateKey(_ name: String) throws -> SigningKey { try SigningKey(pem: try text("keys/\(name).pem")) }
}

/// Recognises and transforms, as an app would.
func recognize(_ bytes: [UInt8], policy: SecurityPolicy = SecurityPolicy(), source: String = "payload") throws -> (
    RecognizedPayload, TransformResult
) {
    let payload = try PayloadRecognizer(policy: policy).recognize(bytes: bytes, source: source)
    let document = try #require(payload.document, "\(source): \(payload.summary)")
    return (payload, try DiscoveryServiceTransformer().transform(document, source: source))
}
