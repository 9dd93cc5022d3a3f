import ActivationConfiguration
import FileAccess
import Foundation

/// Many activation codes at once (`activate generate --batch`): one code per configuration
/// document, made in parallel, each checked and read back like a single `generate`, written to a
/// folder, in input order. A failing document is reported with its input and does not stop the
/// others. Memory stays bounded: documents are read when their turn comes, and workers run at most
/// a few codes ahead of the oldest one not yet reported.
public enum CodeBatch {
    /// One document to make a code of.
    public struct Job: Sendable, Hashable {
        /// The code's name: the file name without extension, or a JSON line's `name`.
        public var name: String
        /// Where the document comes from, for messages: `docs/alice.json`, `people.jsonl:3`.
        public var source: String
        /// The document's bytes, read lazily for files; fixed for JSON lines; or why the input is unusable.
        var content: Content

        enum Content: Sendable, Hashable {
            case file(String)
            case bytes([UInt8])
            case unusable(ConfigurationError)
        }

        func bytes(limit: Int) throws -> [UInt8] {
            switch content {
            case .file(let path): try FileIO.read(path, limit: limit)
            case .bytes(let bytes): bytes
            case .unusable(let error): throw error
            }
        }
    }

    /// What the batch needs to make each code.
    public struct Settings: Sendable {
        /// Reads and checks each document as a scanner would check the code (a signature is
        /// optional here); its policy's document size limit also caps each input's bytes.
        public var recognizer: PayloadRecognizer
        /// Called once per code: an `AC1:` code gets its own id and issue time.
        public var form: @Sendable () -> ConfigurationCode.Form
        /// The app id for documents that name none.
        public var applicationID: String?
        /// Accept documents that carry an OAuth passcode (a short-lived secret); refused unless
        /// set, since a printed code outlives any passcode.
        public var allowPasscode: Bool
        /// Encodes, renders and reads back each code.
        public var generator: QRCodeGenerator
        /// The format of the files, which also gives their extension (`.png`, `.svg`, else `.txt`).
        public var format: QRRenderFormat
        /// Where the codes go (created if missing).
        public var outputDirectory: String
        /// Replace existing files of the same name.
        public var replace: Bool

        /// Settings for a batch. By default documents without an app id get none, passcodes are
        /// refused, codes are PNG files from a default ``QRCodeGenerator``, and existing files are
        /// not replaced (their jobs fail).
        public init(
            recognizer: PayloadRecognizer, form: @escaping @Sendable () -> ConfigurationCode.Form,
            applicationID: String? = nil,
            allowPasscode: Bool = false, generator: QRCodeGenerator = QRCodeGenerator(), format: QRRenderFormat = .png,
            outputDirectory: String, replace: Bool = false
        ) {
            self.recognizer = recognizer
            self.form = form
            self.applicationID = applicationID
            self.allowPasscode = allowPasscode
            self.generator = generator
            self.format = format
            self.outputDirectory = outputDirectory
            self.replace = replace
        }
    }

    /// A code that was made and written.
    public struct Made: Sendable, Hashable {
        /// The file written.
        public var path: String
        /// The document the code carries.
        public var document: ConfigurationDocument
        /// The QR symbol: version, error correction, mode.
        public var matrix: QRMatrix
        /// For a signed code: the key id, and for `AC1:` codes the expiry.
        public var keyID: String?
        /// For an `AC1:` code: when it expires; `nil` for other codes.
        public var expires: Date?
    }

    /// One job's outcome.
    public struct Outcome: Sendable {
        /// The job this outcome is for.
        public var job: Job
        /// The code, or why there is none (a `ConfigurationError` or an ``ImagingError``).
        public var result: Result<Made, any Error>

        /// The reason of a failure, naming the input.
        public var failure: String? {
            guard case .failure(let error) = result else { return nil }
            switch error {
            case let error as ConfigurationError: return error.reason
            case let error as ImagingError: return "\(job.source): \(error.reason)"
            default: return "\(job.source): \(error)"
            }
        }
    }

    /// The most documents one batch takes (JSON lines and folders together).
    public static let maxJobs = 100_000
    /// A JSON-lines file larger than this is refused.
    public static let maxLinesFileBytes = 64 << 20
    /// The extensions of configuration documents inside folders.
    public static let documentExtensions: Set<String> = ["json", "plist", "txt"]
    /// The extensions of JSON-lines files.
    public static let linesExtensions: Set<String> = ["jsonl", "ndjson"]

