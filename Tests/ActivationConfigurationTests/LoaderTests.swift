import ActivationConfiguration
import Foundation
import Synchronization
import TestSupport
import Testing

/// A provider whose behaviour a test sets: the loader's own extension point, used the way an app would.
struct ScriptedProvider: ConfigurationProvider {
    let identifier: String
    var inputKeys: [ProviderInputKey] = []
    var host: String? = nil
    var calls: CallLog? = nil

    func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        calls?.record(identifier, input)
        guard let host else { throw ConfigurationError(.notFound, "\(identifier): nothing here") }
        let document = ConfigurationDocument(host: host, appID: "com.example.app")
        return ProvidedConfiguration(document: document, origin: identifier)
    }
}

final class CallLog: Sendable {
    private let entries = Mutex<[(String, ProviderInput)]>([])
    func record(_ id: String, _ input: ProviderInput) { entries.withLock { $0.append((id, input)) } }
    var identifiers: [String] { entries.withLock { $0.map(\.0) } }
    var inputs: [ProviderInput] { entries.withLock { $0.map(\.1) } }
}

@Suite("Loader semantics")
struct LoaderTests {
    @Test("the default providers: managed configuration, then the bundled JSON file, else the property list")
    func defaultProviders() async throws {
        let folder = try TemporaryFolder(prefix: "defaults")
        func files() -> [String?] {
            ConfigurationLoader.defaultProviders(folder: folder.path).map { ($0 as? FileConfigurationProvider)?.path }
        }
        #expect(
            ConfigurationLoader.defaultProviders(folder: folder.path).map(\.identifier)
                == [ManagedConfigurationProvider.defaultIdentifier, FileConfigurationProvider.defaultIdentifier])
        #expect(files() == [nil, folder.file("ConfigurationProvider.plist")])
        try FileIO.write(
            try Fixture.bytes("documents/android-basic.json"), to: folder.file("ConfigurationProvider.json"),
            replace: false)
        #expect(files() == [nil, folder.file("ConfigurationProvider.json")])
        // And the loader finds it there (no managed configuration in this environment).
        let loader = ConfigurationLoader(
            providers: [ManagedConfigurationProvider(environment: [:])]
                + ConfigurationLoader.defaultProviders(folder: folder.path).dropFirst())
        #expect(try await loader.load().get().providerID == FileConfigurationProvider.defaultIdentifier)
    }

    @Test("providers run in order and the first success wins")
    func firstSuccessWins() async throws {
        let log = CallLog()
        let loader = ConfigurationLoader(providers: [
            ScriptedProvider(identifier: "a", calls: log),
            ScriptedProvider(identifier: "b", host: "b.example.com", calls: log),
            ScriptedProvider(identifier: "c", host: "c.example.com", calls: log),
        ])
        let result = try await loader.load()
        #expect(result.winner?.providerID == "b")
        #expect(result.winner?.configuration.document.host == "b.example.com")
        #expect(log.identifiers == ["a", "b"], "c is never asked")
        #expect(result.failures.map(\.providerID) == ["a"])
    }

    @Test("input-needing providers are asked together, once, with the union of their keys")
    func inputBatching() async throws {
        let log = CallLog()
        let asked = Mutex<[[ProviderInputKey]]>([])
        let loader = ConfigurationLoader(providers: [
            ScriptedProvider(identifier: "plain", calls: log),
            ScriptedProvider(identifier: "email", inputKeys: [.emailAddress], calls: log),
            ScriptedProvider(identifier: "code", inputKeys: [.onboardingCode, .emailAddress], calls: log),
            ScriptedProvider(identifier: "json", inputKeys: [.jsonString], host: "json.example.com", calls: log),
        ])
        let result = try await loader.load { keys in
            asked.withLock { $0.append(keys) }
            return [.emailAddress: "someone@example.com", .jsonString: "{}"]
        }
        #expect(asked.withLock { $0 } == [[.emailAddress, .onboardingCode, .jsonString]])
        #expect(log.identifiers == ["plain", "email", "code", "json"])
        #expect(log.inputs.last?[.emailAddress] == "someone@example.com")
        #expect(result.winner?.providerID == "json")
    }

    @Test("input is not asked for when an earlier provider succeeds")
    func noNeedlessQuestion() async throws {
        let asked = Mutex(0)
        let loader = ConfigurationLoader(providers: [
            ScriptedProvider(identifier: "file", host: "file.example.com"),
            ScriptedProvider(identifier: "email", inputKeys: [.emailAddress], host: "x.example.com"),
        ])
        let result = try await loader.load { _ in
            asked.withLock { $0 += 1 }
            return [:]
        }
        #expect(result.winner?.providerID == "file")
        #expect(asked.withLock { $0 } == 0)
    }

    @Test("with no input, input-needing providers are skipped and reported")
    func skipped() async throws {
        let log = CallLog()
        let loader = ConfigurationLoader(providers: [
            ScriptedProvider(identifier: "email", inputKeys: [.emailAddress], host: "x.example.com", calls: log),
            ScriptedProvider(identifier: "last", calls: log),
        ])
        let result = try await loader.load { _ in [:] }
        #expect(result.winner == nil)
        #expect(result.skipped == ["email"])
        #expect(log.identifiers == ["last"])
        let error = #expect(throws: ConfigurationError.self) { try result.get() }
        #expect(
            error?.reason == "no configuration found:\n  last: last: nothing here\n  email: skipped, no input was given"
        )
    }

    @Test("every failure is aggregated with provider id and reason; real providers")
    func aggregation() async throws {
        let directory = try TemporaryFolder(prefix: "loader")
        let bad = directory.file("bad.json")
        try FileIO.write(Array(#"{"host":"https://x.example.com"}"#.utf8), to: bad, replace: false)
        let loader = ConfigurationLoader(providers: [
            ManagedConfigurationProvider(environment: [:]),
            FileConfigurationProvider(path: directory.file("missing.json")),
            FileConfigurationProvider(path: bad),
            JSONStringConfigurationProvider(text: "https://example.com"),
        ])
        let result = try await loader.load()
        #expect(result.winner == nil)
        #expect(result.failures.map(\.error.code) == [.notFound, .notFound, .invalidHost, .notConfiguration])
        #expect(
            result.failures.map(\.providerID) == [
                "com.sap.configuration.provider.managed", "com.sap.configuration.provider.fileconfiguration",
                "com.sap.configuration.provider.fileconfiguration", "com.sap.configuration.provider.json",
            ])
        let error = #expect(throws: ConfigurationError.self) { try result.get() }
        #expect(error?.reason.contains("managed configuration: ACTIVATE_MANAGED_CONFIG is not set") == true)
        #expect(error?.reason.contains("\(bad): host: \"https://x.example.com\" must be a host name only") == true)
        #expect(
            error?.reason.contains("JSON string: a web address on example.com, not an onboarding configuration") == true
        )
    }

    @Test("managed configuration: flattened MDM keys from the file named by the environment")
    func managed() async throws {
        let path = Fixture.path("documents/mdm-flattened.json")
        let provided = try await ManagedConfigurationProvider(environment: ["ACTIVATE_MANAGED_CONFIG": path]).provide(
            input: [:])
        #expect(provided.document.auth.first?.method.typeName == "oauth2")
        #expect(provided.origin == "managed configuration (\(path))")
    }

    @Test("a cancelled load throws CancellationError, never a provider failure")
    func cancellation() async throws {
        struct Cancelling: ConfigurationProvider {
            let identifier = "cancelling"
            func provide(input: ProviderInput) async throws -> ProvidedConfiguration { throw CancellationError() }
        }
        let loader = ConfigurationLoader(providers: [
            Cancelling(), ScriptedProvider(identifier: "last", host: "x.example.com"),
        ])
        await #expect(throws: CancellationError.self) { try await loader.load() }
        // A task cancelled before the load: no provider is asked.
        let log = CallLog()
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await ConfigurationLoader(providers: [ScriptedProvider(identifier: "only", calls: log)]).load()
        }.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(log.identifiers.isEmpty)
    }

    @Test("the JSON-string provider asks for JSONstring when it has no text")
    func jsonStringInput() async throws {
        let provider = JSONStringConfigurationProvider()
        #expect(provider.inputKeys == [.jsonString])
        let text = try Fixture.text("documents/android-basic.json")
        let result = try await ConfigurationLoader(providers: [provider]).load { _ in [.jsonString: text] }
        #expect(result.winner?.configuration.document.host == "mobile-demo.example.hana.ondemand.com")
    }
}

