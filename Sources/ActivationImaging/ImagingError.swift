import ActivationConfiguration

/// The one error type of the `ActivationImaging` layer: reading images, scanning, encoding, rendering.
///
/// `code` is for programs (match the code, never the text); `source` names the input (a file name,
/// `-` for standard input, `payload`); `reason` is the sentence for people. Two errors are equal
/// when their codes are.
public struct ImagingError: LocatedError {
    /// A stable identifier of the kind of failure, from a closed set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The closed set of kinds; the static members below are the only codes.
        private enum Kind: String, Sendable {
            case unreadable = "unreadable"
            case unsupportedFormat = "unsupported-format"
            case corruptImage = "corrupt-image"
            case imageTooLarge = "image-too-large"
            case payloadTooLarge = "payload-too-large"
            case invalidOption = "invalid-option"
            case verificationFailed = "verification-failed"
            case libraryFailure = "library-failure"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `unreadable`: what `--json` output and the documentation show.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The input could not be read (missing, a directory, permissions, too many bytes).
        public static let unreadable = Code(.unreadable)
        /// The input is an image format this toolkit does not read, or not an image at all.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The image is damaged or truncated.
        public static let corruptImage = Code(.corruptImage)
        /// The image has more pixels than the caller allows.
        public static let imageTooLarge = Code(.imageTooLarge)
        /// The payload does not fit in a QR code with the chosen options.
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// An option is out of range (scale, margin, version).
        public static let invalidOption = Code(.invalidOption)
        /// The rendered code did not decode back to the same bytes.
        public static let verificationFailed = Code(.verificationFailed)
        /// A C library failed in a way that is not the input's fault.
        public static let libraryFailure = Code(.libraryFailure)
    }

    /// What went wrong, for programs.
    public var code: Code
    /// The input at fault, when there is one: a file name (`-` for standard input), `payload`, or
    /// an option (`scale`, `margin`).
    public var source: String?
    /// What went wrong, without the source.
    public var message: String
    /// Nil: images and payloads have no key paths.
    public var keyPath: String? { nil }

    /// Makes an error; control or bidirectional characters (file names are untrusted) become
    /// visible escapes (`UntrustedText`).
    public init(_ code: Code, source: String? = nil, _ message: String) {
        self.code = code
        (self.source, _, self.message) = Self.escaped(source: source, keyPath: nil, message: message)
    }
}
