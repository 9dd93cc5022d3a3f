import ActivationConfiguration
import Foundation

/// A printable HTML page of activation codes, one card per code: the code image, its label, and
/// what it connects to (host, app id), who signed it (key id) and until when. Self-contained: the
/// images are embedded, so the page prints the same wherever it is opened. Every text from a
/// document is HTML-escaped.
public enum CodeSheet {
    /// One card.
    public struct Card: Sendable, Hashable {
        /// The name printed on the card, also the image's alternative text (a batch uses the code's name).
        public var label: String
        /// The code's image file (PNG or SVG), embedded into the page.
        public var imagePath: String
        /// The server the code connects to, shown as "Server".
        public var host: String
        /// The app id, shown as "App"; `nil` leaves the line out.
        public var appID: String?
        /// The id of the key that signed the code, shown as "Key"; `nil` (unsigned) leaves the line out.
        public var keyID: String?
        /// When the code expires, shown in ISO 8601; `nil` leaves the line out.
        public var expires: Date?
        /// The image itself as SVG text, used instead of reading ``imagePath`` (codes made in memory).
        public var svg: String?
        /// Text to type by hand, printed large under the image (an onboarding code); `nil` leaves it out.
        public var typedCode: String?

        /// A card from its parts; ``init(_:label:)`` makes one from a code a batch made. With `svg`,
        /// the image is that text and `imagePath` is not read.
        public init(
            label: String, imagePath: String, host: String, appID: String?, keyID: String?, expires: Date?,
            svg: String? = nil, typedCode: String? = nil
        ) {
            self.svg = svg
            self.typedCode = typedCode
            self.label = label
            self.imagePath = imagePath
            self.host = host
            self.appID = appID
            self.keyID = keyID
            self.expires = expires
        }

        /// The card of a code a batch made.
        public init(_ made: CodeBatch.Made, label: String) {
            self.init(
                label: label, imagePath: made.path, host: made.document.host, appID: made.document.appID,
                keyID: made.keyID, expires: made.expires)
        }
    }

    /// The most cards one sheet takes: about 25 MB of page, and more than anyone prints at once.
    public static let maxCards = 5_000

    /// The page. Images are read from their files (capped at 1 MiB each).
    ///
    /// - Throws: `ConfigurationError` when an image cannot be read.
    public static func html(title: String, cards: [Card]) throws -> String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(HTMLText.escaped(title))</title>
            <style>
            body { font: 11pt system-ui, sans-serif; margin: 1cm; }
            h1 { font-size: 14pt; }
            .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(6.5cm, 1fr)); gap: 0.6cm; }
            .card { border: 1px solid #999; border-radius: 4px; padding: 0.4cm; break-inside: avoid; \
            page-break-inside: avoid; }
            .card img { width: 100%; image-rendering: pixelated; }
            .code { font: bold 15pt ui-monospace, monospace; text-align: center; letter-spacing: 0.05em; \
            margin: 0.1cm 0; }
            .label { font-weight: bold; font-size: 12pt; margin: 0.2cm 0; overflow-wrap: anywhere; }
            dl { display: grid; grid-template-columns: auto 1fr; gap: 0 0.3cm; margin: 0; font-size: 9pt; }
            dt { color: #555; } dd { margin: 0; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
            @media print { body { margin: 0; } h1 { display: none; } }
            </style></head><body>
            <h1>\(HTMLText.escaped(title))</h1>
            <div class="cards">

            """
        for card in cards {
            let image = try card.svg.map { Array($0.utf8) } ?? FileIO.read(card.imagePath, limit: 1 << 20)
            let type = card.svg != nil || card.imagePath.lowercased().hasSuffix(".svg") ? "image/svg+xml" : "image/png"
            var details = [("Server", card.host)]
            if let appID = card.appID { details.append(("App", appID)) }
            if let keyID = card.keyID { details.append(("Key", keyID)) }
            if let expires = card.expires { details.append(("Expires", expires.formatted(.iso8601))) }
            let label = HTMLText.escaped(card.label)
            let typedCode = card.typedCode.map { "<div class=\"code\">\(HTMLText.escaped($0))</div>" } ?? ""
            let definitions = details.map { "<dt>\($0.0)</dt><dd>\(HTMLText.escaped($0.1))</dd>" }.joined()
            page += """
                <div class="card"><img alt="activation code \(label)" src="data:\(type);base64,\(Base64.encode(image))">
                \(typedCode)<div class="label">\(label)</div><dl>\(definitions)</dl></div>

                """
        }
        return page + "</div></body></html>\n"
    }
}