@Suite("Configuration store")
final class StoreTests {
    let folder: TemporaryFolder
    /// The store's folder, not made yet: the store makes it.
    let directory: String
    init() throws {
        folder = try TemporaryFolder(prefix: "store")
        directory = folder.file("store")
    }

    /// A stored record of a configuration that came as a real signed code.
    func record(_ host: String = "mobile.example.com") throws -> StoredConfiguration {
        let jws = try CompactJWS.sign(
            Array(ConfigurationDocument(host: host, appID: "com.example.app").canonicalJSON().utf8),
            with: try Fixture.privateKey("ec256"), keyID: "k1")
        let payload = try PayloadRecognizer(policy: SecurityPolicy(verificationKeys: [try Fixture.publicKey("ec256")]))
            .recognize(text: jws, source: "code")
        let document = try #require(payload.document)
        return StoredConfiguration(
            document: document, providerID: "p", origin: "o", storedAt: Date(timeIntervalSince1970: 1_800_000_000),
            signature: payload.signature, signatureProof: payload.signatureProof)
    }

    @Test("the report of a record (restore --json): no signed code, no passcode, the transformed configuration")
    func report() throws {
        var stored = try record()
        let sso = try #require(
            try PayloadRecognizer().recognize(
                bytes: try Fixture.bytes("documents/cross-context-sso.json"), source: "sso"
            ).document)
        stored.document = sso
        let report = stored.report(try ActivationReport(document: sso, signature: stored.signature, source: "store"))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        let proof = try #require(stored.signatureProof)
        // The store keeps it.
        #expect(stored.value.objectValue?["signature"]?.objectValue?["signedCode"] == .string(proof.signedCode))
        #expect(!json.contains("signedCode") && !json.contains(proof.signedCode))  // the report never shows it
        let passcodes = sso.auth.compactMap { item -> String? in
            if case .oauth2(let settings) = item.method { return settings.clients.compactMap(\.passcode).first }
            return nil
        }
        #expect(!passcodes.isEmpty && passcodes.allSatisfy { !json.contains($0) }, "\(json)")
        #expect(
            report.format == 1 && report.provider == "p" && report.origin == "o"
                && report.storedAt == "2027-01-15T08:00:00Z")
        #expect(report.document == sso.value(includeSecrets: false))
        #expect(report.configuration.host == sso.host && report.configuration.appID == "com.example.fieldservice")
        // The record's signature carries the key that verified it; the configuration's is inspect's, without it.
        #expect(
            report.signature.status == "verified" && report.signature.algorithm == "ES256"
                && report.signature.keyFingerprint == proof.key.fingerprint)
        #expect(
            report.signature.keyID == "k1" && report.signature.publicKey == Base64.encode(proof.key.derRepresentation))
        #expect(report.configuration.signature == SignatureRecord(stored.signature))
    }

    @Test("the store file is written as before: key order, signature fields, signed code and key")
    func storedForm() throws {
        let stored = try record()
        let proof = try #require(stored.signatureProof)
        let signature =
            #"""
            {"status":"verified","algorithm":"ES256","keyFingerprint":"\#(proof.key.fingerprint)","keyID":"k1",\#
            "signedCode":"\#(proof.signedCode)","publicKey":"\#(Base64.encode(proof.key.derRepresentation))"}
            """#
        #expect(
            JSONWriter.compact(stored.value)
                == #"""
                {"format":1,"provider":"p","origin":"o","storedAt":"2027-01-15T08:00:00Z","signature":\#(signature),\#
                "document":\#(stored.document.canonicalJSON())}
                """#
        )
        var unsigned = stored
        unsigned.signature = .unsigned
        unsigned.signatureProof = nil
        #expect(JSONWriter.compact(unsigned.value).contains(#""signature":{"status":"unsigned"},"document""#))
    }

    @Test("save and load round trip; the file is 0600 in a 0700 directory")
    func roundTrip() throws {
        let store = FileConfigurationStore(path: "\(directory)/activate/configuration.json")
        #expect(try store.load() == nil)
        let signed = try record()
        try store.save(signed)
        #expect(try store.load() == signed)
        try #require(try store.load()).check(against: SecurityPolicy(signature: .required), source: store.path)
        let file = try FileManager.default.attributesOfItem(atPath: store.path)
        let folder = try FileManager.default.attributesOfItem(atPath: "\(directory)/activate")
        #expect(file[.posixPermissions] as? Int == 0o600)
        #expect(folder[.posixPermissions] as? Int == 0o700)
        #expect(try store.remove())
        #expect(try !store.remove())
    }

    @Test(
        "a damaged store is a clear error naming the file, with no command-line advice in it",
        arguments: [
            "{not json", #"{"format":2}"#, #"{"format":1,"provider":"p"}"#,
            #"""
            {"format":1,"provider":"p","origin":"o","storedAt":"2027-01-15T08:00:00Z","signature":{"status":\#
            "unsigned"},"document":{"host":"https://x"}}
            """#,
        ])
    func damaged(content: String) throws {
        let store = FileConfigurationStore(path: "\(directory)/configuration.json")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileIO.write(Array(content.utf8), to: store.path, replace: true)
        let error = #expect(throws: ConfigurationError.self) { try store.load() }
        #expect(error?.code == .storeDamaged)
        #expect(error?.reason.hasPrefix("\(store.path): the stored configuration is damaged (") == true)
        #expect(
            error?.source == store.path && error?.message.hasPrefix("the stored configuration is damaged (") == true)
        #expect(error?.reason.contains("activate reset") == false)  // the CLI's advice (Hint) is the CLI's
    }

    @Test("a write that died before its rename leaves the previous configuration intact")
    func interruptedWrite() throws {
        let store = FileConfigurationStore(path: "\(directory)/configuration.json")
        try store.save(try record("old.example.com"))
        // What a process killed mid-write leaves: a half-written temporary file beside the store.
        let orphan = "\(directory)/.configuration.json.tmp-Ab12Cd"
        try FileIO.write(Array(#"{"format":1,"provider":"p","ori"#.utf8), to: orphan, replace: false)
        #expect(try store.load()?.document.host == "old.example.com")
        try store.save(try record("new.example.com"))
        #expect(try store.load()?.document.host == "new.example.com")
    }

    @Test("the default path follows XDG")
    func defaultPath() {
        #expect(
            FileConfigurationStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"])
                == "/x/cfg/activate/configuration.json")
        #expect(
            FileConfigurationStore.defaultPath(environment: ["HOME": "/home/u"])
                == "/home/u/.config/activate/configuration.json")
        #expect(
            FileConfigurationStore.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.config/activate/configuration.json")
    }
}
