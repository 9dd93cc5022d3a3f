import ActivationDiscoveryProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The console at `/admin/`: one page, its script and its style (`Resources/Console`, compiled
/// into the binary: no build step, no CDN, no files to install). It signs in with an admin token
/// kept in `sessionStorage` and sent as a header (no cookie, so no cross-site request can act with
/// it), and speaks the admin API like any client. Every value from the service is put into the
/// page as text (`textContent`), never as markup; the Content-Security-Policy allows scripts and
/// styles from this origin only, images from here and `data:` (the QR codes), and requests to this
/// origin only.
enum AdminConsole {
    /// The policy every console file is sent with.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The file `name` below `/admin/` (`""` is the page), or 404.
    static func response(for name: String) -> Response {
        let file: (type: String, bytes: [UInt8])
        switch name {
        case "", "index.html": file = ("text/html; charset=utf-8", PackageResources.index_html)
        case "console.js": file = ("text/javascript; charset=utf-8", PackageResources.console_js)
        case "console.css": file = ("text/css; charset=utf-8", PackageResources.console_css)
        default: return DiscoveryServer.error(.notFound, "no such console file")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.type,
                .contentSecurityPolicy: contentSecurityPolicy,
                .xContentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer",
                .xFrameOptions: "DENY",
                .cacheControl: "no-store",
            ], body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
}
