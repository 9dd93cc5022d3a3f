import ActivationConfiguration

/// Scans an image and takes the first code that carries an onboarding configuration (reference §2,
/// "barcode"). Codes that are something else (a URL, a product code) are passed over; a
/// configuration the policy rejects is an error, not skipped. An image without any code fails
/// with `noCodeFound`, one whose codes are no configuration with `notConfiguration`.
public struct BarcodeConfigurationProvider: ConfigurationProvider {
    /// This provider's ``identifier``.
    public static let defaultIdentifier = "activate.provider.barcode"
    public let identifier = BarcodeConfigurationProvider.defaultIdentifier
    /// The image file to scan; `-` reads standard input.
    public var imagePath: String
    /// The scanner that reads the image (by default QR codes only).
    public var scanner: BarcodeScanner
    /// Recognises each code's text and checks a configuration against its policy.
    public var recognizer: PayloadRecognizer

    /// A provider that scans `imagePath`, by default for QR codes only, with the default policy.
    public init(
        imagePath: String, scanner: BarcodeScanner = BarcodeScanner(symbologies: [.qr]),
        recognizer: PayloadRecognizer = PayloadRecognizer()
    ) {
        self.imagePath = imagePath
        self.scanner = scanner
        self.recognizer = recognizer
    }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        let symbols: [ScannedSymbol]
        do {
            // Off the cooperative pool; a cancelled task stops between the pipeline's passes.
            symbols = try await scanner.scan(file: imagePath)
        } catch let error as ImagingError {
            // The loader keeps the providers' ConfigurationError: an image that cannot be read or
            // decoded is an input that cannot be read; one too large, an input over its cap.
            throw ConfigurationError(
                error.code == .imageTooLarge ? .inputTooLarge : .fileUnreadable, source: error.source, error.message)
        }
        if symbols.isEmpty {
            throw ConfigurationError(.noCodeFound, source: imagePath, "no QR code or barcode found")
        }
        var seen: [String] = []
        for symbol in symbols {
            let payload = try recognizer.recognize(text: symbol.text, source: imagePath)
            if let document = payload.document {
                return ProvidedConfiguration(
                    document: document, signature: payload.signature, origin: imagePath,
                    signatureProof: payload.signatureProof)
            }
            seen.append(payload.summary)
        }
        throw ConfigurationError(
            .notConfiguration, source: imagePath, "no activation code found (found: \(seen.joined(separator: "; ")))")
    }
}
