import ActivationConfiguration

/// The one error type of the `ActivationImaging` layer: reading images, scanning, encoding, rendering.
///
/// `code` is for programs (match the code, never the text); `source` names the input (a file name,
/// `-` for standard input, `payload`); `reason` is the sentence for people.
public struct ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `unsupported-format`.
        public let rawValue: String
        /// The code with this identifier; the known codes are the static members below.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input could not be read (missing, a directory, permissions, too many bytes).
        public static let unreadable = Code("unreadable")
        /// The input is an image format this toolkit does not read, or not an image at all.
        public static let unsupportedFormat = Code("unsupported-format")
        /// The image is damaged or truncated.
        public static let corruptImage = Code("corrupt-image")
        /// The image has more pixels than the caller allows.
        public static let imageTooLarge = Code("image-too-large")
        /// The payload does not fit in a QR code with the chosen options.
        public static let payloadTooLarge = Code("payload-too-large")
        /// An option is out of range (scale, margin, version).
        public static let invalidOption = Code("invalid-option")
        /// The rendered code did not decode back to the same bytes.
        public static let verificationFailed = Code("verification-failed")
        /// A C library failed in a way that is not the input's fault.
        public static let libraryFailure = Code("library-failure")
    }

    /// What went wrong, for programs.
    public var code: Code
    /// The input at fault, when there is one: a file name (`-` for standard input), `payload`, or
    /// an option (`scale`, `margin`).
    public var source: String?
    /// What went wrong, without the source.
    public var message: String

    /// What went wrong, for people: `source: message`.
    public var reason: String { source.map { "\($0): \(message)" } ?? message }

    /// Makes an error; control or bidirectional characters (file names are untrusted) become
    /// visible escapes (`UntrustedText`).
    public init(_ code: Code, source: String? = nil, _ message: String) {
        self.code = code
        self.source = source.map { UntrustedText.escaped($0) }
        self.message = UntrustedText.escaped(message)
    }

    public var description: String { reason }
}
