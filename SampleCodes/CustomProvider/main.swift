// A configuration provider of your own, plugged into the loader beside the built-in ones.
//
//   swift run sample-custom-provider [onboarding-code]
//
// The loader asks the managed configuration first, then this provider (which needs an onboarding
// code, so the loader asks for one), then a bundled file. The first that succeeds wins; every
// failure is listed.
import ActivationConfiguration

/// Looks a tenant's configuration up in a table, as an app's own back end might.
struct TenantTableProvider: ConfigurationProvider {
    let identifier = "com.example.provider.tenant-table"
    let inputKeys: [ProviderInputKey] = [.onboardingCode]
    let tenants: [String: String] = [
        "tenant-42": """
        {"host": "tenant42.example.hana.ondemand.com", "appID": "com.example.fieldservice",
         "auth": [{"type": "basic.default"}]}
        """
    ]

    func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard let code = input[.onboardingCode], let text = tenants[code] else {
            throw ConfigurationError(.notFound, "tenant table: no tenant for this code")
        }
        // The recognizer checks the document against the security policy, like every built-in provider.
        return try PayloadRecognizer().configuration(from: Array(text.utf8), source: "tenant table")
    }
}

let code = CommandLine.arguments.dropFirst().first ?? "tenant-42"
let loader = ConfigurationLoader(providers: [
    ManagedConfigurationProvider(),
    TenantTableProvider(),
    FileConfigurationProvider(path: "ConfigurationProvider.json"),
])
let result = try await loader.load { keys in
    print("the loader asks once for: \(keys.map(\.rawValue).joined(separator: ", "))")
    return [.onboardingCode: code]
}
for failure in result.failures { print("  passed over: \(failure)") }
do {
    let (provider, configuration) = try result.get()
    print("\(provider) won: you will be connected to \(configuration.document.baseURL)")
} catch {
    print(error)
    exit(1)
}

#if canImport(Glibc)
    import Glibc
#endif
