import Foundation

/// What `activate inspect --json` prints (docs/generating-and-inspecting.md, "inspect --json"), as
/// a type; `scan --json` prints it for each code, and `restore --json` its ``Configuration``.
/// Programs that run the tool decode its output with it:
/// `JSONDecoder().decode(InspectReport.self, from: output)`. Absent fields are left out of the
/// JSON; keys are stable, and new keys may be added.
public struct InspectReport: Codable, Sendable, Hashable {
    /// Whether the input is a configuration that passed the policy, or `AppParameters.plist`.
    public var accepted: Bool
    /// What the payload is (``RecognizedPayload/Kind``'s raw value: `configuration`, `url`, …);
    /// absent when the input was rejected.
    public var kind: String?
    /// How a configuration was written (``RecognizedPayload/Format``'s raw value: `json`, `jws`,
    /// `ac1`, …); absent for other kinds.
    public var format: String?
    /// One line for people; absent when the input was rejected.
    public var summary: String?
    /// The transformed configuration: where the app connects and how it signs in (configurations only).
    public var configuration: Configuration?
    /// The normalised document in the cockpit's key layout, secrets redacted (configurations only).
    public var document: ConfigurationValue?
    /// The app id and destinations of `AppParameters.plist`.
    public var appParameters: AppParameters?
    /// Why the input was rejected; present only then.
    public var error: Rejection?

    /// `configuration`: what the default transformation makes of the document.
    public struct Configuration: Codable, Sendable, Hashable {
        /// The server's base URL.
        public var baseURL: String
        /// The server's host, canonical (IDNA for non-ASCII names).
        public var host: String
        /// The application id.
        public var appID: String?
        /// The application version (`1.0` when the document names none).
        public var appVersion: String?
        /// The base URL plus the authentication path.
        public var authenticationURL: String?
        /// Every auth item, in document order.
        public var auth: [Auth]
        /// Whether the configuration was signed, and by which key.
        public var signature: SignatureRecord

        /// The transformation of `document` in `report` (`report.info`), with the signature of the
        /// report's payload.
        init(document: ConfigurationDocument, report: ActivationReport) {
            baseURL = document.baseURL
            host = document.host
            let settings = report.info?[OnboardingInfo.settings]
            appID = settings?.applicationID
            appVersion = settings?.applicationVersion
            authenticationURL = report.info?[OnboardingInfo.authenticationURL]
            let primary = document.primaryAuth
            auth = document.auth.map { Auth($0, baseURL: document.baseURL, primary: $0 == primary) }
            signature = SignatureRecord(report.payload.signature, claims: report.payload.claims)
        }
    }

    /// One auth item of `configuration.auth`: its type, and the values of its method.
    public struct Auth: Codable, Sendable, Hashable {
        /// `oauth2`, `saml2.web.post`, `basic.default`, `apikeyonly`, `certificate.sdkprovider`, or an
        /// unknown type as written (``AuthMethod/typeName``).
        public var type: String
        /// A one-time password is asked as a second factor.
        public var requireOtp: Bool
        /// `true` on the first supported item, the one an app uses; absent on the others.
        public var primary: Bool?
        /// OAuth: the authorization endpoint.
        public var authorizationEndpoint: String?
        /// OAuth: the token endpoint.
        public var tokenEndpoint: String?
        /// OAuth: the end-user UI.
        public var endUserUI: String?
        /// OAuth: the XSUAA authorization endpoint.
        public var xsuaaAuthorizationEndpoint: String?
        /// OAuth: the clients (`clientID`, `redirectURL`, `grantType`, `passcode` as `<redacted>`).
        public var clients: [ConfigurationValue]?
        /// SAML: the finish endpoint, absolute.
        public var finishEndpointURL: String?
        /// SAML: the finish endpoint's redirect parameter.
        public var finishEndpointRedirectParameter: String?
        /// SAML: the name of the challenge header.
        public var challengeHeaderName: String?
        /// Client certificate: the certificate provider, if named.
        public var provider: String?

        /// The entry for `item` of a document whose base URL is `baseURL`.
        init(_ item: AuthItem, baseURL: String, primary: Bool) {
            type = item.method.typeName
            requireOtp = item.requireOtp
            self.primary = primary ? true : nil
            switch item.method {
            case .oauth2(let settings):
                authorizationEndpoint = settings.authorizationEndpoint
                tokenEndpoint = settings.tokenEndpoint
                endUserUI = settings.endUserUI
                xsuaaAuthorizationEndpoint = settings.xsuaaAuthorizationEndpoint
                clients = settings.clients.map { $0.value(includeSecrets: false) }
            case .saml2(let settings):
                finishEndpointURL = baseURL + settings.finishEndpointPath
                finishEndpointRedirectParameter = settings.finishEndpointRedirectParameter
                challengeHeaderName = settings.challengeHeaderName
            case .certificate(let provider):
                self.provider = provider
            case .basic, .apiKey, .unknown:
                break
            }
        }
    }

    /// `appParameters`: what `AppParameters.plist` names.
    public struct AppParameters: Codable, Sendable, Hashable {
        /// The application id.
        public var applicationID: String
        /// Destination name → destination id.
        public var destinations: [String: String]
    }

    /// `error`: why the input was rejected.
    public struct Rejection: Codable, Sendable, Hashable {
        /// The error's code (``ConfigurationError/Code/rawValue``: `insecure-url`, `expired`, …).
        public var code: String
        /// The error's reason for people, naming the input and the key path.
        public var reason: String
    }

    /// The report of a recognised payload: accepted for a configuration or `AppParameters.plist`,
    /// with the normalised document (secrets redacted) and the transformed configuration.
    public init(_ report: ActivationReport) {
        let payload = report.payload
        accepted = payload.document != nil || payload.appParameters != nil
        kind = payload.kind.rawValue
        format = payload.format?.rawValue
        summary = payload.summary
        if let parameters = payload.appParameters {
            appParameters = AppParameters(
                applicationID: parameters.applicationID, destinations: parameters.destinations)
        }
        if let document = payload.document {
            self.document = document.value(includeSecrets: false)
            configuration = Configuration(document: document, report: report)
        }
    }

    /// The report of an input that was rejected: `accepted` false, and the error's code and reason.
    public init(rejecting error: ConfigurationError) {
        accepted = false
        self.error = Rejection(code: error.code.rawValue, reason: error.reason)
    }
}
