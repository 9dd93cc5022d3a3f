import ActivationDiscoveryProtocol
import HTTPTypes
import Hummingbird

/// An answer that stops a call: thrown by handlers and path parameters, sent as the protocol's
/// error body with the status its code has (the router turns it into the response), and audited
/// as its code when the call is an admin call.
struct Refusal: HTTPResponseError {
    var code: DiscoveryErrorCode
    var message: String
    var keyPath: String?
    /// `Allow` of a 405.
    var allow: String?

    init(_ code: DiscoveryErrorCode, _ message: String, keyPath: String? = nil, allow: String? = nil) {
        (self.code, self.message, self.keyPath, self.allow) = (code, message, keyPath, allow)
    }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: code.httpStatus) }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }

    var response: Response {
        var response = DiscoveryServer.error(code, message, keyPath: keyPath)
        if let allow { response.headers[.allow] = allow }
        return response
    }
}
