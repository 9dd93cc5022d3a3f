import ActivationConfiguration
import ActivationImaging
import ArgumentParser
import Foundation

struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Make a QR code from a payload, check that it reads back, and write it.",
        discussion: """
            The payload comes from the argument, from --input FILE, or from standard input; its bytes are encoded \
            exactly (a trailing newline too: use `printf` rather than `echo`). Payloads made only of 0-9 A-Z space \
            $%*+-./: use the denser alphanumeric mode, others 8-bit byte mode.

            The format follows the --output extension (.png, .svg, .txt) or --format. Without --output the code is \
            drawn on the terminal. An existing file is never replaced without --force, and files are written \
            atomically. Before writing, the rendered image is scanned again and must give back the exact payload bytes.

            With --config FILE the configuration document is read and checked first, as `scan` and `inspect` will \
            check the code (security-policy options, an app id: --app-id supplies one the document lacks), and its \
            canonical compact JSON is encoded. --sign KEY.pem (Ed25519, EC P-256/384/521 or RSA) makes it a signed \
            code (JWS) that `activate scan --public-key` verifies.

            --compact --sign KEY.pem makes a compact signed AC1 code instead (Ed25519 or P-256 keys from `activate \
            keys create`): smaller than the unsigned JSON, in QR alphanumeric mode, with an expiry (--expires, default \
            14 days, at most 30), an optional issuer and audience (app ids). Readers verify it with a trust list \
            (`activate keys trust`, `scan --trust-list`).

            --batch INPUT... --out-dir DIR makes one code per configuration document: each INPUT is a document, a \
            folder of them (.json .plist .txt), or a JSON-lines file (.jsonl: one document per line, named by its \
            "name" key). Codes are made in parallel (--jobs), each checked and read back, and written as \
            DIR/<name>.png; --sheet FILE.html adds a printable page with one card per code (label, host, app id, key \
            id, expiry). A failing document is reported with its input and the others go on.

            Examples:
              activate generate 'https://mobile.example.com' --output code.png
              activate generate --input config.json --ec Q --output config.svg
              printf '%s' "$PAYLOAD" | activate generate      # on this terminal
              activate generate --config config.json --output activation.png
              activate generate --config config.json --sign signer.pem -o signed.png
              activate generate --config config.json --compact --sign admin.pem --issuer acme-it --expires 7d -o ac1.png
              activate generate --batch configs/ users.jsonl --out-dir codes --compact --sign admin.pem --sheet \
            codes.html

            Exit codes: 0 written (--batch: every code); 1 the payload or an output cannot be used (too large, an \
            existing file, an unwritable path); 2 --config: the document is rejected (--batch: some document was, and \
            no output failed); 64 usage error.
            """
    )

    @Argument(help: "The payload text. Omit it to read --input or standard input.")
    var payload: String?

    @Option(
        name: .long, help: ArgumentHelp("Read the payload from this file (`-`: standard input).", valueName: "file"),
        completion: .file())
    var input: String?

    @Option(
        help: ArgumentHelp("Check this configuration document and encode its canonical JSON.", valueName: "file"),
        completion: .file())
    var config: String?

    @Option(
        help: ArgumentHelp(
            "With --config: sign the code with this PEM private key (a JWS; with --compact an AC1 code).",
            valueName: "pem"), completion: .file())
    var sign: String?

    @Flag(help: "With --config and --sign: make a compact signed AC1 code.")
    var compact = false

    @Option(
        help: ArgumentHelp(
            "With --compact: who issues the code (a short id the trust list may bind the key to).", valueName: "id"))
    var issuer: String?

    @Option(
        help: ArgumentHelp(
            """
            With --compact: when the code expires: a span (14d, 12h, 30m) or a date (2027-01-31, \
            2027-01-31T12:00:00Z); default 14d, at most 30 days.
            """,
            valueName: "when"))
    var expires: DateArgument?

    @Option(
        help: ArgumentHelp(
            "With --compact: an app id the code is for (repeatable; default: any app).", valueName: "app-id"))
    var audience: [String] = []

    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp("With --config: the app id, for a document that names none.", valueName: "id"))
    var appID: String?

    @Flag(help: "With --config: allow a document that carries an OAuth passcode (a short-lived secret).")
    var allowPasscode = false

    @OptionGroup var quietOption: QuietOption

    @OptionGroup(title: "Security policy (with --config)")
    var policy: PolicyOptions

    @Option(
        name: [.short, .long], help: ArgumentHelp("Write the code here (`-`: standard output).", valueName: "file"),
        completion: .file())
    var output: String?

    @Option(help: "Output format (default: from the --output extension; terminal without --output).")
    var format: QRRenderFormat?

    @Option(name: .customLong("ec"), help: "Error-correction level: L (7%), M (15%), Q (25%), H (30%).")
    var errorCorrection: ErrorCorrection = .medium

    @Option(help: ArgumentHelp("Pixels per module for PNG and SVG, at least 2.", valueName: "pixels"))
    var scale: Int = 8

    @Option(help: ArgumentHelp("Quiet zone around the code, in modules.", valueName: "modules"))
    var margin: Int = 4

    @Option(help: ArgumentHelp("Smallest QR version to use, 1-40.", valueName: "version"))
    var minVersion: Int = 1

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Make one code per document: documents, folders of them, JSON-lines files.", valueName: "input"),
        completion: .file())
    var batch: [String] = []

    @Option(
        name: .customLong("out-dir"),
        help: ArgumentHelp("With --batch: the folder the codes are written to.", valueName: "dir"),
        completion: .directory)
    var outDir: String?

    @Option(
        help: ArgumentHelp("With --batch: also write a printable HTML page of all codes.", valueName: "file.html"),
        completion: .file())
    var sheet: String?

    @Option(
        help: ArgumentHelp(
            """
            With --batch: codes made at the same time (default: twice the number of cores, since each code's file \
            waits for the disk).
            """,
            valueName: "n"))
    var jobs: Int?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "terminal format: draw dark modules, for terminals with a light background.")
    var darkOnLight = false

    /// Payloads beyond this are refused before they are read; the largest QR code holds 7089 digits.
    static let maxPayloadBytes = 64 << 10

    func validate() throws {
        if [payload != nil, input != nil, config != nil, !batch.isEmpty].filter({ $0 }).count > 1 {
            throw ValidationError(
                "Give the payload one way: as an argument, with --input, with --config, or with --batch.")
        }
        if !batch.isEmpty {
            if outDir == nil { throw ValidationError("--batch writes its codes to a folder: add --out-dir DIR.") }
            if output != nil {
                throw ValidationError("--batch names each code after its document; use --out-dir instead of --output.")
            }
            if format == .terminal { throw ValidationError("--batch writes files: --format png, svg or text.") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        } else if outDir != nil || sheet != nil {
            throw ValidationError("--out-dir and --sheet belong to --batch.")
        }
        if sign != nil && config == nil && batch.isEmpty {
            throw ValidationError("--sign signs a configuration: add --config FILE.")
        }
        if appID != nil && config == nil && batch.isEmpty {
            throw ValidationError("--app-id completes a configuration: add --config FILE.")
        }
        if compact && sign == nil {
            throw ValidationError(
                "--compact makes a signed code: add --sign KEY.pem (make one with `activate keys create`).")
        }
        if !compact && (issuer != nil || expires != nil || !audience.isEmpty) {
            throw ValidationError("--issuer, --expires and --audience belong to compact signed codes: add --compact.")
        }
        if let expires {
            let now = Date()
            let date = expires.date(from: now)
            if date <= now { throw ValidationError("--expires lies in the past.") }
            if date.timeIntervalSince(now) > ActivationCode.maxLifetime + 60 {
                throw ValidationError(
                    "--expires may be at most 30 days away: a printed code should not outlive a key rotation.")
            }
        }
        if scale < QRMatrix.minimumScale {
            throw ValidationError(
                "--scale must be at least \(QRMatrix.minimumScale): scanners read 1 pixel per module badly.")
        }
        if !(0...100).contains(margin) { throw ValidationError("--margin must be between 0 and 100 modules.") }
        if !(1...40).contains(minVersion) { throw ValidationError("--min-version must be between 1 and 40.") }
        if payload == nil && input == nil && config == nil && batch.isEmpty && Console.stdinIsTerminal {
            throw ValidationError("Give a payload: as an argument, with --input FILE, or on standard input.")
        }
        _ = try resolvedFormat(batch: !batch.isEmpty)
    }

    func run() async throws {
        if batch.isEmpty { try generate() } else { try generateBatch() }
    }

    private func generate() throws {
        let (bytes, signed) = try payloadBytes()
        let format = try resolvedFormat()
        let generator = QRCodeGenerator(
            encoder: QRCodeEncoder(errorCorrection: errorCorrection, minimumVersion: minVersion),
            scale: scale, margin: margin, darkOnLight: darkOnLight)
        let code = try generator.generate(bytes, as: format)

        let destination = output ?? FileIO.standardStreamPath
        if destination == FileIO.standardStreamPath && format == .png && Console.stdoutIsTerminal {
            throw ImagingError(
                .invalidOption, "standard output is a terminal; write the PNG with --output FILE or redirect it")
        }
        // A code wrapped by a narrow terminal cannot be scanned: say so instead of drawing it.
        let width = code.matrix.size + 2 * margin
        if destination == FileIO.standardStreamPath && format == .terminal, let columns = Console.terminalColumns,
            width > columns
        {
            throw ImagingError(
                .invalidOption,
                "the code is \(width) modules wide and this terminal \(columns) columns; "
                    + "widen the terminal, or write a file: --output code.png")
        }
        warnAboutMargin()
        try FileIO.write(code.data, to: destination, replace: force)
        let matrix = code.matrix
        let pixels = format == .png || format == .svg ? ", \(code.pixelSide)×\(code.pixelSide) px" : ""
        let target = destination == FileIO.standardStreamPath ? "" : "wrote \(destination): "
        Console.note(
            "\(target)QR version \(matrix.version)-\(matrix.errorCorrection.rawValue), \(matrix.mode.rawValue) mode, "
                + "\(bytes.count) bytes, \(matrix.size)×\(matrix.size) modules\(pixels); read back and verified")
        if let signed { Console.note(signed) }
    }

    private func warnAboutMargin() {
        if margin < 4 {
            Console.note(
                """
                warning: a quiet zone of \(margin) modules is below the 4 the QR standard asks for; some scanners will \
                fail
                """
            )
        }
    }

    /// The payload, and for a signed code a line saying what signed it.
    private func payloadBytes() throws -> (bytes: [UInt8], signed: String?) {
        if let payload { return (Array(payload.utf8), nil) }
        guard let config else {
            return (try FileIO.read(input ?? FileIO.standardStreamPath, limit: Self.maxPayloadBytes), nil)
        }
        let recognizer = PayloadRecognizer(policy: try policy.policy())
        let form = try formMaker()()
        let text = try ConfigurationCode.make(
            from: try FileIO.read(config, limit: recognizer.policy.limits.maxDocumentBytes), source: config,
            recognizer: recognizer, form: form, applicationID: appID, allowPasscode: allowPasscode)
        return (Array(text.utf8), Self.describe(form))
    }

    /// Makes the form of each code: unsigned, JWS, or an AC1 code with fresh claims (its own id
    /// and issue time) each time it is called.
    private func formMaker() throws -> @Sendable () -> ConfigurationCode.Form {
        let key = try sign.map { try SigningKey(pem: try PolicyOptions.readKey($0), source: $0) }
        let started = Date()
        let expiry = expires?.date(from: started) ?? started.addingTimeInterval(ActivationCode.defaultLifetime)
        let (issuer, audience, compact) = (issuer, audience, compact)
        return {
            switch (key, compact) {
            case (nil, _): .json
            case (let key?, false): .jws(key)
            case (let key?, true):
                .activationCode(
                    key, ActivationCodeClaims(issuer: issuer, audience: audience, expires: expiry, issuedAt: Date()))
            }
        }
    }

    /// What signed a code, for the closing note.
    static func describe(_ form: ConfigurationCode.Form) -> String? {
        switch form {
        case .json: nil
        case .jws(let key): "signed: JWS \(key.algorithm.rawValue), key \(key.keyID)"
        case .activationCode(let key, let claims):
            """
            signed: AC1, \(key.algorithm.rawValue), key \(key.keyID)\(claims.issuer.map { ", issuer \($0)" } ?? ""), \
            expires \(claims.expires.formatted(.iso8601))
            """
        }
    }

    /// `--batch`: every document's code into --out-dir, in parallel, in input order.
    private func generateBatch() throws {
        guard let outDir else { return }
        let makeForm = try formMaker()
        let format = try resolvedFormat(batch: true)
        let settings = CodeBatch.Settings(
            recognizer: PayloadRecognizer(policy: try policy.policy()), form: makeForm, applicationID: appID,
            allowPasscode: allowPasscode,
            generator: QRCodeGenerator(
                encoder: QRCodeEncoder(errorCorrection: errorCorrection, minimumVersion: minVersion), scale: scale,
                margin: margin),
            format: format, outputDirectory: outDir, replace: force)
        let work = CodeBatch.jobs(from: batch)
        if work.isEmpty {
            throw ConfigurationError(
                .notFound, "--batch: no configuration documents in \(batch.joined(separator: ", "))")
        }
        if sheet != nil && work.count > CodeSheet.maxCards {
            throw ConfigurationError(
                .tooManyItems,
                "--sheet: \(work.count) documents; a sheet holds at most \(CodeSheet.maxCards) cards (split the batch)")
        }
        warnAboutMargin()
        var progress = Progress(total: work.count, enabled: work.count > 1 && Console.stderrIsTerminal, noun: "codes")
        var cards: [CodeSheet.Card] = []
        var (made, rejected, failed) = (0, 0, 0)
        let clock = ContinuousClock()
        let start = clock.now
        try CodeBatch.run(
            work, settings: settings, concurrency: jobs ?? 2 * ProcessInfo.processInfo.activeProcessorCount
        ) { outcome in
            progress.clear()
            switch outcome.result {
            case .success(let code):
                made += 1
                Console.print(lines: [code.path])
                if sheet != nil { cards.append(CodeSheet.Card(code, label: outcome.job.name)) }
            case .failure(let error):
                if let error = error as? ConfigurationError, ErrorReport.status(of: error) == ExitStatus.rejected {
                    rejected += 1
                } else {
                    failed += 1
                }
                if let error = error as? ConfigurationError {
                    Console.report(error)
                } else {
                    Console.report(outcome.failure ?? "\(outcome.job.source): failed")
                }
            }
            progress.advance(failed: rejected + failed)
        }
        progress.clear()
        if let sheet {
            try FileIO.write(
                Array(try CodeSheet.html(title: "Activation codes (\(made))", cards: cards).utf8), to: sheet,
                replace: force)
        }
        let seconds = (clock.now - start).inMilliseconds / 1000
        Console.note(
            "made \(made) of \(work.count) codes in \(outDir)\(sheet.map { " and the sheet \($0)" } ?? "")"
                + String(format: " in %.1f s (%.0f codes/s)", seconds, Double(made) / max(seconds, 0.001))
                + (made < work.count ? "; \(work.count - made) failed" : "")
                + (Self.describe(makeForm()).map { "; \($0)" } ?? ""))
        if failed > 0 { throw ExitCode(ExitStatus.failure) }
        if rejected > 0 { throw ExitCode(ExitStatus.rejected) }
    }

    private func resolvedFormat(batch: Bool = false) throws -> QRRenderFormat {
        if let format { return format }
        if batch { return .png }
        guard let output, output != FileIO.standardStreamPath else { return .terminal }
        guard let format = QRRenderFormat(fileName: output) else {
            throw ValidationError(
                "Cannot tell the format from '\(output)'; name it .png, .svg or .txt, or pass --format.")
        }
        return format
    }
}
extension ErrorCorrection: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension QRRenderFormat: ExpressibleByArgument {}
