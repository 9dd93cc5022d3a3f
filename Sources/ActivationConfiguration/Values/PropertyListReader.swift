import FileAccess

/// Reads XML and binary property lists into ``ConfigurationValue``s with two strict readers of
/// this package (not Foundation's): booleans stay apart from numbers, dictionaries keep the order
/// of the file, a dictionary key may appear once, and a hostile file is refused within the
/// ``ConfigurationLimits`` (size, depth, number of values) instead of crashing or hanging.
///
/// Dates become ISO 8601 text in UTC (`2024-01-01T00:00:00Z`); data becomes ``ConfigurationValue/data(_:)``.
/// XML entity declarations, sets and keyed-archiver UIDs are refused.
public enum PropertyListReader {
    /// Whether `bytes` start like a property list (binary `bplist` or XML with a plist root).
    public static func looksLikePropertyList(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: Array("bplist".utf8)) { return true }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        return head.contains("<plist") || head.contains("<!DOCTYPE plist")
    }

    /// Parses a property list: binary when it starts with `bplist`, XML (UTF-8) otherwise.
    ///
    /// - Throws: ``ConfigurationError`` (`inputTooLarge`, `invalidPropertyList`, `invalidUTF8`,
    ///   `tooDeep`, `tooManyItems`). Reasons name `source` and, for XML, the line and column.
    public static func parse(_ bytes: [UInt8], source: String, limits: ConfigurationLimits = .default) throws
        -> ConfigurationValue
    {
        if bytes.count > limits.maxDocumentBytes {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                """
                \(ByteCount(bytes.count)) exceeds the \(ByteCount(limits.maxDocumentBytes)) limit \
                for a configuration document
                """
            )
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            return try BinaryPropertyListReader.parse(bytes, source: source, limits: limits)
        }
        return try XMLPropertyListReader.parse(bytes, source: source, limits: limits)
    }
}
