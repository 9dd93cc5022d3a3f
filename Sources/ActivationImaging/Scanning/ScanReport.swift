import ActivationConfiguration
import Foundation

/// What `activate scan --json` prints for one file (docs/scanning.md, "scan --json"), as a type: programs
/// that run the tool decode its output with it, and library users can print the same shape.
/// Keys are stable; new keys may be added.
public struct ScanReport: Codable, Sendable, Hashable {
    /// The file as it was named.
    public var file: String
    /// Every code found, in reading order.
    public var symbols: [Symbol]
    /// Why the file could not be read; absent otherwise.
    public var error: String?

    /// One code.
    public struct Symbol: Codable, Sendable, Hashable {
        /// The symbology's name (``Symbology``'s raw value: `qr`, `ean13`, …).
        public var type: String
        /// The payload as text (``ScannedSymbol/text``).
        public var text: String
        /// The payload bytes, base64.
        public var bytes: String
        /// The four corners (``ScannedSymbol/corners``).
        public var position: [Point]
        /// What the payload is and whether it was accepted: the object `inspect --json` prints.
        public var activation: InspectReport

        /// The entry for `symbol`, with the verdict on its payload: the report on success, else the
        /// rejection built from the error.
        public init(_ symbol: ScannedSymbol, activation result: Result<ActivationReport, ConfigurationError>) {
            type = symbol.symbology.rawValue
            text = symbol.text
            bytes = Base64.encode(symbol.bytes)
            position = symbol.corners
            switch result {
            case .success(let report): activation = InspectReport(report)
            case .failure(let error): activation = InspectReport(rejecting: error)
            }
        }
    }

    /// The report of one file: its codes, each with its verdict (in the same order), or why it
    /// could not be read.
    public init(
        file: String, result: Result<[ScannedSymbol], ImagingError>,
        verdicts: [Result<ActivationReport, ConfigurationError>]
    ) {
        self.file = file
        switch result {
        case .success(let found):
            symbols = zip(found, verdicts).map { Symbol($0, activation: $1) }
        case .failure(let failure):
            symbols = []
            error = failure.reason
        }
    }
}
