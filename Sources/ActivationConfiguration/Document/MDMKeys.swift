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
    ///
    /// Linear in the number of keys and their length: each key walks a tree of folders once.
    /// A key that is both a value and a folder (`auth` and `auth/type`), an empty level
    /// (`auth//type`, `auth/`) or a path deeper than `limits.maxDepth` is refused; a key without
    /// `/` is a value of the top level, as it is.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidValue`, `tooDeep`) naming the key.
    public static func inflate(
        _ flat: ConfigurationObject, source: String = "MDM keys", limits: ConfigurationLimits = .default
    ) throws -> ConfigurationObject {
        let root = Folder()
        for (key, value) in flat {
            // A key without `/` is one level, whatever it is (the empty key too).
            let parts = key.contains("/") ? key.split(separator: "/", omittingEmptySubsequences: false) : [key[...]]
            // Each level is an object; an array key adds the one-element array around it.
            let depth = parts.count + parts.dropLast().filter { arrayKeys.contains(String($0)) }.count
            if depth > limits.maxDepth {
                throw ConfigurationError.tooDeep("\(source): \(shown(key))", limit: limits.maxDepth)
            }
            if parts.count > 1, parts.contains(where: \.isEmpty) {
                throw ConfigurationError(
                    .invalidValue, source: source, keyPath: shown(key), "a flattened key has an empty level")
            }
            var folder = root
            for part in parts.dropLast() {
                let name = String(part)
                switch folder.entries[name] {
                case .folder(let inner)?:
                    folder = inner
                case .value?:
                    throw ConfigurationError(
                        .invalidValue, source: source, keyPath: shown(key),
                        "\"\(shown(name))\" is both a value and a level of flattened keys")
                case nil:
                    let inner = Folder()
                    folder.add(name, .folder(inner))
                    folder = inner
                }
            }
            let name = String(parts[parts.count - 1])
            guard folder.entries[name] == nil else {
                throw ConfigurationError(
                    .invalidValue, source: source, keyPath: shown(key),
                    "\"\(shown(name))\" is both a value and a level of flattened keys")
            }
            folder.add(name, .value(value))
        }
        return root.object()
    }

    /// Keys are quoted in errors, shortened.
    private static func shown(_ key: String) -> String { InputText.quoted(key, limit: 80) }

    /// A level of the inflated tree, filled in place (a value type would be copied at every key).
    private final class Folder {
        enum Entry {
            case value(ConfigurationValue)
            case folder(Folder)
        }
        /// By name, for the walk; in insertion order, for the result.
        var entries: [String: Entry] = [:]
        var ordered: [(String, Entry)] = []

        func add(_ name: String, _ entry: Entry) {
            entries[name] = entry
            ordered.append((name, entry))
        }

        /// The nested object; depth is bounded by the limit checked on insertion.
        func object() -> ConfigurationObject {
            ConfigurationObject(
                ordered.map { name, entry -> (String, ConfigurationValue) in
                    switch entry {
                    case .value(let value): (name, value)
                    case .folder(let folder):
                        (name, arrayKeys.contains(name) ? .array([.object(folder.object())]) : .object(folder.object()))
                    }
                })
        }
    }

    /// Flattens a document into MDM keys (the inverse of ``inflate(_:source:limits:)`` for one-element arrays).
    public static func flatten(_ object: ConfigurationObject) -> ConfigurationObject {
        var result = ConfigurationObject()
        func walk(_ value: ConfigurationValue, _ prefix: String) {
            switch value {
            case .object(let inner):
                for (key, child) in inner { walk(child, prefix.isEmpty ? key : "\(prefix)/\(key)") }
            case .array(let items)
            where items.count == 1 && arrayKeys.contains(String(prefix.split(separator: "/").last ?? "")):
                walk(items[0], prefix)
            default:
                result[prefix] = value
            }
        }
        walk(.object(object), "")
        return result
    }
}
