import ActivationConfiguration
import Foundation

/// The content a discovery service serves, read from a folder and checked completely at start.
///
/// The folder holds configuration documents and a `discovery.json`:
///
/// ```json
/// {"applications": {"com.example.app": {
///     "domains": {"example.com": "example.json"},
///     "codes": {"12345678": {"document": "example.json", "expires": "2030-01-01T00:00:00Z"}},
///     "settings": "settings.json"}}}
/// ```
///
/// `settings` names the application's client policies, SAP's `settingsExchange` JSON, served at
/// its `settingsExchange` path.
///
/// E-mail lookups match the address's domain, then each parent domain (`eu.example.com`, then
/// `example.com`). Codes match as people type them (`OnboardingCode`: case, dashes, spaces and
/// look-alikes do not matter; a code that is no Base32 or digit code matches exactly); an expired
/// code is answered with 410.
public struct DiscoveryDirectory: Sendable {
    /// One document that a lookup can return.
    public struct Entry: Sendable, Hashable {
        /// The document as served: its canonical JSON.
        public var json: String
        /// The host name of the server the document points to.
        public var host: String
        /// The document's file name in the folder (empty for entries made in code).
        public var document: String = ""
        /// When an onboarding code stops working (410 from this moment on); nil when it never
        /// expires. Domain lookups ignore it.
        public var expires: Date?
    }

    /// The lookups one application answers.
    public struct Application: Sendable, Hashable {
        /// Documents by lower-case e-mail domain; a lookup tries the address's domain, then its parents.
        public var domains: [String: Entry] = [:]
        /// Documents by onboarding code, under ``DiscoveryDirectory/codeKey(_:)``.
        public var codes: [String: Entry] = [:]
        /// The client policies as served (compact JSON), or nil.
        public var settings: String?
    }

    /// The lookups of each application, by application id (the `AppConfigID` without its version).
    public var applications: [String: Application]

    /// Makes a directory of the given lookups as they are; unlike ``init(folder:recognizer:)``, nothing
    /// is read or checked.
    public init(applications: [String: Application]) {
        self.applications = applications
    }

    /// The most documents and lookups a folder may define.
    public static let maxEntries = 10_000

