import Foundation

/// The body of `POST …/{appID}/codes`: what to issue. Decoding checks it as the service does: a
/// value out of range, of the wrong type or under an unknown key is refused with its key.
public struct CodeOrder: Codable, Sendable, Hashable {
    /// The name of the document the codes look up.
    public var document: String
    /// Seconds until the codes stop working (``lifetimes``); ``defaultLifetime`` when nil.
    public var expiresIn: Int?
    /// How many times each code may be used (``usesRange``); once when nil.
    public var uses: Int?
    /// A label shown in listings and on the sheet: at most 200 characters, no control characters.
    public var label: String?
    /// How many codes (``counts``); one when nil.
    public var count: Int?

    /// The lifetimes a code may have: a minute to a year and a day.
    public static let lifetimes = 60...(366 * 86_400)
    /// How long codes live when the order does not say: 7 days.
    public static let defaultLifetime = 7 * 86_400
    /// How many uses a code may have.
    public static let usesRange = 1...1_000_000
    /// How many codes one order may issue.
    public static let counts = 1...1000
    /// The longest label, in characters.
    public static let maxLabelLength = 200

    /// An order.
    public init(document: String, expiresIn: Int? = nil, uses: Int? = nil, label: String? = nil, count: Int? = nil) {
        (self.document, self.expiresIn, self.uses, self.label, self.count) = (document, expiresIn, uses, label, count)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case document, expiresIn, uses, label, count }

    /// Reads and checks an order.
    public init(from decoder: any Decoder) throws {
        let any = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = any.allKeys.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [unknown],
                    debugDescription: "unknown key; expected document, expiresIn, uses, label, count"))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func number(_ key: CodingKeys, _ range: ClosedRange<Int>) throws -> Int? {
            guard container.contains(key) else { return nil }
            guard let value = try? container.decode(Int.self, forKey: key), range.contains(value) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "expected a whole number \(range.lowerBound)-\(range.upperBound)")
            }
            return value
        }
        guard let document = try? container.decode(String.self, forKey: .document) else {
            throw DecodingError.dataCorruptedError(
                forKey: .document, in: container, debugDescription: "expected the name of a document")
        }
        self.document = document
        expiresIn = try number(.expiresIn, Self.lifetimes)
        uses = try number(.uses, Self.usesRange)
        count = try number(.count, Self.counts)
        if container.contains(.label) {
            guard let label = try? container.decode(String.self, forKey: .label), label.count <= Self.maxLabelLength,
                !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .label, in: container,
                    debugDescription:
                        "a label is text of at most \(Self.maxLabelLength) characters without control characters")
            }
            self.label = label.isEmpty ? nil : label
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A request body the admin API refuses: why, and the key path of the value at fault.
public struct AdminBodyError: Error, Sendable, Hashable {
    /// For people.
    public var message: String
    /// Dotted, e.g. `label`; nil when the body as a whole is at fault.
    public var keyPath: String?

    /// Decodes `bytes` as `type` with ``AdminJSON/decoder()``, turning Foundation's errors into a
    /// message and key path.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: some Collection<UInt8>)
        throws(AdminBodyError) -> Value
    {
        guard bytes.count <= AdminJSON.maxRequestBytes else {
            throw AdminBodyError(message: "a body holds at most \(AdminJSON.maxRequestBytes / 1024) KiB")
        }
        do {
            return try AdminJSON.decoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw AdminBodyError(error)
        } catch {
            throw AdminBodyError(message: "expected a JSON object")
        }
    }

    init(message: String, keyPath: String? = nil) {
        self.message = message
        self.keyPath = keyPath
    }

    init(_ error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String? {
            keys.isEmpty ? nil : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(message: "not JSON")
        case .dataCorrupted(let context):
            self.init(message: context.debugDescription, keyPath: path(context.codingPath))
        case .keyNotFound(let key, let context):
            self.init(message: "missing", keyPath: path(context.codingPath + [key]))
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            self.init(
                message: context.codingPath.isEmpty
                    ? "expected a JSON object" : "expected \(type == String.self ? "text" : "a \(type)")",
                keyPath: path(context.codingPath))
        @unknown default:
            self.init(message: "not the expected JSON")
        }
    }
}
