import Prometheus

/// What `/metrics` reports (Prometheus text): requests by route and status, their latency, codes
/// issued, used and refused, and requests refused by the guessing limits.
package final class ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let latency: DurationHistogram
    private let issued: Counter
    private let limited: Counter

    package init() {
        latency = registry.makeDurationHistogram(
            descriptor: Self.name("request_duration", unit: "seconds", "Time to answer a request."),
            buckets: [
                .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
                .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
            ])
        issued = registry.makeCounter(descriptor: Self.name("codes_issued", unit: "total", "Onboarding codes issued."))
        limited = registry.makeCounter(
            descriptor: Self.name("rate_limited", unit: "total", "Requests answered 429 by the guessing limits."))
    }

    /// Counts one answered request: `route` is a fixed label, never request text.
    package func request(route: String, status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: Self.name("requests", unit: "total", "Requests answered, by route and status."),
            labels: [("route", route), ("status", String(status))]
        ).increment()
        latency.record(duration)
        if status == 429 { limited.increment() }
    }

    /// Counts one code lookup by its outcome: `used` (a document was served), or the refusal
    /// (`not-found`, `expired`, `used-up`, `revoked`).
    package func codeLookup(_ outcome: String) {
        registry.makeCounter(
            descriptor: Self.name("code_lookups", unit: "total", "Lookups by onboarding code, by outcome."),
            labels: [("outcome", outcome)]
        ).increment()
    }

    package func codesIssued(_ count: Int) {
        issued.increment(by: Int64(count))
    }

    /// `activate_discovery_<name>_<unit>`.
    private static func name(_ name: String, unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "activate", subsystem: "discovery", metricName: name, unitName: unit, helpText: help)
    }

    /// The Prometheus text exposition of every metric.
    package func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
