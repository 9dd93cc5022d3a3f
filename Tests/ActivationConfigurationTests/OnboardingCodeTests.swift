import ActivationConfiguration
import Testing

@Suite("Onboarding codes: issued at random, read as people type them")
struct OnboardingCodeTests {
    @Test(
        "typing is forgiving: case, dashes, spaces and look-alikes",
        arguments: [
            ("abcd-efgh-jkmn", "ABCDEFGHJKMN"), ("ABCD EFGH JKMN", "ABCDEFGHJKMN"),
            (" abCD-efGH jkmn ", "ABCDEFGHJKMN"),
            ("IL0O-1234", "11001234"), ("1234-5678", "12345678"), ("12345678", "12345678"),
        ])
    func typed(text: String, canonical: String) throws {
        #expect(try #require(OnboardingCode(typed: text)).canonical == canonical)
    }

    @Test(
        "anything else is not a code",
        arguments: ["", " - ", "ABCU", "ABC?", "ÄBCD", "ABCD\nEFGH", "ABC%41", String(repeating: "A", count: 65)])
    func refused(text: String) {
        #expect(OnboardingCode(typed: text) == nil)
    }

    @Test(
        "new codes: 12 Base32 characters grouped in fours, every character of the alphabet drawn, no repeats in 20,000")
    func random() throws {
        var seen = Set<String>()
        var characters = Set<Character>()
        for _ in 0..<20_000 {
            let code = OnboardingCode.random()
            #expect(code.canonical.count == 12)
            seen.insert(code.canonical)
            characters.formUnion(code.canonical)
        }
        #expect(seen.count == 20_000)
        #expect(characters == Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ"))
        let code = OnboardingCode.random()
        #expect(code.grouped.count == 14)
        #expect(code.grouped.split(separator: "-").map(\.count) == [4, 4, 4])
        // What is shown reads back as the same code.
        #expect(OnboardingCode(typed: code.grouped.lowercased()) == code)
    }

    @Test("SAP-style digit codes")
    func digits() throws {
        for _ in 0..<1000 {
            let code = OnboardingCode.random(.digits(count: 8))
            #expect(code.canonical.count == 8)
            #expect(code.canonical.allSatisfy(\.isASCII) && code.canonical.allSatisfy(\.isNumber))
        }
        #expect(try #require(OnboardingCode(typed: "12345678")).grouped == "1234-5678")
    }

    @Test("a code never shows itself by accident in a log line or an error")
    func redacted() throws {
        let code = try #require(OnboardingCode(typed: "ABCD-EFGH-JKMN"))
        #expect("\(code)" == "onboarding code (redacted)")
        #expect(String(reflecting: code) == "onboarding code (redacted)")
        #expect(!"\([code])".contains("ABCD"))
    }
}
