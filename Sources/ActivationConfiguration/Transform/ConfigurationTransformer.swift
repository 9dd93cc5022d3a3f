/// A typed key into a ``TransformResult``: the name says where a value sits, the type what it is.
///
/// ```swift
/// extension InfoKey where Value == String {
///     static let tenant = InfoKey("com.example.tenant")
/// }
/// ```
public struct InfoKey<Value: Sendable>: Sendable, Hashable {
    /// Where the value sits in a ``TransformResult``; unique across transformers (use reverse-DNS names for your own).
    public let name: String
    /// A key named `name`.
    public init(_ name: String) { self.name = name }
}

/// The merged output of transformers: a flat map from typed info keys to values.
public struct TransformResult: Sendable {
    private var values: [String: any Sendable] = [:]
    /// The info-key names in the order they were first set.
    public private(set) var names: [String] = []

    /// An empty result.
    public init() {}

    /// The value under `key`, if a transformer set one; setting `nil` removes it.
    public subscript<Value>(key: InfoKey<Value>) -> Value? {
        get { values[key.name] as? Value }
        set {
            if values[key.name] == nil, newValue != nil { names.append(key.name) }
            if newValue == nil { names.removeAll { $0 == key.name } }
            values[key.name] = newValue
        }
    }

    /// Adds `other`'s values; where both set a key, `other` wins (the later transformer).
    public mutating func merge(_ other: TransformResult) {
        for name in other.names {
            if values[name] == nil { names.append(name) }
            values[name] = other.values[name]
        }
    }

    /// The untyped value under a name, for generic consumers (reports, logs).
    public func value(named name: String) -> (any Sendable)? { values[name] }
}

/// Turns the value under one document key into typed info. Register it in a
/// ``KeyedTransformer`` under that key.
public protocol ConfigurationTransformer: Sendable {
    /// - Parameters:
    ///   - value: the sub-tree under the key the transformer is registered for.
    ///   - path: where `value` sits, for error messages.
    ///   - context: the whole document and the registry, to recurse into nested objects.
    func transform(_ value: ConfigurationValue, at path: ConfigurationPath, context: TransformContext) throws
        -> TransformResult
}

/// What a transformer can see beyond its own sub-tree.
public struct TransformContext: Sendable {
    /// Names the input in errors.
    public let source: String
    /// The normalised document being transformed.
    public let document: ConfigurationDocument
    let registry: KeyedTransformer

    /// Transforms a nested object with the same registry: each of its keys that has a
    /// transformer is handed to it, recursively.
    public func transform(object value: ConfigurationValue, at path: ConfigurationPath) throws -> TransformResult {
        try registry.transform(value, at: path, context: self)
    }

    /// An error naming the source and the key path, for transformers to throw.
    public func error(_ code: ConfigurationError.Code, at path: ConfigurationPath, _ message: String)
        -> ConfigurationError
    {
        ConfigurationError(code, source: source, at: path, message)
    }
}

/// The generic transformer: walks an object's keys in order and hands each sub-tree to the
/// transformer registered under that key, merging every result into one map. Keys without a
/// transformer are ignored.
public struct KeyedTransformer: ConfigurationTransformer {
    /// Document key → the transformer for its sub-tree.
    public var transformers: [String: any ConfigurationTransformer]

    /// A transformer that hands each key of `transformers` to its transformer.
    public init(_ transformers: [String: any ConfigurationTransformer] = [:]) {
        self.transformers = transformers
    }

    /// A copy with one more transformer (replacing any under the same key).
    public func registering(_ key: String, _ transformer: any ConfigurationTransformer) -> KeyedTransformer {
        var copy = self
        copy.transformers[key] = transformer
        return copy
    }

    /// Transforms a whole document.
    public func transform(_ document: ConfigurationDocument, source: String) throws -> TransformResult {
        let context = TransformContext(source: source, document: document, registry: self)
        return try transform(document.value(), at: .root, context: context)
    }

    public func transform(_ value: ConfigurationValue, at path: ConfigurationPath, context: TransformContext) throws
        -> TransformResult
    {
        var result = TransformResult()
        guard let object = value.objectValue else { return result }
        for (key, child) in object {
            if let transformer = transformers[key] {
                result.merge(try transformer.transform(child, at: path.appending(key), context: context))
            }
        }
        return result
    }
}
