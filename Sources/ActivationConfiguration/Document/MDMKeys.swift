/// The flattened key form MDM consoles use, which cannot express nesting: each path is one key,
/// levels joined by `/`, and each array level (`auth`, `oauth2.clients`) holds one element:
///
/// ```
/// host = mobile.example.com
/// auth/type = oauth2
/// auth/config/oauth2.clients/clientID = 3f2c…
/// ```
public enum MDMKeys {
    /// The keys whose values are arrays in the document; their flattened level is one element.
    public static let arrayKeys: Set<String> = ["auth", "oauth2.clients"]

    /// Inflates flattened keys back into a nested document; keys without `/` are kept as they are.
    public static func inflate(_ flat: ConfigurationObject) -> ConfigurationObject {
        var result = ConfigurationObject()
        for (key, value) in flat {
            let parts = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            result = insert(value, at: parts[...], into: result)
        }
        return result
    }

    /// Flattens a document into MDM keys (the inverse of ``inflate(_:)`` for one-element arrays).
    public static func flatten(_ object: ConfigurationObject) -> ConfigurationObject {
        var result = ConfigurationObject()
        func walk(_ value: ConfigurationValue, _ prefix: String) {
            switch value {
            case .object(let inner):
                for (key, child) in inner { walk(child, prefix.isEmpty ? key : "\(prefix)/\(key)") }
            case .array(let items) where items.count == 1 && arrayKeys.contains(String(prefix.split(separator: "/").last ?? "")):
                walk(items[0], prefix)
            default:
                result[prefix] = value
            }
        }
        walk(.object(object), "")
        return result
    }

    private static func insert(_ value: ConfigurationValue, at path: ArraySlice<String>, into object: ConfigurationObject) -> ConfigurationObject {
        guard let key = path.first else { return object }
        var object = object
        if path.count == 1 {
            object[key] = value
            return object
        }
        let rest = path.dropFirst()
        if arrayKeys.contains(key) {
            let element = object[key]?.arrayValue?.first?.objectValue ?? ConfigurationObject()
            object[key] = .array([.object(insert(value, at: rest, into: element))])
        } else {
            let inner = object[key]?.objectValue ?? ConfigurationObject()
            object[key] = .object(insert(value, at: rest, into: inner))
        }
        return object
    }
}
