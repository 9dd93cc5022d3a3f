/// A passcode, as the user typed it. It never shows itself: printing one, in a log or an error,
/// prints `(passcode)`.
public struct Passcode: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The passcode's text.
    public let text: String

    /// A passcode from what the user typed (without its line ending).
    public init(_ text: String) {
        self.text = text
    }

    var bytes: [UInt8] { Array(text.utf8) }

    /// `(passcode)`, never the passcode.
    public var description: String { "(passcode)" }
    /// `(passcode)`, never the passcode.
    public var debugDescription: String { "(passcode)" }
}
