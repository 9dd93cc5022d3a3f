import Foundation

// The bodies of the admin API, as the OpenAPI document describes them. Dates are ISO 8601 in UTC
// to the second; ``AdminJSON`` encodes and decodes them as the service does.

/// `GET /admin/v1/applications`.
public struct ApplicationList: Codable, Sendable, Hashable {
    /// Every application the service knows, by id.
    public var applications: [ApplicationSummary]
    /// A listing.
    public init(applications: [ApplicationSummary]) { self.applications = applications }
}

/// One application: how much it holds.
public struct ApplicationSummary: Codable, Sendable, Hashable {
    /// Its id, e.g. `com.example.fieldservice`.
    public var appID: String
    /// Its configuration documents.
    public var documents: Int
    /// Its e-mail domains.
    public var domains: Int
    /// Its codes that can still be used.
    public var activeCodes: Int
    /// Whether it has client policies.
    public var settings: Bool

    /// A summary.
    public init(appID: String, documents: Int, domains: Int, activeCodes: Int, settings: Bool) {
        (self.appID, self.documents, self.domains, self.activeCodes, self.settings) = (
            appID, documents, domains, activeCodes, settings
        )
    }
}

/// `GET /admin/v1/audit`.
public struct AuditList: Codable, Sendable, Hashable {
    /// The entries, newest first.
    public var entries: [AuditEntry]
    /// A listing.
    public init(entries: [AuditEntry]) { self.entries = entries }
}

/// One audited admin call.
public struct AuditEntry: Codable, Sendable, Hashable {
    /// When it was made.
    public var at: Date
    /// The token's fingerprint, or `unauthenticated`.
    public var actor: String
    /// The operation's ``AdminOperation/auditAction``, `sign-in` for a refused token, `unknown` for no operation.
    public var action: String
    /// The application it concerned.
    public var appID: String?
    /// What it concerned within the application (a document, a domain, code ids); never a code or secret.
    public var subject: String?
    /// `ok`, or the ``DiscoveryErrorCode`` of the refusal.
    public var outcome: String

    /// An entry.
    public init(at: Date, actor: String, action: String, appID: String? = nil, subject: String? = nil, outcome: String)
    {
        (self.at, self.actor, self.action, self.appID, self.subject, self.outcome) = (
            at, actor, action, appID, subject, outcome
        )
    }
}

/// `GET …/{appID}/documents`.
public struct DocumentList: Codable, Sendable, Hashable {
    /// The documents, by name.
    public var documents: [DocumentListing]
    /// A listing.
    public init(documents: [DocumentListing]) { self.documents = documents }
}

/// A stored document as listed: what `activate inspect` would say about it.
public struct DocumentListing: Codable, Sendable, Hashable {
    /// Its name, e.g. `fieldservice.json`.
    public var name: String
    /// The SHA-256 of its stored form, in hex.
    public var sha256: String?
    /// When it was stored.
    public var updatedAt: Date
    /// Its host, sign-in and warnings.
    public var summary: DocumentSummary

    /// A listing.
    public init(name: String, sha256: String? = nil, updatedAt: Date, summary: DocumentSummary) {
        (self.name, self.sha256, self.updatedAt, self.summary) = (name, sha256, updatedAt, summary)
    }
}

/// Host, sign-in and what an administrator should know before serving a document.
public struct DocumentSummary: Codable, Sendable, Hashable {
    /// The host devices connect to.
    public var host: String?
    /// The server's base URL.
    public var baseURL: String?
    /// The sign-in methods, by type name (`basic`, `oauth2`, …).
    public var auth: [String]
    /// Problems worth knowing, in plain words.
    public var warnings: [String]

    /// A summary.
    public init(host: String? = nil, baseURL: String? = nil, auth: [String] = [], warnings: [String] = []) {
        (self.host, self.baseURL, self.auth, self.warnings) = (host, baseURL, auth, warnings)
    }
}

/// `GET …/{appID}/domains`.
public struct DomainList: Codable, Sendable, Hashable {
    /// The mappings.
    public var domains: [DomainMapping]
    /// A listing.
    public init(domains: [DomainMapping]) { self.domains = domains }
}

/// An e-mail domain and the document its addresses are served.
public struct DomainMapping: Codable, Sendable, Hashable {
    /// The domain, lower case (its subdomains are served too).
    public var domain: String
    /// The document's name.
    public var document: String
    /// A mapping.
    public init(domain: String, document: String) { (self.domain, self.document) = (domain, document) }
}

