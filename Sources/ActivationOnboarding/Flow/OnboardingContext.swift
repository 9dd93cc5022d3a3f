import ActivationConfiguration
import ActivationSecureStore
import Foundation
import Logging

/// What the steps of one flow share: typed values, the secure store once it is open (or the
/// contents waiting for it during onboarding), the client policies in force, and the presenter
/// through which a step talks to the user.
///
/// A flow hands the context from step to step; each step reads what the steps before it added
/// and adds its own. A new flow starts from a new context: everything a step needs after a
/// restart comes back from the store.
public struct OnboardingContext: Sendable {
    /// Where the secure store lies.
    public var location: SecureStoreLocation
    /// Who answers the questions steps ask, and sees what they tell.
    public var presenter: any OnboardingPresenter
    /// Values steps pass on to later steps, under typed keys (`InfoKey`): the transformer's
    /// typed configuration among them.
    public var info = TransformResult()
    /// The store, once a step has created or opened it.
    public var store: SecureStore?
    /// During onboarding, before the store exists: what it will hold when it is created. Steps
    /// change it through ``updateContents(_:)``; the store's step creates the store with it.
    public var pendingContents = SecureStoreContents()
    /// What the steps log through; its level follows the client policies' log settings where the
    /// flow has a ``LogSettingsApplyStep``.
    public var logger = Logger(label: "com.sap.activate.onboarding")
    /// The clock's reading that steps take as now (tests set it).
    public var now: @Sendable () -> Date = { Date() }

    /// A context for the store at `location`, talking to the user through `presenter`.
    public init(location: SecureStoreLocation = SecureStoreLocation(), presenter: any OnboardingPresenter) {
        self.location = location
        self.presenter = presenter
    }

    /// The value a step set under `key`.
    public subscript<Value>(key: InfoKey<Value>) -> Value? {
        get { info[key] }
        set { info[key] = newValue }
    }

    /// What the store holds: the open store's contents, or those waiting for it.
    public var contents: SecureStoreContents { store?.contents ?? pendingContents }

    /// The client policies in force: those in the store, or those gathered for it so far (SAP's
    /// defaults until a step sets others).
    public var clientPolicies: ClientPolicies { contents.clientPolicies }

    /// Changes what the store holds: the open store's contents, saved at once (the change is in
    /// the file when this returns), or the contents waiting for the store.
    ///
    /// - Throws: `ConfigurationError` when the store cannot be written; the store then holds
    ///   what it held before.
    public mutating func updateContents(_ change: (inout SecureStoreContents) throws -> Void) throws {
        guard var open = store else {
            try change(&pendingContents)
            return
        }
        let before = open.contents
        try change(&open.contents)
        guard open.contents != before else { return }
        try open.save()
        store = open
    }

    /// Keeps `value` under `key` among the app's values in the store (`nil` removes it), where a
    /// later restore finds it with ``kept(_:forKey:)``. Use reverse-DNS keys for an app's own.
    ///
    /// - Throws: an `EncodingError`, or `ConfigurationError` when the store cannot be written.
    public mutating func keep<Value: Encodable>(_ value: Value?, forKey key: String) throws {
        try updateContents { try $0.setValue(value, forKey: key) }
    }

    /// The value kept under `key`, decoded as `type`; `nil` when none is kept.
    ///
    /// - Throws: a `DecodingError` when the kept value is not a `type`.
    public func kept<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        try contents.value(type, forKey: key)
    }
}
