import ActivationDiscoveryProtocol
import Foundation

/// What a lookup comes to, as the server answers it.
package enum LookupAnswer: Sendable, Equatable {
    /// The document's JSON (200).
    case document(String)
    /// Nothing matches (404); the text says why and is sent to the client.
    case notFound(String)
    /// The onboarding code existed but can no longer be used (410).
    case gone(GoneReason)

    /// Whether a code lookup failed, and so counts against the guessing limits.
    var failed: Bool {
        if case .document = self { false } else { true }
    }
}

/// Where the server's lookups are answered from: the static folder (``DiscoveryDirectory``) or the
/// database (``StoredLookups``).
package protocol LookupService: Sendable {
    /// The document for an e-mail address: by its domain, then each parent domain.
    func find(appID: String, email: String) async throws -> LookupAnswer
    /// The document for an onboarding code as typed; using it counts one use where uses are counted.
    func find(appID: String, code: String, now: Date) async throws -> LookupAnswer
    /// The application's client policies (SAP's `settingsExchange` JSON), or nil when it has none.
    func settings(appID: String) async throws -> String?
    /// Nil when lookups can be answered; else why not (`/ready` answers 503 with it).
    func unreadiness() async -> String?
    /// Reads what is served again after a change through the admin API.
    func reload() async throws
}

extension LookupService {
    package func unreadiness() async -> String? { nil }
    package func reload() async throws {}
}

/// The e-mail domain walk every lookup source shares.
enum EmailDomain {
    /// The value filed under the address's domain, else under its nearest parent domain
    /// (`a@eu.example.com` tries `eu.example.com`, then `example.com`, then `com`).
    static func match<Value>(_ email: String, in domains: [String: Value]) -> Value? {
        guard let at = email.lastIndex(of: "@") else { return nil }
        var domain = email[email.index(after: at)...].lowercased()
        while !domain.isEmpty {
            if let value = domains[domain] { return value }
            guard let dot = domain.firstIndex(of: ".") else { break }
            domain = String(domain[domain.index(after: dot)...])
        }
        return nil
    }

    /// Why nothing matched, for the 404 (the domain only: never the person's part of the address).
    static func notFoundReason(_ email: String) -> String {
        guard let at = email.lastIndex(of: "@") else { return "not an e-mail address" }
        return "no configuration for the e-mail domain \(email[email.index(after: at)...].lowercased())"
    }
}
