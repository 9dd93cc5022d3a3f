import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation

/// The admin API of `discovery-service.md` ("Admin API"): JSON over `/admin/v1`, opened by a bearer
/// token, every call audited. What it works on; its routes are in `AdminRoutes.swift`, its handlers
/// in `AdminHandlers.swift`, the token check and the audit in `AdminMiddleware.swift`.
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
    /// Counts the codes issued (set by the server).
    package var metrics: ServiceMetrics?

    package init(
        tokens: AdminTokens, documents: DocumentStore, codes: CodeStore, audit: AuditLog, recognizer: PayloadRecognizer,
        codeStyle: OnboardingCode.Style = .standard, qrSVG: (@Sendable (String) -> String?)? = nil
    ) {
        self.tokens = tokens
        self.documents = documents
        self.codes = codes
        self.audit = audit
        self.recognizer = recognizer
        self.codeStyle = codeStyle
        self.qrSVG = qrSVG
    }

    // MARK: - Checking

    /// `since` of the audit listing: an RFC 3339 time, as the OpenAPI document's `date-time`.
    static func parseDate(_ text: String) throws(Refusal) -> Date {
        guard let date = InternetDateTime.date(text) else {
            throw Refusal(.badRequest, "since: expected an RFC 3339 time such as 2026-01-01T00:00:00Z")
        }
        return date
    }

    /// Host, sign-in and what an administrator should know before serving the document.
    func summary(of json: [UInt8], name: String) -> DocumentSummary {
        guard let document = try? recognizer.recognize(bytes: json, source: name).document else {
            return DocumentSummary(warnings: ["the stored document no longer passes this server's policy"])
        }
        var summary = DocumentSummary(
            host: document.host, baseURL: document.baseURL, auth: document.auth.map(\.method.typeName))
        for item in document.auth {
            switch item.method {
            case .unknown(let type): summary.warnings.append("the auth type \"\(type)\" is unknown and will be ignored")
            case .oauth2(let settings) where settings.clients.contains(where: { $0.passcode != nil }):
                summary.warnings.append(
                    "an OAuth client carries a passcode: everyone who looks this document up receives it")
            default: break
            }
        }
        if !document.baseURL.hasPrefix("https:") { summary.warnings.append("the server is not reached over https") }
        return summary
    }
}
