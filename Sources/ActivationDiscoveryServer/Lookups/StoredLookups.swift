import ActivationConfiguration
import Foundation
import Logging
import Synchronization

/// Lookups answered from the database (`--database sqlite:…` or `postgres://…`).
///
/// E-mail lookups and client policies are read-only and answered from a snapshot in memory;
/// ``refresh(every:)`` polls the database's change counter and reloads the snapshot when another
/// instance (or the admin API) changed something, so a change is served everywhere within one
/// poll interval plus one reload. Code lookups go to the database every time: each is one atomic
/// use of the code (``CodeStore/consume(_:appID:now:)``).
package final class StoredLookups: LookupService {
    package let documents: DocumentStore
    package let codes: CodeStore
    private let snapshot = Mutex(DocumentStore.Snapshot())
    private let logger: Logger

    /// Lookups over `documents` and `codes`; call ``load()`` before serving.
    package init(documents: DocumentStore, codes: CodeStore, logger: Logger) {
        self.documents = documents
        self.codes = codes
        self.logger = logger
    }

    package func reload() async throws {
        try await load()
    }

    /// Reads the snapshot now.
    package func load() async throws {
        let fresh = try await documents.snapshot()
        snapshot.withLock { $0 = fresh }
    }

    /// Polls the change counter every `interval` and reloads when it moved, until cancelled. A
    /// database that cannot be reached leaves the last snapshot in place (and `/ready` says so).
    package func refresh(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
                let current = try await documents.version()
                if current != snapshot.withLock({ $0.version }) { try await load() }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("cannot refresh the documents from the database: \(error)")
            }
        }
    }

    package func find(appID: String, email: String) async throws -> LookupAnswer {
        // An application exists once it has a document; it may have no domain yet.
        let (known, domains) = snapshot.withLock { ($0.documents[appID] != nil, $0.domains[appID] ?? [:]) }
        guard known else { return .notFound("unknown application \(appID)") }
        return EmailDomain.match(email, in: domains).map(LookupAnswer.document)
            ?? .notFound(EmailDomain.notFoundReason(email))
    }

    package func find(appID: String, code: String, now: Date) async throws -> LookupAnswer {
        // Text that is no code of ours cannot be stored: answered as unknown, but only after the
        // same work (with a code of a length never issued), so that timing does not tell the two apart.
        let typed = OnboardingCode(typed: code)
        let outcome = try await codes.consume(
            typed ?? OnboardingCode.random(.base32(count: OnboardingCode.maxLength)), appID: appID, now: now)
        switch typed == nil ? .notFound : outcome {
        case .consumed(let name):
            if let json = snapshot.withLock({ $0.documents[appID]?[name] }) { return .document(json) }
            // A document newer than the snapshot.
            guard let json = try await documents.json(appID: appID, name: name) else {
                throw CodeStoreError.noRowReturned
            }
            return .document(json)
        case .expired: return .gone(.expired)
        case .used: return .gone(.used)
        case .revoked: return .gone(.revoked)
        case .notFound: return .notFound("unknown onboarding code")
        }
    }

    package func settings(appID: String) async throws -> String? {
        snapshot.withLock { $0.settings[appID] }
    }

    /// Ready when the database answers a read and would take a write, both within the readiness
    /// deadline: code lookups need both.
    package func unreadiness() async -> String? {
        let documents = documents
        do {
            return try await DatabaseWait.finishing(within: DatabaseWait.readiness) { () async -> String? in
                do { _ = try await documents.version() } catch { return "the database cannot be reached" }
                do { try await documents.database.probeWrites() } catch {
                    return "the database takes no writes (a read-only file or server)"
                }
                return nil
            }
        } catch {
            return "the database does not answer within \(DatabaseWait.readiness)"
        }
    }
}
