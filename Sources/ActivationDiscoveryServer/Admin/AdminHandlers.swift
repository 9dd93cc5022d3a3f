import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation
import Hummingbird
import NIOCore

extension AdminAPI {
    /// Answers one call of `operation`, which the router matched on the canonical path and method
    /// (the token is already checked). Refusals are thrown as ``Refusal``; what is touched is
    /// noted for the audit in the context's ``AuditNote``.
    func handle(_ operation: AdminOperation, _ request: Request, _ context: DiscoveryServer.Context) async throws
        -> Response
    {
        let now = Date()
        let note = context.auditNote
        let query = request.uri.queryParameters
        switch operation {
        case .listApplications:
            return .adminJSON(.ok, ApplicationList(applications: try await documents.applications(now: now)))
        case .listAudit:
            let since =
                try query["since"].map { value throws(Refusal) in try Self.parseDate(String(value)) }
                ?? now.addingTimeInterval(-86_400)
            return .adminJSON(.ok, AuditList(entries: try await audit.entries(since: since)))
        default:
            let appID = try context.parameter("appID", as: ApplicationID.self).value
            note?.appID = appID
            return try await handle(operation, appID: appID, request: request, context: context, now: now)
        }
    }

    /// Answers a call of an operation on one application's resources.
    private func handle(
        _ operation: AdminOperation, appID: String, request: Request, context: DiscoveryServer.Context, now: Date
    ) async throws -> Response {
        let note = context.auditNote
        switch operation {
        case .listApplications, .listAudit:
            throw Refusal(.notFound, "no such admin resource")

        case .listDocuments:
            let listed = try await documents.documents(appID: appID).map { stored in
                DocumentListing(
                    name: stored.name, sha256: stored.sha256, updatedAt: stored.updatedAt,
                    summary: summary(of: Array(stored.json.utf8), name: stored.name))
            }
            return .adminJSON(.ok, DocumentList(documents: listed))

        case .putDocument:
            let name = try context.parameter("name", as: DocumentName.self).value
            note?.subject = name
            let body = try await Self.body(of: request)
            let document: ConfigurationDocument
            do {
                guard let parsed = try recognizer.recognize(bytes: body, source: name).document else {
                    throw Refusal(.invalidDocument, "\(name): not an onboarding configuration")
                }
                document = parsed
            } catch let error as ConfigurationError {
                throw Refusal(.invalidDocument, error.reason, keyPath: error.keyPath)
            }
            let json = document.canonicalJSON(includeSecrets: true)
            try await documents.put(appID: appID, name: name, json: json, now: now)
            return .adminJSON(
                .ok, DocumentListing(name: name, updatedAt: now, summary: summary(of: Array(json.utf8), name: name)))

        case .listDomains:
            let mapped = try await documents.domains(appID: appID).map {
                DomainMapping(domain: $0.domain, document: $0.document)
            }
            return .adminJSON(.ok, DomainList(domains: mapped))

        case .putDomain:
            let domain = try context.parameter("domain", as: DomainName.self).value
            note?.subject = domain
            let assignment = try Self.decode(DomainAssignment.self, from: try await Self.body(of: request))
            guard try await documents.putDomain(appID: appID, domain: domain, document: assignment.document) else {
                throw Refusal(.notFound, "the application \(appID) has no document \(assignment.document)")
            }
            return .adminJSON(.ok, DomainMapping(domain: domain, document: assignment.document))

        case .deleteDomain:
            let domain = try context.parameter("domain", as: DomainName.self).value
            note?.subject = domain
            guard try await documents.deleteDomain(appID: appID, domain: domain) else {
                throw Refusal(.notFound, "the domain \(domain) is not mapped")
            }
            return .adminJSON(.ok, Deletion(deleted: domain))

        case .getSettings:
            guard let stored = try await documents.settings(appID: appID) else {
                throw Refusal(.notFound, "the application \(appID) has no client policies")
            }
            return .adminJSON(
                .ok,
                try Self.settingsRecord(
                    appID: appID, json: stored.json, sha256: stored.sha256, updatedAt: stored.updatedAt))

        case .putSettings:
            let policies: ClientPolicies
            do {
                policies = try ClientPolicies(json: try await Self.body(of: request), source: "settingsExchange")
            } catch let error as ConfigurationError {
                throw Refusal(.invalidSettings, error.message, keyPath: error.keyPath)
            }
            let json = JSONWriter.compact(policies.document)
            try await documents.putSettings(appID: appID, json: json, now: now)
            let stored = try await documents.settings(appID: appID)
            note?.subject = stored.map { "sha256 \($0.sha256.prefix(12))" }
            return .adminJSON(
                .ok, try Self.settingsRecord(appID: appID, json: json, sha256: stored?.sha256, updatedAt: now))

        case .deleteSettings:
            guard try await documents.deleteSettings(appID: appID) else {
                throw Refusal(.notFound, "the application \(appID) has no client policies")
            }
            return .adminJSON(.ok, Deletion(deleted: appID))

        case .listCodes:
            var status: CodeStatus?
            if let text = request.uri.queryParameters["status"] {
                guard let parsed = CodeStatus(rawValue: String(text)) else {
                    throw Refusal(
                        .badRequest, "status must be \(CodeStatus.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                status = parsed
            }
            return .adminJSON(.ok, CodeList(codes: try await codes.list(appID: appID, status: status, now: now)))

        case .issueCodes:
            return try await issue(appID: appID, request: request, note: note, now: now)

        case .revokeCode:
            let id = try context.parameter("id", as: CodeID.self).value
            note?.subject = String(id)
            guard try await codes.revoke(id: id, appID: appID, now: now) else {
                throw Refusal(.notFound, "no active code \(id) in \(appID)")
            }
            return .adminJSON(.ok, Revocation(revoked: id))
        }
    }

    /// `POST …/codes`: the order checked, the codes issued; the only answer that holds codes.
    private func issue(appID: String, request: Request, note: AuditNote?, now: Date) async throws -> Response {
        let order = try Self.decode(CodeOrder.self, from: try await Self.body(of: request))
        let document = try AdminName(order.document, what: "document name").value
        note?.subject = document
        guard try await documents.json(appID: appID, name: document) != nil else {
            throw Refusal(.notFound, "the application \(appID) has no document \(document)")
        }
        let expires = now.addingTimeInterval(TimeInterval(order.expiresIn ?? CodeOrder.defaultLifetime))
        let uses = order.uses ?? 1
        let issued = try await codes.issue(
            count: order.count ?? 1, style: codeStyle, appID: appID, document: document, label: order.label,
            uses: uses, expires: expires, now: now)
        metrics?.codesIssued(issued.count)
        note?.subject = "\(document): ids \(issued.map { String($0.id) }.joined(separator: ","))"
        return .adminJSON(
            .created,
            IssuedCodeList(
                codes: issued.map {
                    IssuedCode(
                        id: $0.id, code: $0.code.grouped, label: order.label, document: document, uses: uses,
                        expiresAt: expires,
                        qrSVG: qrSVG?($0.code.grouped))
                }))
    }

    /// The request body, at most ``AdminJSON/maxRequestBytes``.
    static func body(of request: Request) async throws(Refusal) -> [UInt8] {
        do {
            return Array(buffer: try await request.body.collect(upTo: AdminJSON.maxRequestBytes))
        } catch {
            throw Refusal(.tooLarge, "admin requests carry at most \(AdminJSON.maxRequestBytes / 1024) KiB")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from body: [UInt8]) throws(Refusal) -> Value {
        do {
            return try AdminBodyError.decode(type, from: body)
        } catch {
            throw Refusal(.badRequest, error.message, keyPath: error.keyPath)
        }
    }

    /// `GET`/`PUT …/settings`: the client policies as stored, with their digest and time.
    static func settingsRecord(appID: String, json: String, sha256: String?, updatedAt: Date) throws -> SettingsRecord {
        SettingsRecord(
            appID: appID, updatedAt: updatedAt, sha256: sha256,
            settings: try AdminJSON.decoder().decode(JSONValue.self, from: Data(json.utf8)))
    }
}

extension Response {
    /// A JSON answer of the admin API.
    static func adminJSON(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        DiscoveryServer.json(status, AdminJSON.text(value))
    }
}
