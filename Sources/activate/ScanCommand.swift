import ActivationConfiguration
import ActivationImaging
import ArgumentParser
import Foundation

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Find every QR code and barcode in images.",
        discussion: """
            Reads PNG (any bit depth, palette, alpha), JPEG (baseline and progressive) and PNM files,
            or standard input for `-`. Finds QR codes and the linear barcodes EAN-13/8, UPC-A/E,
            Code 128/39/93, ITF (interleaved 2 of 5), Codabar and GS1 DataBar, in reading order.

            Codes that carry an onboarding configuration (JSON, a signed JWS, an activation link) are
            checked against the security policy, and the confirmation is shown under the code: "Scan
            succeeded. You will be connected to: <host>", or why it was rejected.

            Output, one line per code:
              default   `QR-Code: <text>`, prefixed with `<file>: ` when several files are given
              --raw     each payload followed by a newline and nothing else (zbarimg's --raw);
                        add --binary for the exact bytes instead of text
              --json    a JSON array with one object per file (see the README, "scan --json")

            Examples:
              activate scan SampleCodes/oauth-activation.png
              activate scan --raw photo.jpg
              activate scan --symbology qr,ean13 --json shelf.jpg
              cat code.png | activate scan -

            Exit codes: 0 every input had a code; 4 some input had none; 1 an input could not be
            read (stderr names it; the other inputs are still scanned); 64 usage error.
            """
    )

    @Argument(help: ArgumentHelp("Image files to scan; `-` reads standard input.", valueName: "file"))
    var files: [String]

    @Flag(help: "Print only the payloads, each followed by a newline.")
    var raw = false

    @Flag(help: "With --raw: print the payload bytes exactly as scanned, without character-set conversion.")
    var binary = false

    @Flag(help: "Print a JSON array with one object per file.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Only look for these symbologies, comma-separated: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "list"))
    var symbology: [SymbologyList] = []

    @Option(help: ArgumentHelp("Refuse images with more pixels than this (default: 50000000).", valueName: "pixels"))
    var maxPixels: Int = ImageDecoder.defaultMaxPixels

    @OptionGroup(title: "Security policy (for codes that carry a configuration)")
    var policy: PolicyOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one image file, or `-` for standard input.") }
        if raw && json { throw ValidationError("--raw and --json cannot be combined; choose one output format.") }
        if binary && !raw { throw ValidationError("--binary only applies to --raw output.") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be positive.") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (`-`) can be read only once.") }
    }

    func run() async throws {
        let symbologies = symbology.isEmpty ? Set(Symbology.allCases) : Set(symbology.flatMap(\.values))
        let scanner = BarcodeScanner(symbologies: symbologies, decoder: ImageDecoder(maxPixels: maxPixels))
        let format: ScanOutput.Format = raw ? (binary ? .binary : .raw) : json ? .json : .readable
        let recognizer: PayloadRecognizer
        do {
            recognizer = PayloadRecognizer(policy: try policy.policy())
        } catch let error as ConfigurationError {
            Console.report(error.reason)
            throw ExitCode(ExitStatus.failure)
        }
        var output = ScanOutput(format: format, showFileNames: files.count > 1, recognizer: recognizer)

        for file in files {
            let result: Result<[ScannedSymbol], ImagingError>
            do {
                result = .success(try scanner.scanFile(file))
            } catch let error as ImagingError {
                result = .failure(error)
            }
            output.emit(file: file, result)
        }
        output.finish()
        if output.failedCount > 0 { throw ExitCode(ExitStatus.failure) }
        if output.emptyCount > 0 { throw ExitCode(ExitStatus.nothingFound) }
    }
}

/// A comma-separated `--symbology` value.
struct SymbologyList: ExpressibleByArgument {
    var values: [Symbology]

