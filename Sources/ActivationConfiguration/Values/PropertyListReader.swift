import Foundation

/// Reads XML and binary property lists into ``ConfigurationValue``s, keeping booleans apart from
/// numbers (Foundation hands booleans over as `Bool`, numbers as `NSNumber`).
public enum PropertyListReader {
    /// Whether `bytes` start like a property list (binary `bplist` or XML with a plist root).
    public static func looksLikePropertyList(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: Array("bplist".utf8)) { return true }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        return head.contains("<plist") || head.contains("<!DOCTYPE plist")
    }

    /// Parses a property list.
    ///
    /// - Throws: ``ConfigurationError`` (`inputTooLarge`, `invalidPropertyList`, `tooDeep`).
    public static func parse(_ bytes: [UInt8], source: String, limits: ConfigurationLimits = .default) throws -> ConfigurationValue {
        if bytes.count > limits.maxDocumentBytes {
            throw ConfigurationError(.inputTooLarge, "\(source): \(ByteCount(bytes.count)) exceeds the \(ByteCount(limits.maxDocumentBytes)) limit for a configuration document")
        }
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw ConfigurationError(.invalidPropertyList, "\(source): not a valid property list")
        }
        return try convert(root, source: source, depth: 0, maxDepth: limits.maxDepth)
    }

    private static func convert(_ value: Any, source: String, depth: Int, maxDepth: Int) throws -> ConfigurationValue {
        if depth > maxDepth {
            throw ConfigurationError(.tooDeep, "\(source): nesting deeper than \(maxDepth) levels")
        }
        switch value {
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let text as String: return .string(text)
        case let data as Data: return .data(Array(data))
        case let date as Date: return .string(ISO8601DateFormatter().string(from: date))
        case let items as [Any]:
            return .array(try items.map { try convert($0, source: source, depth: depth + 1, maxDepth: maxDepth) })
        case let dictionary as [String: Any]:
            // Property-list dictionaries have no order; sorted keys make the result stable.
            return .object(ConfigurationObject(try dictionary.keys.sorted().map {
                ($0, try convert(dictionary[$0]!, source: source, depth: depth + 1, maxDepth: maxDepth))
            }))
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "d" || type == "f" { return .number(number.doubleValue) }
            return .integer(number.intValue)
        default:
            throw ConfigurationError(.invalidPropertyList, "\(source): unsupported property-list value \(type(of: value))")
        }
    }
}
