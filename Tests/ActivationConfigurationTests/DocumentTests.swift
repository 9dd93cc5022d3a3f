import ActivationConfiguration
import Foundation
import Testing

/// Every reference example and variant decodes and transforms to the documented values.
@Suite("Configuration documents: formats, variants, transformation")
struct DocumentTests {
    static let host = "mobile-demo.example.hana.ondemand.com"
    static let base = "https://\(host)"

    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        var format: RecognizedPayload.Format
        var baseURL: String
        var appID: String
        var authTypes: [String]
        var codeGrantClient: String? = nil
        var passwordGrantClient: String? = nil
        var samlFinishURL: String? = nil
        var basic = false
        var apiKey = false
        var otp = false
        var testDescription: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(
            file: "oauth-authorization-code.json", format: .json, baseURL: base, appID: "com.example.fieldservice",
            authTypes: ["oauth2"], codeGrantClient: "3f2c9a1e-0000-4000-8000-000000000001"),
        Expectation(
            file: "oauth-authorization-code.plist", format: .xmlPropertyList, baseURL: base,
            appID: "com.example.fieldservice",
            authTypes: ["oauth2"], codeGrantClient: "3f2c9a1e-0000-4000-8000-000000000001"),
        Expectation(
            file: "oauth-authorization-code.bplist", format: .binaryPropertyList, baseURL: base,
            appID: "com.example.fieldservice",
            authTypes: ["oauth2"], codeGrantClient: "3f2c9a1e-0000-4000-8000-000000000001"),
        Expectation(
            file: "android-basic.json", format: .json, baseURL: base, appID: "com.example.fieldservice",
            authTypes: ["basic.default"], basic: true),
        Expectation(
            file: "cross-context-sso.json", format: .json, baseURL: base, appID: "com.example.fieldservice",
            authTypes: ["oauth2"], passwordGrantClient: "3f2c9a1e-0000-4000-8000-000000000002"),
        Expectation(
            file: "saml.json", format: .json, baseURL: "\(base):8443", appID: "com.example.saml",
            authTypes: ["saml2.web.post"], samlFinishURL: "\(base):8443/SAMLAuthLauncher", otp: true),
        Expectation(
            file: "saml-custom.json", format: .json, baseURL: "\(base)/mobileservices", appID: "com.example.saml",
            authTypes: ["saml2.web.post"], samlFinishURL: "\(base)/mobileservices/finish"),
        Expectation(
            file: "legacy-flat-oauth2.json", format: .json, baseURL: base, appID: "com.example.legacy",
            authTypes: ["oauth2"], codeGrantClient: "legacy-client"),
        Expectation(
            file: "legacy-no-auth.json", format: .json, baseURL: base, appID: "com.example.legacy",
            authTypes: ["basic.default"], basic: true),
        Expectation(
            file: "apikey-and-unknown.json", format: .json, baseURL: base, appID: "com.example.apikey",
            authTypes: ["kerberos", "apikeyonly"], apiKey: true, otp: true),
        Expectation(
            file: "mdm-flattened.json", format: .mdmKeys, baseURL: base, appID: "com.example.fieldservice",
            authTypes: ["oauth2"], codeGrantClient: "3f2c9a1e-0000-4000-8000-000000000001"),
        Expectation(
            file: "mdk-link.txt", format: .mdkLink, baseURL: base, appID: "com.example.fieldservice",
            authTypes: ["oauth2"], codeGrantClient: "3f2c9a1e-0000-4000-8000-000000000001"),
        Expectation(
            file: "mobile-cards-link.txt", format: .mobileCardsLink, baseURL: base, appID: "com.sap.content2go",
            authTypes: ["oauth2"], codeGrantClient: "cards-client-1"),
    ]

    @Test("each example decodes and transforms to the documented values", arguments: expectations)
    func example(_ expected: Expectation) throws {
        let (payload, info) = try recognize(try Fixture.bytes("documents/\(expected.file)"), source: expected.file)
        let document = try #require(payload.document)
        #expect(payload.kind == .configuration)
        #expect(payload.format == expected.format)
        #expect(payload.signature == .unsigned)
        #expect(document.baseURL == expected.baseURL)
        #expect(document.auth.map(\.method.typeName) == expected.authTypes)
        let settings = try #require(info[OnboardingInfo.settings])
        #expect(settings.backendURL == expected.baseURL)
        #expect(settings.applicationID == expected.appID)
        #expect(info[OnboardingInfo.authenticationURL] == expected.baseURL)
        #expect(info[OnboardingInfo.oauth2CodeGrant]?.clientID == expected.codeGrantClient)
        #expect(info[OnboardingInfo.oauth2PasswordGrant]?.clientID == expected.passwordGrantClient)
        #expect(info[OnboardingInfo.saml]?.finishEndpointURL == expected.samlFinishURL)
        #expect((info[OnboardingInfo.basicAuthentication] ?? false) == expected.basic)
        #expect((info[OnboardingInfo.apiKeyAuthentication] ?? false) == expected.apiKey)
        #expect(info[OnboardingInfo.otpRequired] == expected.otp)
        // The typed report (inspect --json) says the same.
        let report = InspectReport(try ActivationReport(payload: payload, source: expected.file))
        #expect(
            report.accepted && report.kind == "configuration" && report.format == expected.format.rawValue
                && report.error == nil)
        #expect(report.document == document.value(includeSecrets: false))
        let configuration = try #require(report.configuration)
        #expect(
            configuration.baseURL == expected.baseURL && configuration.appID == expected.appID
                && configuration.authenticationURL == expected.baseURL)
        #expect(configuration.auth.map(\.type) == expected.authTypes)
        #expect(configuration.auth.filter { $0.primary == true }.map(\.type) == [document.primaryAuth?.method.typeName])
        #expect(configuration.auth.compactMap(\.finishEndpointURL).first == expected.samlFinishURL)
        #expect(configuration.signature == SignatureRecord(.unsigned))
    }

    @Test("the cockpit example's OAuth values, field by field")
    func cockpitOAuth() throws {
        let (_, info) = try recognize(try Fixture.bytes("documents/oauth-authorization-code.json"))
        let grant = try #require(info[OnboardingInfo.oauth2CodeGrant])
        #expect(grant.authorizationEndpointURL == "\(Self.base)/oauth2/api/v1/authorize")
        #expect(grant.tokenEndpointURL == "\(Self.base)/oauth2/api/v1/token")
        #expect(grant.redirectURL == Self.base)
        #expect(grant.endUserUIURL == Self.base)
        #expect(grant.xsuaaAuthorizationEndpointURL == nil)
        #expect(info[OnboardingInfo.settings]?.applicationVersion == "1.0")
    }

    @Test("SAML defaults and custom values")
    func saml() throws {
        let (_, defaults) = try recognize(try Fixture.bytes("documents/saml.json"))
        let saml = try #require(defaults[OnboardingInfo.saml])
        #expect(saml.challengeHeaderName == "com.sap.cloud.security.login")
        #expect(saml.finishEndpointRedirectParameter == "finishEndpointParam")
        #expect(saml.authorizationEndpointURL == "\(Self.base):8443")
        #expect(defaults[OnboardingInfo.settings]?.applicationVersion == "2.1")
        let (_, custom) = try recognize(try Fixture.bytes("documents/saml-custom.json"))
        #expect(custom[OnboardingInfo.saml]?.challengeHeaderName == "x-login")
        #expect(custom[OnboardingInfo.saml]?.finishEndpointRedirectParameter == "next")
    }

    @Test("unknown keys and unknown auth types are kept, in order")
    func unknownKept() throws {
        let (payload, _) = try recognize(try Fixture.bytes("documents/apikey-and-unknown.json"))
        let document = try #require(payload.document)
        #expect(document.otherKeys["tenant"] == .object(["id": .string("t-42"), "region": .string("eu10")]))
        #expect(document.auth[0].method == .unknown(type: "kerberos"))
        #expect(document.auth[0].otherConfig["realm"] == .string("EXAMPLE"))
        #expect(document.primaryAuth?.method == .apiKey)
        #expect(document.multiUser == true)
        #expect(document.certificateProvider == "com.example.certs")
        let (saml, _) = try recognize(try Fixture.bytes("documents/saml.json"))
        #expect(saml.document?.otherKeys["__comment"] == .string("SAML with defaults"))
    }

    @Test("the passcode is a secret: never in descriptions or reports")
    func passcodeHidden() throws {
        let (payload, info) = try recognize(try Fixture.bytes("documents/cross-context-sso.json"))
        let secret = "9f86d081884c7d659a2feaa0c55ad015"
        #expect(info[OnboardingInfo.oauth2PasswordGrant]?.passcode == secret)
        #expect(!String(describing: info[OnboardingInfo.oauth2PasswordGrant]!).contains(secret))
        let report = try ActivationReport(payload: payload, source: "x")
        #expect(!String(decoding: try JSONEncoder().encode(InspectReport(report)), as: UTF8.self).contains(secret))
        #expect(!report.lines(headline: "").joined().contains(secret))
        #expect(!(payload.document?.canonicalJSON(includeSecrets: false).contains(secret) ?? true))
    }

    @Test("the typed inspect report: the cockpit example field by field, absent fields left out of the JSON")
    func inspectReport() throws {
        let (payload, _) = try recognize(try Fixture.bytes("documents/oauth-authorization-code.json"))
        let report = InspectReport(try ActivationReport(payload: payload, source: "x"))
        #expect(report.summary == "onboarding configuration for \(Self.host)" && report.appParameters == nil)
        let configuration = try #require(report.configuration)
        #expect(configuration.host == Self.host && configuration.appVersion == "1.0")
        let oauth = try #require(configuration.auth.first)
        #expect(oauth.type == "oauth2" && oauth.primary == true && !oauth.requireOtp)
        #expect(
            oauth.authorizationEndpoint == "\(Self.base)/oauth2/api/v1/authorize"
                && oauth.tokenEndpoint == "\(Self.base)/oauth2/api/v1/token")
        #expect(
            oauth.endUserUI == Self.base && oauth.xsuaaAuthorizationEndpoint == nil && oauth.finishEndpointURL == nil
                && oauth.provider == nil)
        #expect(
            oauth.clients == [
                .object([
                    "clientID": .string("3f2c9a1e-0000-4000-8000-000000000001"), "redirectURL": .string(Self.base),
                    "grantType": .string("authorization_code"),
                ])
            ])

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func keys(_ value: some Encodable) throws -> [String] {
            try JSONDecoder().decode(ConfigurationValue.self, from: encoder.encode(value)).objectValue?.keys ?? []
        }
        #expect(try keys(report) == ["accepted", "configuration", "document", "format", "kind", "summary"])
        #expect(
            try keys(oauth) == [
                "authorizationEndpoint", "clients", "endUserUI", "primary", "requireOtp", "tokenEndpoint", "type",
            ])
        #expect(try keys(configuration.signature) == ["status"])

        // A rejection is `accepted` and `error`, nothing else; other payloads are reported as what they are.
        let rejection = InspectReport(rejecting: ConfigurationError(.insecureURL, source: "x.json", "not an https URL"))
        #expect(
            String(decoding: try encoder.encode(rejection), as: UTF8.self)
                == #"{"accepted":false,"error":{"code":"insecure-url","reason":"x.json: not an https URL"}}"#)
        let url = InspectReport(
            try ActivationReport(
                payload: try PayloadRecognizer().recognize(text: "https://example.com", source: "x"), source: "x"))
        #expect(
            !url.accepted && url.kind == "url" && url.format == nil && url.configuration == nil && url.document == nil)
        let plist = try PayloadRecognizer().recognize(
            bytes: try Fixture.bytes("documents/AppParameters.plist"), source: "AppParameters.plist")
        let parameters = InspectReport(try ActivationReport(payload: plist, source: "x"))
        #expect(parameters.accepted && parameters.kind == "app-parameters" && parameters.configuration == nil)
        #expect(
            parameters.appParameters?.applicationID == "com.example.fieldservice"
                && parameters.appParameters?.destinations.count == 2)
    }

    @Test("AppParameters.plist gives the app id and destinations")
    func appParameters() throws {
        let payload = try PayloadRecognizer().recognize(
            bytes: try Fixture.bytes("documents/AppParameters.plist"), source: "AppParameters.plist")
        #expect(payload.kind == .appParameters)
        let parameters = try #require(payload.appParameters)
        #expect(parameters.applicationID == "com.example.fieldservice")
        #expect(parameters.destinations["mobileservices"] == "mobileservices")
        #expect(parameters.publicKeyFile == "signer.pub.pem")
        // The transformer takes them where a document has none.
        let document = try ConfigurationDocument(from: .object(["host": .string(Self.host)]), source: "x")
        let info = try DiscoveryServiceTransformer(
            applicationID: parameters.applicationID, authenticationPath: "mobileservices",
            destinations: parameters.destinations
        ).transform(document, source: "x")
        #expect(info[OnboardingInfo.settings]?.applicationID == "com.example.fieldservice")
        #expect(info[OnboardingInfo.authenticationURL] == "\(Self.base)/mobileservices")
        #expect(info[OnboardingInfo.settings]?.destinations?.count == 2)
    }

    @Test(
        "canonical JSON: cockpit key order, and it reads back to an equal document", arguments: expectations.map(\.file)
    )
    func canonical(file: String) throws {
        let (payload, _) = try recognize(try Fixture.bytes("documents/\(file)"))
        let document = try #require(payload.document)
        let json = document.canonicalJSON()
        let (again, _) = try recognize(Array(json.utf8))
        #expect(again.document == document)
        #expect(json.hasPrefix(#"{"host":""#) || json.hasPrefix(#"{"serviceURL":""#))
    }

    @Test("the canonical form of the cockpit example is exactly the cockpit's compact JSON")
    func cockpitCanonical() throws {
        let (payload, _) = try recognize(try Fixture.bytes("documents/oauth-authorization-code.json"))
        let compact = try Fixture.text("documents/oauth-authorization-code.json").split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.joined()
        #expect(payload.document?.canonicalJSON() == compact)
    }

    @Test("MDM keys flatten and inflate back")
    func mdmRoundTrip() throws {
        let (payload, _) = try recognize(try Fixture.bytes("documents/oauth-authorization-code.json"))
        let object = try #require(payload.document?.value().objectValue)
        let flat = MDMKeys.flatten(object)
        #expect(flat["auth/config/oauth2.clients/clientID"] == .string("3f2c9a1e-0000-4000-8000-000000000001"))
        #expect(try MDMKeys.inflate(flat) == object)
    }

    @Test("a custom transformer for an app-specific key, recursive and merged into one map")
    func customTransformer() throws {
        struct Tenant: Sendable, Hashable {
            var id: String
            var region: String
        }
        struct TenantTransformer: ConfigurationTransformer {
            static let key = InfoKey<Tenant>("com.example.tenant")
            func transform(_ value: ConfigurationValue, at path: ConfigurationPath, context: TransformContext) throws
                -> TransformResult
            {
                guard let object = value.objectValue, let id = object["id"]?.stringValue else {
                    throw context.error(.wrongType, at: path, "expected an object with id")
                }
                var result = try context.transform(object: value, at: path)  // nested keys, recursively
                result[Self.key] = Tenant(id: id, region: object["region"]?.stringValue ?? "")
                return result
            }
        }
        struct RegionTransformer: ConfigurationTransformer {
            static let key = InfoKey<String>("com.example.region")
            func transform(_ value: ConfigurationValue, at path: ConfigurationPath, context: TransformContext) throws
                -> TransformResult
            {
                var result = TransformResult()
                result[Self.key] = "\(path)=\(value.stringValue ?? "")"
                return result
            }
        }
        let transformer = DiscoveryServiceTransformer()
            .registering("tenant", TenantTransformer())
            .registering("region", RegionTransformer())
        let (payload, _) = try recognize(try Fixture.bytes("documents/apikey-and-unknown.json"))
        let info = try transformer.transform(try #require(payload.document), source: "x")
        #expect(info[TenantTransformer.key] == Tenant(id: "t-42", region: "eu10"))
        #expect(info[RegionTransformer.key] == "tenant.region=eu10")
        #expect(info[OnboardingInfo.apiKeyAuthentication] == true)

        let broken = try ConfigurationDocument(
            from: .object(["host": .string(Self.host), "appID": .string("a"), "tenant": .string("x")]), source: "x.json"
        )
        let error = #expect(throws: ConfigurationError.self) { try transformer.transform(broken, source: "x.json") }
        #expect(error?.reason == "x.json: tenant: expected an object with id")
    }
}
