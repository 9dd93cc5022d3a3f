import Foundation

/// The operations of the admin API (`/admin/v1`, a bearer token): each one's method, path template
/// and audit action. The OpenAPI document names them by the same `operationId`s, and a test holds
/// the two to each other; the server registers one route per case and the client builds its paths
/// here, so no other copy of an admin path exists.
public enum AdminOperation: String, Sendable, CaseIterable {
    /// `GET /admin/v1/applications`: ``ApplicationList``.
    case listApplications
    /// `GET /admin/v1/audit?since=`: ``AuditList``.
    case listAudit
    /// `GET …/{appID}/documents`: ``DocumentList``.
    case listDocuments
    /// `PUT …/{appID}/documents/{name}` with a configuration document: ``DocumentListing``.
    case putDocument
    /// `GET …/{appID}/domains`: ``DomainList``.
    case listDomains
    /// `PUT …/{appID}/domains/{domain}` with ``DomainAssignment``: ``DomainMapping``.
    case putDomain
    /// `DELETE …/{appID}/domains/{domain}`: ``Deletion``.
    case deleteDomain
    /// `GET …/{appID}/codes?status=`: ``CodeList``.
    case listCodes
    /// `POST …/{appID}/codes` with ``CodeOrder``: 201 and ``IssuedCodeList``.
    case issueCodes
    /// `DELETE …/{appID}/codes/{id}`: ``Revocation``.
    case revokeCode
    /// `GET …/{appID}/settings`: ``SettingsRecord``.
    case getSettings
    /// `PUT …/{appID}/settings` with a `settingsExchange` document: ``SettingsRecord``.
    case putSettings
    /// `DELETE …/{appID}/settings`: ``Deletion``.
    case deleteSettings

    /// The prefix of every admin path.
    public static let prefix = "/admin/v1"

    /// The HTTP method.
    public var method: String {
        switch self {
        case .listApplications, .listAudit, .listDocuments, .listDomains, .listCodes, .getSettings: "GET"
        case .putDocument, .putDomain, .putSettings: "PUT"
        case .deleteDomain, .revokeCode, .deleteSettings: "DELETE"
        case .issueCodes: "POST"
        }
    }

    /// The path as the OpenAPI document writes it, parameters in braces: `/admin/v1/applications/{appID}/codes/{id}`.
    public var template: String {
        let application = Self.prefix + "/applications/{appID}"
        return switch self {
        case .listApplications: Self.prefix + "/applications"
        case .listAudit: Self.prefix + "/audit"
        case .listDocuments: application + "/documents"
        case .putDocument: application + "/documents/{name}"
        case .listDomains: application + "/domains"
        case .putDomain, .deleteDomain: application + "/domains/{domain}"
        case .listCodes, .issueCodes: application + "/codes"
        case .revokeCode: application + "/codes/{id}"
        case .getSettings, .putSettings, .deleteSettings: application + "/settings"
        }
    }

    /// The names of the template's parameters, in order.
    public var parameters: [String] {
        template.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
    }

    /// What the audit trail calls a call of this operation: `documents.put`, `codes.issue`, …
    public var auditAction: String {
        switch self {
        case .listApplications: "applications.list"
        case .listAudit: "audit.list"
        case .listDocuments: "documents.list"
        case .putDocument: "documents.put"
        case .listDomains: "domains.list"
        case .putDomain: "domains.put"
        case .deleteDomain: "domains.delete"
        case .listCodes: "codes.list"
        case .issueCodes: "codes.issue"
        case .revokeCode: "codes.revoke"
        case .getSettings: "settings.get"
        case .putSettings: "settings.put"
        case .deleteSettings: "settings.delete"
        }
    }

    /// Whether a call changes what the service stores (and so what it serves).
    public var changesState: Bool { method != "GET" }

    /// The path of one call: the template with `values` in place of its parameters, in order, each
    /// percent-encoded as a path segment.
    ///
    /// - Precondition: as many values as ``parameters``.
    public func path(_ values: String...) -> String {
        path(values)
    }

    /// ``path(_:)-(String...)`` with the values in an array.
    public func path(_ values: [String]) -> String {
        precondition(values.count == parameters.count, "\(rawValue) takes \(parameters.count) path parameters")
        var remaining = values[...]
        return template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix("{"), let value = remaining.popFirst() else { return String(segment) }
            return PercentEncoding.encodeSegment(value)
        }.joined(separator: "/")
    }
}
