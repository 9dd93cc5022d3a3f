import ActivationConfiguration
import ActivationImaging
import ArgumentParser
import Foundation

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Find every QR code and barcode in images.",
        discussion: """
            Reads PNG (any bit depth, palette, alpha), JPEG (baseline and progressive) and PNM files, folders \
            (recursively: .png .jpg .jpeg .pgm .ppm .pbm .pnm), or standard input for `-`. Finds QR and Micro QR codes \
            and the linear barcodes EAN-13/8, UPC-A/E, Code 128/39/93, ITF (interleaved 2 of 5), Codabar and GS1 \
            DataBar, in reading order. Many files are decoded in parallel (--jobs) and reported in the order given, \
            with a progress bar on a terminal.

            Decoding starts with zxing-cpp, which reads most codes in a millisecond; only when it finds nothing do \
            retries run: light codes on dark, linear codes on widened and sharpened copies and with zbar, and, only \
            where the image shows QR finder patterns, QR codes on thresholded, enlarged, sharpened, smoothed and \
            turned copies. Images over 4 megapixels are read at half size first, and at full size only around what \
            looks like a code. --effort fast is one zbar pass; thorough runs every retry and adds rotations.

            Codes that carry an onboarding configuration (JSON, a signed JWS, an activation link) are checked against \
            the security policy, and the confirmation is shown under the code: "Scan succeeded. You will be connected \
            to: <host>", or why it was rejected.

            Output, one line per code:
              default       QR-Code: <text>   (<file>: QR-Code: <text> for several files);
                            control characters and newlines are shown as escapes (\\u{1B})
              --raw         each payload and a newline, nothing else (zbarimg's --raw);
                            with --binary the exact bytes instead of text
              --json        a JSON array, one object per file (docs/scanning.md, "scan --json")
              --json-lines  the same objects, one per line, as each file is done

            Examples:
              activate scan SampleCodes/oauth-activation.png
              activate scan --raw photo.jpg
              activate scan --symbology qr,ean13 --json shelf.jpg
              activate scan --json-lines --effort thorough photos/ > results.jsonl
              cat code.png | activate scan -

            Codes that are compact signed AC1 codes are verified with --trust-list (or $ACTIVATE_TRUST_LIST) or \
            --public-key; with a trust list, unsigned configurations are refused unless --signature optional.

            Exit codes: 0 every input had a code, and every configuration was accepted; 2 a code's configuration was \
            refused (the reason is shown under it; --raw and --binary do not judge payloads); 4 some input had none \
            (or a folder had no images); 1 an input could not be read (stderr names it; the other inputs are still \
            scanned); 64 usage error. When several apply, the first in the order 1, 2, 4 wins.
            """
    )

    @Argument(
        help: ArgumentHelp("Image files or folders to scan; `-` reads standard input.", valueName: "file"),
        completion: .file())
    var files: [String]

    @Flag(help: "Print only the payloads, each followed by a newline.")
    var raw = false

    @Flag(help: "With --raw: print the payload bytes exactly as scanned, without character-set conversion.")
    var binary = false

    @Flag(help: "Print a JSON array with one object per file.")
    var json = false

    @Flag(name: .customLong("json-lines"), help: "Print one JSON object per file and line, as each file is done.")
    var jsonLines = false

    @Option(help: "How hard to try: fast (one zbar pass), normal, or thorough.")
    var effort: ScanEffort = .normal

    /// Whether `arguments` (those after `scan`) ask for the fast effort, read before they are
    /// parsed: the zxing helper, which that effort never asks, is then not started ahead. Options
    /// after `--` are file names.
    static func asksForFastEffort(_ arguments: ArraySlice<String>) -> Bool {
        var last: String?
        var fast = false
        for argument in arguments {
            if argument == "--" { break }
            if argument == "--effort=\(ScanEffort.fast.rawValue)"
                || (last == "--effort" && argument == ScanEffort.fast.rawValue)
            {
                fast = true
            } else if argument.hasPrefix("--effort=") || last == "--effort" {
                fast = false
            }
            last = argument
        }
        return fast
    }

    @Option(help: ArgumentHelp("Files decoded at the same time (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Say on stderr, per file, which decoding pass found the codes and how long it took.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            """
            Only look for these symbologies, comma-separated: \
            \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).
            """,
            valueName: "list"))
    var symbology: [SymbologyList] = []

    @Option(help: ArgumentHelp("Refuse images with more pixels than this.", valueName: "pixels"))
    var maxPixels: Int = ImageDecoder.defaultMaxPixels

    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp(
            "This app's id: an AC1 code that names the apps it is for must name this one.", valueName: "id"))
    var appID: String?

    @OptionGroup var quietOption: QuietOption

    @OptionGroup(title: "Security policy (for codes that carry a configuration)")
    var policy: PolicyOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one image file, or `-` for standard input.") }
        if [raw, json, jsonLines].filter({ $0 }).count > 1 {
            throw ValidationError("--raw, --json and --json-lines cannot be combined; choose one output format.")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        if binary && !raw { throw ValidationError("--binary only applies to --raw output.") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be positive.") }
        if files.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("Standard input (`-`) can be read only once.")
        }
    }

    func run() async throws {
        let symbologies = symbology.isEmpty ? Set(Symbology.allCases) : Set(symbology.flatMap(\.values))
        let scanner = BarcodeScanner(
            symbologies: symbologies, decoder: ImageDecoder(maxPixels: maxPixels), effort: effort)
        let format: ScanOutput.Format =
            raw ? (binary ? .binary : .raw) : json ? .json : jsonLines ? .jsonLines : .readable
        let recognizer = PayloadRecognizer(policy: try policy.policy(applicationID: appID))
        // Each argument is expanded once; a folder without images is reported like an image without a code.
        var paths: [String] = []
        var emptyFolders: [String] = []
        for file in files {
            let expanded = BarcodeScanner.collectFiles([file])
            if expanded.isEmpty { emptyFolders.append(file) }
            paths += expanded
        }
        for folder in emptyFolders { Console.report("\(folder): no image files in this folder") }
        var output = ScanOutput(
            format: format, showFileNames: paths.count > 1 || paths.count < files.count, recognizer: recognizer)
        var progress = Progress(total: paths.count, enabled: paths.count > 1 && Console.stderrIsTerminal && !verbose)
        for await result in scanner.results(
            for: paths, concurrency: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        {
            progress.clear()
            if verbose { Console.note(Self.describe(result)) }
            output.emit(file: result.path, result.outcome.map(\.symbols))
            progress.advance(failed: output.failedCount)
        }
        progress.clear()
        output.finish()
        if output.failedCount > 0 { throw ExitCode(ExitStatus.failure) }
        if output.rejectedCount > 0 { throw ExitCode(ExitStatus.rejected) }
        if output.emptyCount > 0 || !emptyFolders.isEmpty { throw ExitCode(ExitStatus.nothingFound) }
    }

    static func describe(_ result: BarcodeScanner.FileResult) -> String {
        let time = String(format: "%.1f ms", result.duration.inMilliseconds)
        switch result.outcome {
        case .success(let trace):
            let passes = (trace.timings + trace.checks.map { ("+" + $0.what, $0.duration) })
                .map { "\($0.0) " + String(format: "%.1f", $0.1.inMilliseconds) }
                .joined(separator: ", ")
            let outcome =
                trace.pass.map { "\(trace.symbols.count) found by \($0) (pass \(trace.attempts))" }
                ?? "nothing after \(trace.attempts) passes"
            return "\(result.path): \(outcome), \(time) [\(passes) ms]"
        case .failure:
            return "\(result.path): not read, \(time)"
        }
    }
}

extension ScanEffort: ExpressibleByArgument {}

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
    enum Format { case readable, raw, binary, json, jsonLines }

    let format: Format
    let showFileNames: Bool
    let recognizer: PayloadRecognizer
    private(set) var failedCount = 0
    private(set) var emptyCount = 0
    /// Codes that carry a configuration the policy refused (a bad signature, an expired code, …).
    private(set) var rejectedCount = 0
    private var jsonFiles: [ScanReport] = []

    init(format: Format, showFileNames: Bool, recognizer: PayloadRecognizer) {
        self.format = format
        self.showFileNames = showFileNames
        self.recognizer = recognizer
    }

    /// What a code's payload is: a checked configuration (with its report), something else, or a
    /// configuration the policy rejected.
    func activation(_ symbol: ScannedSymbol, file: String) -> Result<ActivationReport, ConfigurationError> {
        Result {
            try ActivationReport(
                payload: try recognizer.recognize(text: symbol.text, source: file),
                transformer: DiscoveryServiceTransformer(applicationID: recognizer.policy.applicationID), source: file)
        }.mapError { $0 as? ConfigurationError ?? ConfigurationError(.invalidValue, source: file, "\($0)") }
    }

    mutating func emit(file: String, _ result: Result<[ScannedSymbol], ImagingError>) {
        switch result {
        case .failure(let error):
            failedCount += 1
            Console.report(error)
        case .success(let symbols) where symbols.isEmpty:
            emptyCount += 1
            Console.report("\(file): no QR code or barcode found")
        case .success:
            break
        }
        let symbols = (try? result.get()) ?? []
        // Each payload is judged once, for the formats that show verdicts; --raw and --binary only
        // read (zbarimg's contract: pipe the payload to `activate inspect -` to judge it).
        let verdicts = format == .raw || format == .binary ? [] : symbols.map { activation($0, file: file) }
        rejectedCount += verdicts.filter { if case .failure = $0 { true } else { false } }.count
        switch format {
        case .readable:
            let prefix = showFileNames ? "\(file): " : ""
            for (symbol, verdict) in zip(symbols, verdicts) {
                var lines = ["\(prefix)\(symbol.symbology.displayName): \(symbol.text)"]
                switch verdict {
                case .success(let report) where report.payload.document != nil:
                    lines += report.lines(headline: "Scan succeeded.").map { "  \($0)" }
                case .failure(let error):
                    lines.append("  Rejected: \(ErrorReport.reason(error))")
                case .success:
                    break
                }
                Console.print(lines: lines)
            }
        case .raw:
            Console.raw(symbols.map { $0.text + "\n" }.joined())
        case .binary:
            Console.raw(symbols.flatMap { $0.bytes + [0x0A] })
        case .json:
            jsonFiles.append(ScanReport(file: file, result: result, verdicts: verdicts))
        case .jsonLines:
            Console.raw(JSONOutput.encodeLine(ScanReport(file: file, result: result, verdicts: verdicts)) + "\n")
        }
    }

    func finish() {
        guard format == .json else { return }
        Console.raw(JSONOutput.encode(jsonFiles) + "\n")
    }
}

enum JSONOutput {
    /// Compact, sorted keys: one object per line.
    static func encodeLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return UntrustedText.escapingJSON(String(decoding: data, as: UTF8.self))
    }

    /// Pretty, sorted keys, slashes unescaped: stable output that diffs well.
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return UntrustedText.escapingJSON(String(decoding: data, as: UTF8.self))
    }
}
