import ActivationConfiguration
import Foundation

/// `serve --configs DIR --database …`: the static folder's documents, domains and codes, copied
/// into the database at start (each document checked when the folder was read).
package enum FolderImport {
    /// How many uses an imported code gets: the folder served its codes until they expired.
    package static let importedCodeUses = 1_000_000
    /// When an imported code without `expires` expires: in 100 years.
    static let neverExpires: TimeInterval = 100 * 365 * 86_400

    /// What an import did.
    package struct Summary: Sendable, Equatable {
        package var documents = 0, domains = 0, codes = 0, settings = 0
    }

    /// Copies `directory` into the stores: documents and client policies are replaced, domains
    /// remapped, codes added when their hash is new (so a restart keeps what was used of them).
    ///
    /// - Throws: ``DiscoveryServiceError`` (`invalidFolder`) naming the code in `source` that is
    ///   no Base32 or digit code: the database keeps only codes it can hash canonically.
    package static func run(
        _ directory: DiscoveryDirectory, source: String, documents: DocumentStore, codes: CodeStore,
        now: Date = Date()
    ) async throws -> Summary {
        var summary = Summary()
        for (appID, application) in directory.applications.sorted(by: { $0.key < $1.key }) {
            var stored = Set<String>()
            func store(_ entry: DiscoveryDirectory.Entry) async throws {
                guard stored.insert(entry.document).inserted else { return }
                try await documents.put(appID: appID, name: entry.document, json: entry.json, now: now)
                summary.documents += 1
            }
            for (domain, entry) in application.domains.sorted(by: { $0.key < $1.key }) {
                try await store(entry)
                _ = try await documents.putDomain(appID: appID, domain: domain, document: entry.document)
                summary.domains += 1
            }
            for (key, entry) in application.codes.sorted(by: { $0.key < $1.key }) {
                guard let code = OnboardingCode(typed: key) else {
                    throw DiscoveryServiceError(
                        .invalidFolder, source: source, keyPath: "applications.\(appID).codes",
                        "a code to import must be Crockford Base32 or digits (grouped as people type it is fine)")
                }
                try await store(entry)
                let expires = entry.expires ?? now.addingTimeInterval(neverExpires)
                if try await codes.issueIfNew(
                    code, appID: appID, document: entry.document, label: "imported from discovery.json",
                    uses: importedCodeUses, expires: expires, now: now)
                {
                    summary.codes += 1
                }
            }
            if let settings = application.settings {
                try await documents.putSettings(appID: appID, json: settings, now: now)
                summary.settings += 1
            }
        }
        return summary
    }
}
