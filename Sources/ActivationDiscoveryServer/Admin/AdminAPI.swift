import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation

/// The admin API of `discovery-service.md` ("Admin API"): JSON over `/admin/v1`, opened by a bearer
/// token, every call audited. Independent of HTTP plumbing: the server hands it the method, the
/// path segments after `/admin/v1/`, the query, the `Authorization` header and the body, and sends
/// what it answers.
package struct AdminAPI: Sendable {
    package let tokens: AdminTokens
    package let documents: DocumentStore
    package let codes: CodeStore
    package let audit: AuditLog
    /// Judges documents as `activate inspect` does.
    package let recognizer: PayloadRecognizer
    /// The kind of code issued (`--digits 8`: eight digits).
    package let codeStyle: OnboardingCode.Style
    /// Draws a code's QR as SVG for the answer (the console shows it); nil: no pictures.
    package let qrSVG: (@Sendable (String) -> String?)?
    /// Counts wrong tokens against the client's budget of guesses (set by the server).
    package var guessing: GuessingLimits?
    /// Counts the codes issued (set by the server).
    package var metrics: ServiceMetrics?
    /// Runs after each call that changed something, before it is answered: the serving instance
    /// reloads what it serves, so that a change is served here as soon as it is acknowledged
    /// (other instances see it at their next poll).
    package var afterChange: (@Sendable () async -> Void)?

    package init(tokens: AdminTokens, documents: DocumentStore, codes: CodeStore, audit: AuditLog, recognizer: PayloadRecognizer,
                 codeStyle: OnboardingCode.Style = .standard, qrSVG: (@Sendable (String) -> String?)? = nil) {
        self.tokens = tokens
        self.documents = documents
        self.codes = codes
        self.audit = audit
        self.recognizer = recognizer
        self.codeStyle = codeStyle
        self.qrSVG = qrSVG
    }

    /// The most bytes of a request body.
    package static let maxBodyBytes = 64 << 10
    /// The most codes one request issues.
    package static let maxCodesPerRequest = 1000
    /// The longest a code may live: a year and a day.
    package static let maxLifetime = 366 * 86_400
    /// How long codes live when the request does not say: 7 days.
    package static let defaultLifetime = 7 * 86_400

    /// An answer: status, JSON body, and the route template the request log names.
    package struct Answer: Sendable {
        package var status: Int
        package var json: String
        package var template: String
        /// Seconds for `Retry-After` (429 only).
        package var retryAfter: Int? = nil
    }

    /// An answer that stops the call, with the `error.code` and message sent and audited.
    struct Refusal: Error {
        var status: Int, code: DiscoveryErrorCode, message: String
        var keyPath: String? = nil
    }

    /// What one call asked, for the audit.
    private struct Call {
        var template = "/admin/v1/…"
        var action = "unknown"
        var appID: String?
        var subject: String?
    }

    /// Answers one call. The token is checked before anything else is looked at: a caller that
    /// presents no valid token learns nothing, not even which paths exist.
    package func respond(method: String, segments: [String], query: [String: String], authorization: String?,
                         body: [UInt8], client: String, now: Date = Date()) async -> Answer {
        guard let actor = tokens.actor(authorization: authorization) else {
            // A wrong token is a guess like a wrong code: it takes from the client's budget.
            if let retryAfter = try? await guessing?.admit(client: client, appID: nil, now: now) {
                return Answer(status: 429, json: Self.errorJSON(.rateLimited, "too many failed attempts; retry in \(retryAfter) s"),
                              template: "/admin/v1/…", retryAfter: retryAfter)
            }
            try? await audit.record(AuditLog.Entry(at: now, actor: "unauthenticated", action: "sign-in", outcome: "unauthorized"))
            return Answer(status: 401, json: Self.errorJSON(.unauthorized, "a valid bearer token is needed (Authorization: Bearer <token>)"),
                          template: "/admin/v1/…")
        }
        var call = Call()
        let answer: Answer, outcome: String
        do {
            let (status, json) = try await route(method: method, segments: segments, query: query, body: body, now: now, call: &call)
            if method != "GET" { await afterChange?() }
            (answer, outcome) = (Answer(status: status, json: json, template: call.template), "ok")
        } catch let refusal as Refusal {
            answer = Answer(status: refusal.status, json: Self.errorJSON(refusal.code, refusal.message, keyPath: refusal.keyPath), template: call.template)
            outcome = refusal.code.rawValue
        } catch {
            answer = Answer(status: 503, json: Self.errorJSON(.unavailable, "the database could not complete the request; try again shortly"),
                            template: call.template, retryAfter: DatabaseWait.retryAfterSeconds)
            outcome = "unavailable"
        }
        try? await audit.record(AuditLog.Entry(at: now, actor: actor, action: call.action, appID: call.appID, subject: call.subject, outcome: outcome))
        return answer
    }

    private func route(method: String, segments: [String], query: [String: String], body: [UInt8], now: Date,
                       call: inout Call) async throws -> (Int, String) {
        func expect(_ allowed: String...) throws {
            guard allowed.contains(method) else { throw Refusal(status: 405, code: .methodNotAllowed, message: "use \(allowed.joined(separator: " or "))") }
        }
        switch segments {
        case ["applications"]:
            call.template = "/admin/v1/applications"
            call.action = "applications.list"
            try expect("GET")
            return (200, Self.encode(["applications": try await documents.applications(now: now)]))

        case ["audit"]:
            call.template = "/admin/v1/audit"
            call.action = "audit.list"
            try expect("GET")
            let since = try query["since"].map(Self.parseDate) ?? now.addingTimeInterval(-86_400)
            return (200, Self.encode(["entries": try await audit.entries(since: since)]))

        case let path where path.count >= 3 && path[0] == "applications":
            let appID = try Self.checkName(path[1], what: "application id")
            call.appID = appID
            return try await application(appID, method: method, rest: Array(path[2...]), query: query, body: body, now: now, call: &call, expect: expect)

        default:
            throw Refusal(status: 404, code: .notFound, message: "no such admin resource")
        }
    }

    private func application(_ appID: String, method: String, rest: [String], query: [String: String], body: [UInt8], now: Date,
                             call: inout Call, expect: (String...) throws -> Void) async throws -> (Int, String) {
        switch rest {
        case ["documents"]:
            call.template = "/admin/v1/applications/{appID}/documents"
            call.action = "documents.list"
            try expect("GET")
            let listed = try await documents.documents(appID: appID).map { stored in
                DocumentListing(name: stored.name, sha256: stored.sha256, updatedAt: stored.updatedAt,
                                summary: summary(of: Array(stored.json.utf8), name: stored.name, appID: appID))
            }
            return (200, Self.encode(["documents": listed]))

        case let path where path.count == 2 && path[0] == "documents":
            call.template = "/admin/v1/applications/{appID}/documents/{name}"
            call.action = "documents.put"
            try expect("PUT")
            let name = try Self.checkName(path[1], what: "document name")
            call.subject = name
            let document: ConfigurationDocument
            do {
                guard let parsed = try recognizer.recognize(bytes: body, source: name).document else {
                    throw Refusal(status: 400, code: .invalidDocument, message: "\(name): not an onboarding configuration")
                }
                document = parsed
            } catch let error as ConfigurationError {
                throw Refusal(status: 400, code: .invalidDocument, message: error.reason, keyPath: error.keyPath)
            }
            let json = document.canonicalJSON(includeSecrets: true)
            try await documents.put(appID: appID, name: name, json: json, now: now)
            return (200, Self.encode(DocumentListing(name: name, sha256: nil, updatedAt: now, summary: summary(of: Array(json.utf8), name: name, appID: appID))))

        case ["domains"]:
            call.template = "/admin/v1/applications/{appID}/domains"
            call.action = "domains.list"
            try expect("GET")
            let domains = try await documents.domains(appID: appID).map { ["domain": $0.domain, "document": $0.document] }
            return (200, Self.encode(["domains": domains]))

        case let path where path.count == 2 && path[0] == "domains":
            call.template = "/admin/v1/applications/{appID}/domains/{domain}"
            try expect("PUT", "DELETE")
            let domain = try Self.checkDomain(path[1])
            call.subject = domain
            if method == "DELETE" {
                call.action = "domains.delete"
                guard try await documents.deleteDomain(appID: appID, domain: domain) else {
                    throw Refusal(status: 404, code: .notFound, message: "the domain \(domain) is not mapped")
                }
                return (200, Self.encode(["deleted": domain]))
            }
            call.action = "domains.put"
            let request = try Self.object(body)
            guard let document = request["document"]?.stringValue else {
                throw Refusal(status: 400, code: .badRequest, message: "expected {\"document\": \"<name>\"}", keyPath: "document")
            }
            guard try await documents.putDomain(appID: appID, domain: domain, document: document) else {
                throw Refusal(status: 404, code: .notFound, message: "the application \(appID) has no document \(document)")
            }
            return (200, Self.encode(["domain": domain, "document": document]))

        case ["settings"]:
            call.template = "/admin/v1/applications/{appID}/settings"
            try expect("GET", "PUT", "DELETE")
            switch method {
            case "GET":
                call.action = "settings.get"
                guard let stored = try await documents.settings(appID: appID) else {
                    throw Refusal(status: 404, code: .notFound, message: "the application \(appID) has no client policies")
                }
                return (200, try Self.settingsAnswer(appID: appID, json: stored.json, sha256: stored.sha256, updatedAt: stored.updatedAt))
            case "DELETE":
                call.action = "settings.delete"
                guard try await documents.deleteSettings(appID: appID) else {
                    throw Refusal(status: 404, code: .notFound, message: "the application \(appID) has no client policies")
                }
                return (200, Self.encode(["deleted": appID]))
            default:
                call.action = "settings.put"
                let policies: ClientPolicies
                do {
                    policies = try ClientPolicies(json: body, source: "settingsExchange")
                } catch let error as ConfigurationError {
                    throw Refusal(status: 400, code: .invalidSettings, message: error.message, keyPath: error.keyPath)
                }
                let json = JSONWriter.compact(policies.document)
                try await documents.putSettings(appID: appID, json: json, now: now)
                let stored = try await documents.settings(appID: appID)
                call.subject = stored.map { "sha256 \($0.sha256.prefix(12))" }
                return (200, try Self.settingsAnswer(appID: appID, json: json, sha256: stored?.sha256, updatedAt: now))
            }

        case ["codes"]:
            call.template = "/admin/v1/applications/{appID}/codes"
            try expect("GET", "POST")
            if method == "GET" {
                call.action = "codes.list"
                var status: CodeStore.Status?
                if let text = query["status"] {
                    guard let parsed = CodeStore.Status(rawValue: text) else {
                        throw Refusal(status: 400, code: .badRequest, message: "status must be active, used, expired or revoked")
                    }
                    status = parsed
                }
                return (200, Self.encode(["codes": try await codes.list(appID: appID, status: status, now: now)]))
            }
            call.action = "codes.issue"
            let order = try IssueOrder(Self.object(body))
            call.subject = order.document
            guard try await documents.json(appID: appID, name: order.document) != nil else {
                throw Refusal(status: 404, code: .notFound, message: "the application \(appID) has no document \(order.document)")
            }
            let expires = now.addingTimeInterval(TimeInterval(order.expiresIn))
            let issued = try await codes.issue(count: order.count, style: codeStyle, appID: appID, document: order.document, label: order.label,
                                               uses: order.uses, expires: expires, now: now)
            metrics?.codesIssued(issued.count)
            call.subject = "\(order.document): ids \(issued.map { String($0.id) }.joined(separator: ","))"
            let answer = issued.map { IssuedCode(id: $0.id, code: $0.code.grouped, label: order.label, document: order.document,
                                                 uses: order.uses, expiresAt: expires, qrSVG: qrSVG?($0.code.grouped)) }
            return (201, Self.encode(["codes": answer]))

        case let path where path.count == 2 && path[0] == "codes":
            call.template = "/admin/v1/applications/{appID}/codes/{id}"
            call.action = "codes.revoke"
            try expect("DELETE")
            guard let id = Int64(path[1]), id > 0 else { throw Refusal(status: 400, code: .badRequest, message: "a code id is a positive number") }
            call.subject = String(id)
            guard try await codes.revoke(id: id, appID: appID, now: now) else {
                throw Refusal(status: 404, code: .notFound, message: "no active code \(id) in \(appID)")
            }
            return (200, Self.encode(["revoked": id]))

        default:
            throw Refusal(status: 404, code: .notFound, message: "no such admin resource")
        }
    }

    /// `POST …/codes`: what to issue, checked.
    struct IssueOrder {
        var document: String
        var expiresIn = AdminAPI.defaultLifetime
        var uses = 1
        var label: String?
        var count = 1

        init(_ request: ConfigurationObject) throws {
            func integer(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
                guard let value = request[key] else { return nil }
                guard case .integer(let number) = value, range.contains(number) else {
                    throw Refusal(status: 400, code: .badRequest, message: "expected a whole number \(range.lowerBound)-\(range.upperBound)", keyPath: key)
                }
                return number
            }
            guard let document = request["document"]?.stringValue else {
                throw Refusal(status: 400, code: .badRequest, message: "expected the name of a document", keyPath: "document")
            }
            self.document = try AdminAPI.checkName(document, what: "document name")
            expiresIn = try integer("expiresIn", 60...AdminAPI.maxLifetime) ?? expiresIn
            uses = try integer("uses", 1...1_000_000) ?? uses
            count = try integer("count", 1...AdminAPI.maxCodesPerRequest) ?? count
            if let value = request["label"] {
                guard let label = value.stringValue, label.count <= 200, !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw Refusal(status: 400, code: .badRequest, message: "a label is text of at most 200 characters without control characters", keyPath: "label")
                }
                self.label = label.isEmpty ? nil : label
            }
            let known: Set = ["document", "expiresIn", "uses", "label", "count"]
            if let unknown = request.keys.first(where: { !known.contains($0) }) {
                throw Refusal(status: 400, code: .badRequest, message: "unknown key; expected document, expiresIn, uses, label, count", keyPath: unknown)
            }
        }
    }

    /// One code just issued: the only time its plain text leaves the server.
    struct IssuedCode: Encodable {
        var id: Int64
        var code: String
        var label: String?
        var document: String
        var uses: Int
        var expiresAt: Date
        var qrSVG: String?
    }

    /// `GET`/`PUT …/settings`: the client policies as stored, with their digest and time.
    static func settingsAnswer(appID: String, json: String, sha256: String?, updatedAt: Date) throws -> String {
        var answer: ConfigurationObject = [
            "appID": .string(appID), "updatedAt": .string(updatedAt.formatted(.iso8601)),
            "settings": try JSONReader(maxBytes: ClientPolicies.maxDocumentBytes).parse(Array(json.utf8), source: "settings"),
        ]
        if let sha256 { answer["sha256"] = .string(sha256) }
        return JSONWriter.compact(.object(answer))
    }

    /// A stored document as listed: what `activate inspect` would say about it.
    struct DocumentListing: Encodable {
        var name: String
        var sha256: String?
        var updatedAt: Date
        var summary: DocumentSummary
    }

    /// Host, sign-in and what an administrator should know before serving the document.
    struct DocumentSummary: Encodable {
        var host: String?
        var baseURL: String?
        var auth: [String] = []
        var warnings: [String] = []
    }

    private func summary(of json: [UInt8], name: String, appID: String) -> DocumentSummary {
        guard let document = try? recognizer.recognize(bytes: json, source: name).document else {
            return DocumentSummary(warnings: ["the stored document no longer passes this server's policy"])
        }
        var summary = DocumentSummary(host: document.host, baseURL: document.baseURL, auth: document.auth.map(\.method.typeName))
        for item in document.auth {
            switch item.method {
            case .unknown(let type): summary.warnings.append("the auth type \"\(type)\" is unknown and will be ignored")
            case .oauth2(let settings) where settings.clients.contains(where: { $0.passcode != nil }):
                summary.warnings.append("an OAuth client carries a passcode: everyone who looks this document up receives it")
            default: break
            }
        }
        if !document.baseURL.hasPrefix("https:") { summary.warnings.append("the server is not reached over https") }
        return summary
    }

    // MARK: - Checking and encoding

    /// An application id or document name: 1-200 of `A-Z a-z 0-9 . _ -`, not starting with `.`.
    static func checkName(_ text: String, what: String) throws -> String {
        guard (1...200).contains(text.utf8.count), !text.hasPrefix("."),
              text.utf8.allSatisfy({ $0 < 0x80 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || "._-".utf8.contains($0)) }) else {
            throw Refusal(status: 400, code: .badRequest, message: "a \(what) is 1-200 of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.'")
        }
        return text
    }

    /// An e-mail domain: a lower-cased DNS name of letters, digits, `-` and dots.
    static func checkDomain(_ text: String) throws -> String {
        let domain = text.lowercased()
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.utf8.count <= 253, labels.count >= 2,
              labels.allSatisfy({ (1...63).contains($0.utf8.count) && !$0.hasPrefix("-") && !$0.hasSuffix("-")
                                  && $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } }) else {
            throw Refusal(status: 400, code: .badRequest, message: "not a domain name such as example.com (use the punycode form of international names)")
        }
        return domain
    }

    static func parseDate(_ text: String) throws -> Date {
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw Refusal(status: 400, code: .badRequest, message: "since: expected an ISO 8601 time such as 2026-01-01T00:00:00Z")
        }
        return date
    }

    /// The body as a JSON object (the reader's depth and size limits hold).
    static func object(_ body: [UInt8]) throws -> ConfigurationObject {
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: maxBodyBytes).parse(body, source: "body")
        } catch let error as ConfigurationError {
            throw Refusal(status: 400, code: .badRequest, message: error.reason)
        }
        guard let object = value.objectValue else { throw Refusal(status: 400, code: .badRequest, message: "expected a JSON object") }
        return object
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    /// `{"error": {"code": …, "message": …, "keyPath": …}}`, the shape of every error of the service.
    static func errorJSON(_ code: DiscoveryErrorCode, _ message: String, keyPath: String? = nil) -> String {
        DiscoveryErrorBody(code, message, keyPath: keyPath).json
    }
}
