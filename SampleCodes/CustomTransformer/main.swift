// A transformer for an app-specific key, merged with the default (discovery-service) transformation.
//
//   swift run sample-custom-transformer
import ActivationConfiguration

/// What the app wants out of its own `com.example.features` key.
struct FeatureFlags: Sendable, Hashable {
    var enabled: [String]
    var offlineDays: Int
}

struct FeatureFlagsTransformer: ConfigurationTransformer {
    static let key = InfoKey<FeatureFlags>("com.example.featureFlags")

    func transform(_ value: ConfigurationValue, at path: ConfigurationPath, context: TransformContext) throws
        -> TransformResult
    {
        guard let object = value.objectValue, let list = object["enabled"]?.arrayValue else {
            // Errors name the source and the key path, like the built-in ones.
            throw context.error(.wrongType, at: path.appending("enabled"), "expected an array of feature names")
        }
        let enabled = try list.enumerated().map { index, item in
            guard let name = item.stringValue else {
                throw context.error(
                    .wrongType, at: path.appending("enabled").appending(index), "expected a feature name")
            }
            return name
        }
        var offlineDays = 0
        if case .integer(let days)? = object["offlineDays"] { offlineDays = days }
        var result = TransformResult()
        result[Self.key] = FeatureFlags(enabled: enabled, offlineDays: offlineDays)
        return result
    }
}

let text = """
    {"host":"mobile-demo.example.hana.ondemand.com","appID":"com.example.fieldservice",
     "auth":[{"type":"oauth2","config":{
       "oauth2.authorizationEndpoint":"https://mobile-demo.example.hana.ondemand.com/oauth2/api/v1/authorize",
       "oauth2.tokenEndpoint":"https://mobile-demo.example.hana.ondemand.com/oauth2/api/v1/token",
       "oauth2.clients":[{"clientID":"3f2c9a1e-0000-4000-8000-000000000001",
                          "redirectURL":"com.example.app://oauth"}]}}],
     "com.example.features":{"enabled":["offline","barcode-lookup"],"offlineDays":7}}
    """
do {
    let payload = try PayloadRecognizer().recognize(text: text, source: "sample")
    guard let document = payload.document else { fatalError("the sample is a configuration") }
    let transformer = DiscoveryServiceTransformer().registering("com.example.features", FeatureFlagsTransformer())
    let info = try transformer.transform(document, source: "sample")
    print("backend:  \(info[OnboardingInfo.settings]?.backendURL ?? "-")")
    print("client:   \(info[OnboardingInfo.oauth2CodeGrant]?.clientID ?? "-")")
    if let flags = info[FeatureFlagsTransformer.key] {
        print("features: \(flags.enabled.joined(separator: ", ")); offline for \(flags.offlineDays) days")
    }
} catch {
    print("\(error)")
    exit(1)
}

#if canImport(Glibc)
    import Glibc
#endif
