import Foundation

/// What is shown to a person, or printed as JSON (``InspectReport``), before a configuration is
/// used: the scan confirmation of reference §5. Secrets (passcodes) never appear in it.
public struct ActivationReport: Sendable {
    /// The payload as recognised and checked.
    public let payload: RecognizedPayload
    /// The transformed configuration (configurations only).
    public let info: TransformResult?

    /// Recognised payload plus, for configurations, the default transformation.
    public init(
        payload: RecognizedPayload, transformer: DiscoveryServiceTransformer = DiscoveryServiceTransformer(),
        source: String
    ) throws {
        self.payload = payload
        if let document = payload.document {
            info = try transformer.transform(document, source: source)
        } else {
            info = nil
        }
    }

    /// The report for a configuration that came from a provider or the store.
    public init(
        document: ConfigurationDocument, signature: SignatureStatus,
        transformer: DiscoveryServiceTransformer = DiscoveryServiceTransformer(), source: String
    ) throws {
        let payload = RecognizedPayload(
            kind: .configuration, format: nil, document: document, signature: signature,
            summary: "onboarding configuration for \(document.host)")
        try self.init(payload: payload, transformer: transformer, source: source)
    }

    /// The lines shown to a person; `headline` starts the first (`Scan succeeded.`). Values from
    /// the document are escaped (``UntrustedText``): each line is one line on a terminal.
    public func lines(headline: String) -> [String] {
        unescapedLines(headline: headline).map { UntrustedText.escaped($0) }
    }

    private func unescapedLines(headline: String) -> [String] {
        guard let document = payload.document else {
            if let parameters = payload.appParameters {
                var lines = [
                    "App parameters for \(parameters.applicationID) (AppParameters.plist; no server configuration)."
                ]
                for (name, id) in parameters.destinations.sorted(by: { $0.key < $1.key }) {
                    lines.append("  Destination: \(name) → \(id)")
                }
                return lines
            }
            return ["Not an onboarding configuration: \(payload.summary)."]
        }
        var lines = ["\(headline) You will be connected to: \(document.host)"]
        lines.append("  Server:     \(document.baseURL)")
        if let settings = info?[OnboardingInfo.settings] {
            lines.append("  App ID:     \(settings.applicationID) (version \(settings.applicationVersion))")
        }
        let supported = document.auth.filter { if case .unknown = $0.method { false } else { true } }
        let unknown = document.auth.compactMap { if case .unknown(let type) = $0.method { "\"\(type)\"" } else { nil } }
        let ignored = unknown.isEmpty ? "" : " (ignored, unknown: \(unknown.joined(separator: ", ")))"
        lines.append("  Sign-in:    \(supported.map(Self.describe).joined(separator: "; or "))\(ignored)")
        switch payload.signature {
        case .unsigned:
            lines.append("  Signature:  not signed")
        case .verified(let algorithm, let fingerprint, let keyID):
            if let claims = payload.claims {
                let issuer = claims.issuer.map { ", issuer \($0)" } ?? ""
                lines.append(
                    """
                      Signature:  verified (AC1, \(algorithm.rawValue), key \(fingerprint)\(issuer), \
                    expires \(claims.expires.formatted(.iso8601)))
                    """
                )
            } else {
                lines.append(
                    "  Signature:  verified (\(algorithm.rawValue), key \(keyID.map { "\($0), " } ?? "")\(fingerprint))"
                )
            }
        }
        return lines
    }

    static func describe(_ item: AuthItem) -> String {
        let method: String
        switch item.method {
        case .oauth2(let settings):
            let grants = settings.clients.map { client in
                client.grantType == .password
                    ? "password grant, client \(client.clientID)" : "authorization code, client \(client.clientID)"
            }
            method = "OAuth 2.0 (\(grants.joined(separator: ", ")))"
        case .saml2: method = "SAML 2.0"
        case .basic: method = "user name and password (basic)"
        case .apiKey: method = "API key"
        case .certificate: method = "client certificate"
        case .unknown(let type): method = "\"\(type)\" (unknown)"
        }
        return item.requireOtp ? "\(method), then a one-time password" : method
    }
}