    init?(argument: String) {
        var values: [Symbology] = []
        for name in argument.split(separator: ",") {
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let value = Symbology(rawValue: key) ?? Self.aliases[key] else { return nil }
            values.append(value)
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    static let aliases: [String: Symbology] = [
        "qrcode": .qr, "ean-13": .ean13, "ean-8": .ean8, "upc-a": .upca, "upc-e": .upce,
        "code-128": .code128, "code-39": .code39, "code-93": .code93, "i25": .itf, "i2/5": .itf,
        "databar-expanded": .databarExpanded,
    ]

    static var allValueStrings: [String] { Symbology.allCases.map(\.rawValue) }
}

/// Writes scan results in one of the output formats and counts outcomes for the exit code.
struct ScanOutput {
    enum Format { case readable, raw, binary, json }

    let format: Format
    let showFileNames: Bool
    let recognizer: PayloadRecognizer
    private(set) var failedCount = 0
    private(set) var emptyCount = 0
    private var jsonFiles: [ScanReport.File] = []

    init(format: Format, showFileNames: Bool, recognizer: PayloadRecognizer) {
        self.format = format
        self.showFileNames = showFileNames
        self.recognizer = recognizer
    }

    /// What a code's payload is: a checked configuration (with its report), something else, or a
    /// configuration the policy rejected.
    func activation(_ symbol: ScannedSymbol, file: String) -> Result<ActivationReport, ConfigurationError> {
        Result {
            try ActivationReport(payload: try recognizer.recognize(text: symbol.text, source: file), source: file)
        }.mapError { $0 as? ConfigurationError ?? ConfigurationError(.invalidValue, "\(file): \($0)") }
    }

    mutating func emit(file: String, _ result: Result<[ScannedSymbol], ImagingError>) {
        switch result {
        case .failure(let error):
            failedCount += 1
            Console.report(error.reason)
        case .success(let symbols) where symbols.isEmpty:
            emptyCount += 1
            Console.report("\(file): no QR code or barcode found")
        case .success:
            break
        }
        let symbols = (try? result.get()) ?? []
        switch format {
        case .readable:
            let prefix = showFileNames ? "\(file): " : ""
            for symbol in symbols {
                var text = "\(prefix)\(symbol.symbology.displayName): \(Self.printable(symbol.text))\n"
                switch activation(symbol, file: file) {
                case .success(let report) where report.payload.document != nil:
                    text += report.lines(headline: "Scan succeeded.").map { "  \($0)\n" }.joined()
                case .failure(let error):
                    text += "  Rejected: \(error.reason)\n"
                case .success:
                    break
                }
                Console.out(text)
            }
        case .raw:
            Console.out(symbols.map { $0.text + "\n" }.joined())
        case .binary:
            Console.out(symbols.flatMap { $0.bytes + [0x0A] })
        case .json:
            jsonFiles.append(ScanReport.File(file: file, result: result) { activation($0, file: file) })
        }
    }

    func finish() {
        guard format == .json else { return }
        Console.out(JSONOutput.encode(jsonFiles) + "\n")
    }

    /// Control characters other than newline and tab are shown escaped, so a payload cannot
    /// rewrite the terminal; --raw and --json carry the exact text.
    static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(value) {
                result += "\\u{\(String(value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// The documented `scan --json` shape (README, "scan --json"). Keys are stable; new keys may be added.
enum ScanReport {
    struct File: Encodable {
        var file: String
        var symbols: [Symbol]
        var error: String?

        init(file: String, result: Result<[ScannedSymbol], ImagingError>,
             activation: (ScannedSymbol) -> Result<ActivationReport, ConfigurationError>) {
            self.file = file
            switch result {
            case .success(let found):
                symbols = found.map { Symbol($0, activation: activation($0)) }
            case .failure(let failure):
                symbols = []
                error = failure.reason
            }
        }
    }

    struct Symbol: Encodable {
        var type: String
        var text: String
        var bytes: String
        var position: [Point]
        var activation: ConfigurationValue

        init(_ symbol: ScannedSymbol, activation result: Result<ActivationReport, ConfigurationError>) {
            type = symbol.symbology.rawValue
            text = symbol.text
            bytes = Data(symbol.bytes).base64EncodedString()
            position = symbol.corners
            switch result {
            case .success(let report): activation = report.value
            case .failure(let error): activation = ActivationReport.rejection(error)
            }
        }
    }
}

enum JSONOutput {
    /// Pretty, sorted keys, slashes unescaped: stable output that diffs well.
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