    /// The jobs of `inputs`: configuration documents, folders of them (not recursive; sorted by
    /// name), and JSON-lines files (`.jsonl`, `.ndjson`: one document per line, named by its
    /// `name` key, else `<file>-<line>`). Unusable inputs become jobs that fail with the reason, so
    /// that they are reported in their place. Names must be unique across the batch.
    public static func jobs(from inputs: [String]) -> [Job] {
        var jobs: [Job] = []
        for input in inputs {
            if Files.type(of: input, followLinks: true) == .directory {
                let names = Files.folderNames(input) ?? []
                for name in names
                where !name.hasPrefix(".") && documentExtensions.contains((name as NSString).pathExtension.lowercased())
                {
                    let path = input.hasSuffix("/") ? input + name : "\(input)/\(name)"
                    jobs.append(Job(name: (name as NSString).deletingPathExtension, source: path, content: .file(path)))
                }
            } else if linesExtensions.contains((input as NSString).pathExtension.lowercased()) {
                jobs += lines(input)
            } else {
                let base = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
                jobs.append(Job(name: base, source: input, content: .file(input)))
            }
        }
        // A name decides a file name: it must be one, and only once.
        var seen: [String: String] = [:]
        for index in jobs.indices {
            let job = jobs[index]
            if case .unusable = job.content { continue }
            if !isFileName(job.name) {
                jobs[index].content = .unusable(
                    ConfigurationError(
                        .invalidValue, source: job.source,
                        "the name \"\(job.name.prefix(60))\" cannot be a file name (letters, digits, . _ - only)"))
            } else if let first = seen[job.name.lowercased()] {
                jobs[index].content = .unusable(
                    ConfigurationError(
                        .invalidValue, source: job.source, "the name \"\(job.name)\" is taken by \(first)"))
            } else {
                seen[job.name.lowercased()] = job.source
            }
        }
        if jobs.count > maxJobs {
            jobs = Array(jobs.prefix(maxJobs))
            jobs.append(
                Job(
                    name: "", source: "batch",
                    content: .unusable(
                        ConfigurationError(.tooManyItems, "batch: more than \(maxJobs) documents; split the batch"))))
        }
        return jobs
    }

    private static func lines(_ path: String) -> [Job] {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: maxLinesFileBytes)
        } catch let error as ConfigurationError {
            return [Job(name: "", source: path, content: .unusable(error))]
        } catch {
            return [
                Job(
                    name: "", source: path,
                    content: .unusable(ConfigurationError(.fileUnreadable, source: path, "\(error)")))
            ]
        }
        let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var jobs: [Job] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            guard !trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { continue }
            let source = "\(path):\(index + 1)"
            // The name is taken out, so that it does not travel in the code as an unknown key.
            do {
                let value = try JSONReader().parse(Array(line), source: source)
                guard var object = value.objectValue else {
                    throw ConfigurationError(
                        .wrongType, source: source,
                        "a line is a JSON object (a configuration document), not \(value.kindDescription)")
                }
                let name = object["name"]?.stringValue ?? "\(base)-\(index + 1)"
                object["name"] = nil
                let document = object["config"].map { $0 } ?? .object(object)
                jobs.append(Job(name: name, source: source, content: .bytes(Array(JSONWriter.compact(document).utf8))))
            } catch let error as ConfigurationError {
                jobs.append(Job(name: "\(base)-\(index + 1)", source: source, content: .unusable(error)))
            } catch {
                jobs.append(
                    Job(
                        name: "\(base)-\(index + 1)", source: source,
                        content: .unusable(ConfigurationError(.invalidJSON, source: source, "\(error)"))))
            }
        }
        return jobs
    }

    static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100 && name.first != "." && name.first != "-"
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
    }

    /// Makes every job's code on up to `concurrency` threads, handing each outcome to `report` in
    /// input order.
    ///
    /// - Throws: `ConfigurationError` only when the output folder cannot be made; everything else
    ///   is an outcome.
    public static func run(
        _ jobs: [Job], settings: Settings, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        report: (Outcome) -> Void
    ) throws {
        try FileIO.makeDirectory(settings.outputDirectory)
        let workers = max(1, concurrency)
        OrderedParallel.run(count: jobs.count, concurrency: workers, lookahead: 4 * workers) { index in
            Outcome(job: jobs[index], result: Result { try make(jobs[index], settings: settings) })
        } emit: { _, outcome in
            report(outcome)
        }
        // The names, made durable once for the whole batch (each file's content already is).
        FileIO.syncFolder(settings.outputDirectory)
    }

    static func make(_ job: Job, settings: Settings) throws -> Made {
        let bytes = try job.bytes(limit: settings.recognizer.policy.limits.maxDocumentBytes)
        let form = settings.form()
        let code = try ConfigurationCode.makeCode(
            from: bytes, source: job.source, recognizer: settings.recognizer, form: form,
            applicationID: settings.applicationID, allowPasscode: settings.allowPasscode)
        let generated = try settings.generator.generate(Array(code.text.utf8), as: settings.format)
        let fileExtension = settings.format == .png ? "png" : settings.format == .svg ? "svg" : "txt"
        let path = "\(settings.outputDirectory)/\(job.name).\(fileExtension)"
        try FileIO.write(generated.data, to: path, replace: settings.replace, syncFolder: false)
        var keyID: String?
        var expires: Date?
        switch form {
        case .json: break
        case .jws(let key): keyID = key.keyID
        case .activationCode(let key, let claims):
            keyID = key.keyID
            expires = claims.expires
        }
        return Made(path: path, document: code.document, matrix: generated.matrix, keyID: keyID, expires: expires)
    }
}
