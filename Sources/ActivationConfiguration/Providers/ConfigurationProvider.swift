/// Something a provider may ask the user for before it can look a configuration up.
public struct ProviderInputKey: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// An e-mail address (discovery service lookup by domain).
    public static let emailAddress = ProviderInputKey(rawValue: "emailAddress")
    /// An onboarding code handed out by an administrator.
    public static let onboardingCode = ProviderInputKey(rawValue: "onboardingCode")
    /// Configuration text supplied by the app (how scanned QR text enters).
    public static let jsonString = ProviderInputKey(rawValue: "JSONstring")
}

/// The answers to a loader's one request for input: key → value.
public typealias ProviderInput = [ProviderInputKey: String]

/// A configuration a provider found, checked against the policy.
public struct ProvidedConfiguration: Sendable, Hashable {
    /// The normalised, policy-checked document.
    public var document: ConfigurationDocument
    /// Whether it was signed, and by which key if the signature was verified.
    public var signature: SignatureStatus
    /// Where it came from, for people: a file name, a URL without its query, `managed configuration`.
    public var origin: String
    /// For a verified signature: the signed code and the key that verified it.
    public var signatureProof: SignatureProof?

    /// A configuration found at `origin`.
    public init(
        document: ConfigurationDocument, signature: SignatureStatus = .unsigned, origin: String,
        signatureProof: SignatureProof? = nil
    ) {
        self.document = document
        self.signature = signature
        self.origin = origin
        self.signatureProof = signatureProof
    }
}

/// A source of onboarding configuration: a file, managed configuration, a discovery service, a
/// scanned code. A ``ConfigurationLoader`` asks providers in order; the first that returns wins.
///
/// ```swift
/// struct TenantFileProvider: ConfigurationProvider {
///     let identifier = "com.example.tenant-file"
///     func provide(input: ProviderInput) async throws -> ProvidedConfiguration { … }
/// }
/// ```
public protocol ConfigurationProvider: Sendable {
    /// A stable id, reverse-DNS style (SAP's are `com.sap.configuration.provider.*`).
    var identifier: String { get }
    /// The input keys this provider can use; it runs if the user answers at least one of them.
    /// Empty (the default): it needs no input.
    var inputKeys: [ProviderInputKey] { get }
    /// Finds the configuration, or throws why not (``ConfigurationError``, `notFound` when there is
    /// simply nothing there).
    func provide(input: ProviderInput) async throws -> ProvidedConfiguration
}

extension ConfigurationProvider {
    public var inputKeys: [ProviderInputKey] { [] }
}

extension PayloadRecognizer {
    /// Recognises bytes that must be a configuration: anything else (a URL, a product code) is an
    /// error that says what it is.
    public func configuration(from bytes: [UInt8], source: String) throws -> ProvidedConfiguration {
        let payload = try recognize(bytes: bytes, source: source)
        guard let document = payload.document else {
            throw ConfigurationError(
                .notConfiguration, source: source, "\(payload.summary), not an onboarding configuration")
        }
        return ProvidedConfiguration(
            document: document, signature: payload.signature, origin: source, signatureProof: payload.signatureProof)
    }
}
