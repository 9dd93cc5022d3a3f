import Foundation
import Testing

@testable import ActivationConfiguration

@Suite("RFC 3339 date-time, as JSON Schema's format names it")
struct InternetDateTimeTests {
    @Test(
        "every form RFC 3339 allows names its instant",
        arguments: [
            ("2026-01-01T00:00:00Z", 1_767_225_600.0), ("2026-01-01t00:00:00z", 1_767_225_600),
            ("2026-01-01T00:00:00.25Z", 1_767_225_600.25), ("2026-01-01T05:30:00+05:30", 1_767_225_600),
            ("2025-12-31T23:59:00-00:01", 1_767_225_600), ("2026-01-01T23:59:00+23:59", 1_767_225_600),
            ("2016-12-31T23:59:60Z", 1_483_228_799), ("2024-02-29T00:00:00Z", 1_709_164_800),
            ("0000-03-01T00:00:00Z", -62_162_035_200),
        ])
    func accepted(text: String, seconds: Double) {
        #expect(InternetDateTime.date(text)?.timeIntervalSince1970 == seconds, "\(text)")
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "2026-01-01", "2026-01-01 00:00:00Z", "2026-01-01T00:00Z", "2026-01-01T00:00:00",
            "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+0100", "2026-01-01T00:00:00Zjunk", "+2026-01-01T00:00:00Z", "２026-01-01T00:00:00Z",
        ])
    func refused(text: String) {
        #expect(InternetDateTime.date(text) == nil, "\(text)")
    }
}