/// The body of `PUT …/{appID}/domains/{domain}`.
public struct DomainAssignment: Codable, Sendable, Hashable {
    /// The name of a document of the application.
    public var document: String
    /// An assignment.
    public init(document: String) { self.document = document }
}

/// `GET …/{appID}/codes`.
public struct CodeList: Codable, Sendable, Hashable {
    /// The codes, newest first.
    public var codes: [CodeRecord]
    /// A listing.
    public init(codes: [CodeRecord]) { self.codes = codes }
}

/// A code as administrators see it: never the code itself.
public struct CodeRecord: Codable, Sendable, Hashable {
    /// Its id (what `DELETE …/codes/{id}` takes).
    public var id: Int64
    /// The document it looks up.
    public var document: String
    /// Its label.
    public var label: String?
    /// Where it stands.
    public var status: CodeStatus
    /// How many more times it may be used.
    public var usesLeft: Int
    /// When it was issued.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// When it was last used.
    public var consumedAt: Date?
    /// When it was revoked.
    public var revokedAt: Date?

    /// A record.
    public init(
        id: Int64, document: String, label: String? = nil, status: CodeStatus, usesLeft: Int, createdAt: Date,
        expiresAt: Date,
        consumedAt: Date? = nil, revokedAt: Date? = nil
    ) {
        (self.id, self.document, self.label, self.status, self.usesLeft) = (id, document, label, status, usesLeft)
        (self.createdAt, self.expiresAt, self.consumedAt, self.revokedAt) = (
            createdAt, expiresAt, consumedAt, revokedAt
        )
    }
}

/// The answer of `POST …/{appID}/codes`.
public struct IssuedCodeList: Codable, Sendable, Hashable {
    /// The codes just issued.
    public var codes: [IssuedCode]
    /// A listing.
    public init(codes: [IssuedCode]) { self.codes = codes }
}

/// One code just issued: the only time its plain text leaves the service.
public struct IssuedCode: Codable, Sendable, Hashable {
    /// Its id.
    public var id: Int64
    /// The code as people type it, e.g. `ABCD-EFGH-JKMN`.
    public var code: String
    /// Its label.
    public var label: String?
    /// The document it looks up.
    public var document: String
    /// How many times it may be used.
    public var uses: Int
    /// When it stops working.
    public var expiresAt: Date
    /// Its QR as SVG, when the service draws them.
    public var qrSVG: String?

    /// An issued code.
    public init(
        id: Int64, code: String, label: String? = nil, document: String, uses: Int, expiresAt: Date,
        qrSVG: String? = nil
    ) {
        (self.id, self.code, self.label, self.document, self.uses, self.expiresAt, self.qrSVG) = (
            id, code, label, document, uses, expiresAt, qrSVG
        )
    }
}

/// `GET` and `PUT …/{appID}/settings`: the client policies as stored.
public struct SettingsRecord: Codable, Sendable, Hashable {
    /// The application.
    public var appID: String
    /// When they were stored.
    public var updatedAt: Date
    /// The SHA-256 of their stored form, in hex.
    public var sha256: String?
    /// SAP's `settingsExchange` document as stored (unknown keys kept).
    public var settings: JSONValue

    /// A record.
    public init(appID: String, updatedAt: Date, sha256: String? = nil, settings: JSONValue) {
        (self.appID, self.updatedAt, self.sha256, self.settings) = (appID, updatedAt, sha256, settings)
    }
}

/// The answer of a `DELETE` that removed a domain or an application's client policies.
public struct Deletion: Codable, Sendable, Hashable {
    /// The domain or application id removed.
    public var deleted: String
    /// An answer.
    public init(deleted: String) { self.deleted = deleted }
}

/// The answer of `DELETE …/{appID}/codes/{id}`.
public struct Revocation: Codable, Sendable, Hashable {
    /// The id of the code revoked.
    public var revoked: Int64
    /// An answer.
    public init(revoked: Int64) { self.revoked = revoked }
}

/// The encoder and decoder of the admin API's bodies: ISO 8601 dates, keys sorted, `/` unescaped.
public enum AdminJSON {
    /// The most bytes of a request body.
    public static let maxRequestBytes = 64 << 10

    /// An encoder as the service encodes.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder of what the service sends.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// `value` as compact JSON text.
    public static func text(_ value: some Encodable) -> String {
        (try? String(decoding: encoder().encode(value), as: UTF8.self)) ?? "{}"
    }
}
