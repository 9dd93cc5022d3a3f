// Scan an image and turn its activation code into typed onboarding configuration.
//
//   swift run sample-scan-to-configuration [image]      (default: SampleCodes/oauth-activation.png)
import ActivationConfiguration
import ActivationImaging

let image = CommandLine.arguments.dropFirst().first ?? "SampleCodes/oauth-activation.png"
do {
    // 1. Find the QR codes in the image.
    let symbols = try BarcodeScanner(symbologies: [.qr]).scanFile(image)
    guard let symbol = symbols.first else {
        print("\(image): no QR code found")
        exit(4)
    }

    // 2. Tell what the payload is, and check it against the policy: https only, SAP cloud hosts.
    let policy = SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts)
    let payload = try PayloadRecognizer(policy: policy).recognize(text: symbol.text, source: image)
    guard let document = payload.document else {
        throw ConfigurationError(.notConfiguration, "\(image): \(payload.summary)")
    }
    print("Scan succeeded. You will be connected to: \(document.host)")

    // 3. Transform it into the typed values an app's sign-in flow needs.
    let info = try DiscoveryServiceTransformer(authenticationPath: "/mobileservices").transform(document, source: image)
    if let settings = info[OnboardingInfo.settings] {
        print("backend URL:    \(settings.backendURL)")
        print("application:    \(settings.applicationID) \(settings.applicationVersion)")
    }
    print("authentication: \(info[OnboardingInfo.authenticationURL] ?? "-")")
    if let oauth = info[OnboardingInfo.oauth2CodeGrant] {
        print("OAuth client:   \(oauth.clientID), authorize at \(oauth.authorizationEndpointURL)")
    }
} catch {
    print("\(error)")
    exit(1)
}

#if canImport(Glibc)
    import Glibc
#endif
