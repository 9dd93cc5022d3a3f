import Foundation

/// What is shown to a person, or printed as JSON, before a configuration is used: the scan
/// confirmation of reference §5. Secrets (passcodes) never appear in it.
public struct ActivationReport: Sendable {
    /// The payload as recognised and checked.
    public let payload: RecognizedPayload
    /// The transformed configuration (configurations only).
    public let info: TransformResult?

    /// Recognised payload plus, for configurations, the default transformation.
    public init(payload: RecognizedPayload, transformer: DiscoveryServiceTransformer = DiscoveryServiceTransformer(), source: String) throws {
        self.payload = payload
        if let document = payload.document {
            info = try transformer.transform(document, source: source)
        } else {
            info = nil
        }
    }

    /// The report for a configuration that came from a provider or the store.
    public init(document: ConfigurationDocument, signature: SignatureStatus,
                transformer: DiscoveryServiceTransformer = DiscoveryServiceTransformer(), source: String) throws {
        let payload = RecognizedPayload(kind: .configuration, format: nil, document: document, signature: signature,
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
                var lines = ["App parameters for \(parameters.applicationID) (AppParameters.plist; no server configuration)."]
                for (name, id) in parameters.destinations.sorted(by: { $0.key < $1.key }) { lines.append("  Destination: \(name) → \(id)") }
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
                lines.append("  Signature:  verified (AC1, \(algorithm.rawValue), key \(fingerprint)\(issuer), expires \(claims.expires.formatted(.iso8601)))")
            } else {
                lines.append("  Signature:  verified (\(algorithm.rawValue), key \(keyID.map { "\($0), " } ?? "")\(fingerprint))")
            }
        }
        return lines
    }

    static func describe(_ item: AuthItem) -> String {
        let method: String
        switch item.method {
        case .oauth2(let settings):
            let grants = settings.clients.map { client in
                client.grantType == .password ? "password grant, client \(client.clientID)" : "authorization code, client \(client.clientID)"
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

    /// The object for an input that was rejected: `accepted: false`, the error's `code` and `reason`.
    public static func rejection(_ error: ConfigurationError) -> ConfigurationValue {
        .object(["accepted": .bool(false), "error": .object(["code": .string(error.code.rawValue), "reason": .string(error.reason)])])
    }

    /// The documented JSON object (README, "inspect --json"): `accepted`, `kind`, `format`, `summary`,
    /// and for configurations `document` (normalised, secrets redacted) and `configuration`
    /// (`baseURL`, `host`, `appID`, `appVersion`, `authenticationURL`, `auth`, `signature`).
    public var value: ConfigurationValue {
        let accepted = payload.document != nil || payload.appParameters != nil
        var object: ConfigurationObject = ["accepted": .bool(accepted), "kind": .string(payload.kind.rawValue)]
        if let format = payload.format { object["format"] = .string(format.rawValue) }
        object["summary"] = .string(payload.summary)
        if let parameters = payload.appParameters {
            var destinations = ConfigurationObject()
            for (name, id) in parameters.destinations.sorted(by: { $0.key < $1.key }) { destinations[name] = .string(id) }
            object["appParameters"] = .object([
                "applicationID": .string(parameters.applicationID), "destinations": .object(destinations),
            ])
        }
        guard let document = payload.document else { return .object(object) }
        object["document"] = document.value(includeSecrets: false)

        var configuration: ConfigurationObject = [
            "baseURL": .string(document.baseURL), "host": .string(document.host),
        ]
        if let settings = info?[OnboardingInfo.settings] {
            configuration["appID"] = .string(settings.applicationID)
            configuration["appVersion"] = .string(settings.applicationVersion)
        }
        if let url = info?[OnboardingInfo.authenticationURL] { configuration["authenticationURL"] = .string(url) }
        let primary = document.primaryAuth
        configuration["auth"] = .array(document.auth.map { item in
            var entry = authValue(item, baseURL: document.baseURL)
            if item == primary { entry["primary"] = .bool(true) }
            return .object(entry)
        })
        var signature = payload.signature.record
        if let claims = payload.claims {
            if let issuer = claims.issuer { signature["issuer"] = .string(issuer) }
            signature["expires"] = .string(claims.expires.formatted(.iso8601))
            if let notBefore = claims.notBefore { signature["notBefore"] = .string(notBefore.formatted(.iso8601)) }
            if let issuedAt = claims.issuedAt { signature["issuedAt"] = .string(issuedAt.formatted(.iso8601)) }
            if !claims.audience.isEmpty { signature["audience"] = .array(claims.audience.map(ConfigurationValue.string)) }
        }
        configuration["signature"] = .object(signature)
        object["configuration"] = .object(configuration)
        return .object(object)
    }

    private func authValue(_ item: AuthItem, baseURL: String) -> ConfigurationObject {
        var entry: ConfigurationObject = ["type": .string(item.method.typeName), "requireOtp": .bool(item.requireOtp)]
        switch item.method {
        case .oauth2(let settings):
            entry["authorizationEndpoint"] = .string(settings.authorizationEndpoint)
            entry["tokenEndpoint"] = .string(settings.tokenEndpoint)
            if let endUserUI = settings.endUserUI { entry["endUserUI"] = .string(endUserUI) }
            if let xsuaa = settings.xsuaaAuthorizationEndpoint { entry["xsuaaAuthorizationEndpoint"] = .string(xsuaa) }
            entry["clients"] = .array(settings.clients.map { $0.value(includeSecrets: false) })
        case .saml2(let settings):
            entry["finishEndpointURL"] = .string(baseURL + settings.finishEndpointPath)
            entry["finishEndpointRedirectParameter"] = .string(settings.finishEndpointRedirectParameter)
            entry["challengeHeaderName"] = .string(settings.challengeHeaderName)
        case .certificate(let provider):
            if let provider { entry["provider"] = .string(provider) }
        case .basic, .apiKey, .unknown:
            break
        }
        return entry
    }
}
