extension Duration {
    /// The duration in milliseconds, for logs and reports.
    public var inMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
