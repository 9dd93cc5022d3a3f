// Scan images through the library, check every code with the security policy, print what was found.
//
//   swift run sample-scan-and-check [image ...]      (default: SampleCodes/oauth-activation.png)
import ActivationConfiguration
import ActivationImaging

let arguments = CommandLine.arguments.dropFirst()
let images = arguments.isEmpty ? ["SampleCodes/oauth-activation.png"] : Array(arguments)
let scanner = BarcodeScanner()  // zbar, plus zxing-cpp when its helper is found (docs/scanning.md)
let recognizer = PayloadRecognizer(policy: SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts))
if !BarcodeScanner.hasSecondEngine { print("note: activate-zxing-helper not found; scanning with zbar alone") }

// Many files in parallel, reported in the order given; decoding never blocks the cooperative pool.
for await result in scanner.results(for: images) {
    switch result.outcome {
    case .failure(let error):
        print("\(result.path): \(error.reason)")
    case .success(let trace) where trace.symbols.isEmpty:
        print("\(result.path): no code found")
    case .success(let trace):
        for symbol in trace.symbols {
            let code = "\(result.path): \(symbol.symbology.displayName)"
            do {
                let payload = try recognizer.recognize(text: symbol.text, source: result.path)
                if let document = payload.document {
                    print("\(code): you will be connected to \(document.host) (\(payload.signature.name))")
                } else {
                    print("\(code): \(payload.summary)")
                }
            } catch let error as ConfigurationError {
                print("\(code): rejected (\(error.code)): \(error.reason)")
            }
        }
    }
}