    /// Reads and validates `discovery.json` and every document it names.
    ///
    /// - Throws: ``DiscoveryServiceError`` `invalidFolder` naming `discovery.json` and the key path
    ///   that is wrong, or `ConfigurationError` naming a file that cannot be read or a document
    ///   that is refused, so the server refuses to start rather than serve a broken configuration.
    public init(folder: String, recognizer: PayloadRecognizer = PayloadRecognizer()) throws {
        let indexPath = "\(folder)/discovery.json"
        let index = try JSONReader().parse(try FileIO.read(indexPath, limit: 4 << 20), source: indexPath)
        func fail(_ path: String, _ message: String) -> DiscoveryServiceError {
            DiscoveryServiceError(.invalidFolder, source: indexPath, keyPath: path, "\(message)")
        }
        guard let apps = index.objectValue?["applications"]?.objectValue else {
            throw fail("applications", "expected an object of application ids")
        }
        var documents: [String: Entry] = [:]
        func document(_ value: ConfigurationValue, at path: String) throws -> Entry {
            guard let name = value.stringValue, !name.isEmpty else { throw fail(path, "expected a document file name") }
            guard !name.contains("/"), !name.hasPrefix(".") else {
                throw fail(path, "\"\(name)\" must be a file name in \(folder)")
            }
            if let cached = documents[name] { return cached }
            let file = "\(folder)/\(name)"
            let provided = try recognizer.configuration(
                from: try FileIO.read(file, limit: recognizer.policy.limits.maxDocumentBytes), source: file)
            let entry = Entry(
                json: provided.document.canonicalJSON(includeSecrets: true), host: provided.document.host,
                document: name)
            documents[name] = entry
            return entry
        }
        var applications: [String: Application] = [:]
        var count = 0
        for (appID, appValue) in apps {
            guard let app = appValue.objectValue else { throw fail("applications.\(appID)", "expected an object") }
            var application = Application()
            if let domains = app["domains"] {
                guard let object = domains.objectValue else {
                    throw fail("applications.\(appID).domains", "expected an object of domains")
                }
                for (domain, name) in object {
                    application.domains[domain.lowercased()] = try document(
                        name, at: "applications.\(appID).domains.\(domain)")
                    count += 1
                }
            }
            if let codes = app["codes"] {
                guard let object = codes.objectValue else {
                    throw fail("applications.\(appID).codes", "expected an object of codes")
                }
                for (code, value) in object {
                    let path = "applications.\(appID).codes.\(code)"
                    guard let entry = value.objectValue, let name = entry["document"] else {
                        throw fail(path, "expected {\"document\": …, \"expires\": …}")
                    }
                    var resolved = try document(name, at: "\(path).document")
                    if let expires = entry["expires"] {
                        guard let text = expires.stringValue, let date = try? Date(text, strategy: .iso8601) else {
                            throw fail("\(path).expires", "expected an ISO 8601 time such as 2030-01-01T00:00:00Z")
                        }
                        resolved.expires = date
                    }
                    let key = Self.codeKey(code)
                    guard application.codes[key] == nil else {
                        throw fail(
                            path, "the same code as another entry (codes are read without case, dashes and spaces)")
                    }
                    application.codes[key] = resolved
                    count += 1
                }
            }
            if let settings = app["settings"] {
                let path = "applications.\(appID).settings"
                guard let name = settings.stringValue, !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                    throw fail(path, "expected the file name of a settingsExchange document in \(folder)")
                }
                let file = "\(folder)/\(name)"
                let policies = try ClientPolicies(
                    json: try FileIO.read(file, limit: ClientPolicies.maxDocumentBytes), source: file)
                application.settings = JSONWriter.compact(policies.document)
            }
            applications[appID] = application
        }
        if count > Self.maxEntries {
            throw DiscoveryServiceError(
                .invalidFolder, source: indexPath, "\(count) lookups exceed the limit of \(Self.maxEntries)")
        }
        self.applications = applications
    }

    /// The outcome of one lookup.
    public enum Answer: Sendable, Equatable {
        /// The document to serve (200).
        case found(Entry)
        /// Nothing matches (404); the text says why and is sent to the client.
        case notFound(String)
        /// The onboarding code is known but has expired (410).
        case expired
    }

    /// Finds the document for an e-mail address (by domain, then parent domains).
    public func lookup(appID: String, email: String) -> Answer {
        guard let application = applications[appID] else { return .notFound("unknown application \(appID)") }
        return EmailDomain.match(email, in: application.domains).map(Answer.found)
            ?? .notFound(EmailDomain.notFoundReason(email))
    }

    /// The key a code is filed and looked up under: its canonical form when it reads as an
    /// onboarding code (so `1234-5678`, `12345678` and `abcd-efgh` as `ABCDEFGH` are one code each),
    /// else the text as it is.
    public static func codeKey(_ text: String) -> String {
        OnboardingCode(typed: text)?.canonical ?? text
    }

    /// Finds the document for an onboarding code.
    public func lookup(appID: String, code: String, now: Date = Date()) -> Answer {
        guard let application = applications[appID] else { return .notFound("unknown application \(appID)") }
        guard let entry = application.codes[Self.codeKey(code)] else { return .notFound("unknown onboarding code") }
        if let expires = entry.expires, expires <= now { return .expired }
        return .found(entry)
    }
}

extension DiscoveryDirectory: LookupService {
    package func find(appID: String, email: String) async -> LookupAnswer {
        lookup(appID: appID, email: email).served
    }

    package func find(appID: String, code: String, now: Date) async -> LookupAnswer {
        lookup(appID: appID, code: code, now: now).served
    }

    package func settings(appID: String) async -> String? {
        applications[appID]?.settings
    }
}

extension DiscoveryDirectory.Answer {
    /// The answer as the server sends it.
    var served: LookupAnswer {
        switch self {
        case .found(let entry): .document(entry.json)
        case .notFound(let why): .notFound(why)
        case .expired: .gone(.expired)
        }
    }
}
