import ActivationConfiguration

/// The listener's pages: static, self-contained, with any server text escaped.
enum SignInPage: Sendable, Hashable {
    case signedIn
    case failed(String)
    case wrongState
    case over
    case notFound

    var html: String {
        let (title, text): (String, String) =
            switch self {
            case .signedIn: ("Signed in", "You are signed in. You can close this tab and go back to the terminal.")
            case .failed(let reason): ("Sign-in failed", reason)
            case .wrongState:
                (
                    "Not the current sign-in",
                    """
                    This address does not belong to the sign-in that is waiting (an old tab, or not from this \
                    device). The sign-in goes on: finish it in the tab it opened.
                    """
                )
            case .over: ("Sign-in over", "This sign-in is already over. You can close this tab.")
            case .notFound: ("Not found", "Nothing here.")
            }
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>\(HTMLText.escaped(title))</title>\
            <style>body{font-family:sans-serif;margin:3em}</style></head>\
            <body><h1>\(HTMLText.escaped(title))</h1><p>\(HTMLText.escaped(text))</p></body></html>

            """
    }
}
