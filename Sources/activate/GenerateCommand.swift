import ActivationConfiguration
import ActivationImaging
import ArgumentParser

struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Make a QR code from a payload, check that it reads back, and write it.",
        discussion: """
            The payload comes from the argument, from --input FILE, or from standard input; its bytes are encoded exactly (a trailing newline too: use `printf` rather than `echo`). Payloads made only of 0-9 A-Z space $%*+-./: use the denser alphanumeric mode, others 8-bit byte mode.

            The format follows the --output extension (.png, .svg, .txt) or --format. Without --output the code is drawn on the terminal. An existing file is never replaced without --force, and files are written atomically. Before writing, the rendered image is scanned again and must give back the exact payload bytes.

            With --config FILE the configuration document is read and checked first (the security-policy options apply) and its canonical compact JSON is encoded; --sign KEY.pem (an EC P-256/384/521 or RSA private key) makes it a signed code (JWS) that `activate scan --public-key` verifies.

            Examples:
              activate generate 'https://mobile.example.com' --output code.png
              activate generate --input config.json --ec Q --output config.svg
              printf '%s' "$PAYLOAD" | activate generate      # on this terminal
              activate generate --config config.json --output activation.png
              activate generate --config config.json --sign signer.pem -o signed.png

            Exit codes: 0 written; 1 the payload or an output cannot be used (too large, an existing file, an unwritable path); 2 --config: the document is rejected; 64 usage error.
            """
    )

    @Argument(help: "The payload text. Omit it to read --input or standard input.")
    var payload: String?

    @Option(name: .long, help: ArgumentHelp("Read the payload from this file (`-`: standard input).", valueName: "file"))
    var input: String?

    @Option(help: ArgumentHelp("Check this configuration document and encode its canonical JSON.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("With --config: sign the code (JWS) with this PEM private key.", valueName: "pem"))
    var sign: String?

    @Flag(help: "With --config: allow a document that carries an OAuth passcode (a short-lived secret).")
    var allowPasscode = false

    @OptionGroup(title: "Security policy (with --config)")
    var policy: PolicyOptions

    @Option(name: [.short, .long], help: ArgumentHelp("Write the code here (`-`: standard output).", valueName: "file"))
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

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "terminal format: draw dark modules, for terminals with a light background.")
    var darkOnLight = false

    /// Payloads beyond this are refused before they are read; the largest QR code holds 7089 digits.
    static let maxPayloadBytes = 64 << 10

    func validate() throws {
        if [payload != nil, input != nil, config != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Give the payload one way: as an argument, with --input, or with --config.")
        }
        if sign != nil && config == nil { throw ValidationError("--sign signs a configuration: add --config FILE.") }
        if scale < QRMatrix.minimumScale { throw ValidationError("--scale must be at least \(QRMatrix.minimumScale): scanners read 1 pixel per module badly.") }
        if !(0...100).contains(margin) { throw ValidationError("--margin must be between 0 and 100 modules.") }
        if !(1...40).contains(minVersion) { throw ValidationError("--min-version must be between 1 and 40.") }
        if payload == nil && input == nil && config == nil && Console.stdinIsTerminal {
            throw ValidationError("Give a payload: as an argument, with --input FILE, or on standard input.")
        }
        _ = try resolvedFormat()
    }

    func run() async throws {
        do {
            try generate()
        } catch let error as ImagingError {
            Console.report(error)
            throw ExitCode(ExitStatus.failure)
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(error.exitStatus)
        }
    }

    private func generate() throws {
        let bytes = try payloadBytes()
        let format = try resolvedFormat()
        let generator = QRCodeGenerator(
            encoder: QRCodeEncoder(errorCorrection: errorCorrection, minimumVersion: minVersion),
            scale: scale, margin: margin, darkOnLight: darkOnLight)
        let code = try generator.generate(bytes, as: format)

        let destination = output ?? FileIO.standardStreamPath
        if destination == FileIO.standardStreamPath && format == .png && Console.stdoutIsTerminal {
            throw ImagingError(.invalidOption, "standard output is a terminal; write the PNG with --output FILE or redirect it")
        }
        try FileIO.write(code.data, to: destination, replace: force)
        let matrix = code.matrix
        let pixels = format == .png || format == .svg ? ", \(code.pixelSide)×\(code.pixelSide) px" : ""
        let target = destination == FileIO.standardStreamPath ? "" : "wrote \(destination): "
        Console.note("\(target)QR version \(matrix.version)-\(matrix.errorCorrection.rawValue), \(matrix.mode.rawValue) mode, "
            + "\(bytes.count) bytes, \(matrix.size)×\(matrix.size) modules\(pixels); read back and verified")
    }

    private func payloadBytes() throws -> [UInt8] {
        if let payload { return Array(payload.utf8) }
        if let config {
            let recognizer = PayloadRecognizer(policy: try policy.policy())
            let signer = try sign.map { path in
                try SigningKey(pem: String(decoding: try FileIO.read(path, limit: PolicyOptions.maxKeyBytes), as: UTF8.self), source: path)
            }
            return Array(try ConfigurationCode.make(
                from: try FileIO.read(config, limit: recognizer.policy.limits.maxDocumentBytes), source: config,
                recognizer: recognizer, signingKey: signer, allowPasscode: allowPasscode).utf8)
        }
        return try FileIO.read(input ?? FileIO.standardStreamPath, limit: Self.maxPayloadBytes)
    }

    private func resolvedFormat() throws -> QRRenderFormat {
        if let format { return format }
        guard let output, output != FileIO.standardStreamPath else { return .terminal }
        guard let format = QRRenderFormat(fileName: output) else {
            throw ValidationError("Cannot tell the format from '\(output)'; name it .png, .svg or .txt, or pass --format.")
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
