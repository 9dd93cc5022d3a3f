// How a configuration provider verifies a compact signed activation code (AC1) with the library:
// the administrator's trust list decides which keys (and which hosts per key) are accepted; the
// recognizer checks signature, expiry, audience and policy before anything is used.
//
//   swift run sample-verify-activation-code                       # a self-contained demonstration
//   swift run sample-verify-activation-code TRUST.json CODE.txt   # verify a real code
//
// CODE.txt holds the text of a code, as `activate scan --raw` prints it.
import ActivationConfiguration
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let trustList: TrustList
let codes: [(name: String, text: String)]

if arguments.count == 2 {
    let (trustPath, codePath) = (arguments[arguments.startIndex], arguments[arguments.startIndex + 1])
    trustList = try TrustList(contentsOf: trustPath)
    codes = [(codePath, String(decoding: try FileIO.read(codePath, limit: 8192), as: UTF8.self))]
} else {
    // The administrator's side, in a few lines: a key, a trust list that binds it to the
    // company's hosts, and a code for the sample configuration that expires in a week.
    let key = SigningKey(generating: .ed25519)
    trustList = try TrustList([
        TrustList.Entry(key: key.verificationKey, issuer: "acme-it", allowedHosts: ["example.hana.ondemand.com"])
    ])
    let sample = """
        {"host": "mobile-demo.example.hana.ondemand.com", "appID": "com.example.fieldservice",
         "auth": [{"type": "basic"}]}
        """
    guard let document = try PayloadRecognizer().recognize(text: sample, source: "sample").document else {
        fatalError("the sample is a configuration")
    }
    let good = try ActivationCode.make(
        document,
        claims: ActivationCodeClaims(
            issuer: "acme-it", audience: ["com.example.fieldservice"],
            expires: Date().addingTimeInterval(7 * 86_400)),
        signingKey: key, source: "sample")
    // A forger's code for their own server, signed with their own key.
    var evil = document
    evil.host = "mobile.evil.example"
    let forged = try ActivationCode.make(
        evil, claims: ActivationCodeClaims(expires: Date().addingTimeInterval(3600)),
        signingKey: SigningKey(generating: .ed25519), source: "forger")
    codes = [("issued code", good), ("forged code", forged)]
}

// The app's side: what a configuration provider does with scanned text.
let recognizer = PayloadRecognizer(
    policy: SecurityPolicy(signature: .required, trustList: trustList, applicationID: "com.example.fieldservice"))
for (name, text) in codes {
    do {
        let payload = try recognizer.recognize(text: text, source: name)
        guard let document = payload.document, let claims = payload.claims else {
            print("\(name): \(payload.summary), not a signed configuration")
            continue
        }
        let key = payload.signatureProof?.key.keyID ?? "?"
        let expires = claims.expires.formatted(.iso8601)
        print("\(name): verified, key \(key), issuer \(claims.issuer ?? "-"), expires \(expires)")
        print("  You will be connected to: \(document.host) (\(document.baseURL), app \(document.appID ?? "-"))")
    } catch let error as ConfigurationError {
        // Each refusal has its own code: unknown-key, signature-invalid, expired, audience-mismatch,
        // host-not-allowed, ...
        print("\(name): refused (\(error.code)): \(error.reason)")
    }
}
