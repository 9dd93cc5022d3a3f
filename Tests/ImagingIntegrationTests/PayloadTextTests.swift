import ActivationImaging
import TestSupport
import Testing

@Suite("Payload character sets")
struct PayloadTextTests {
    @Test(
        "the character set is chosen by the evidence in the bytes",
        arguments: [
            (Array("plain ASCII".utf8), PayloadText.Charset.isoLatin1, "plain ASCII"),
            (Array("Zürich 日本 🎉".utf8), .utf8, "Zürich 日本 🎉"),
            ([0xEF, 0xBB, 0xBF] + Array("bom".utf8), .utf8, "\u{FEFF}bom"),
            ([0x5A, 0xFC, 0x72, 0x69, 0x63, 0x68], .isoLatin1, "Zürich"),
            ([0x43, 0x61, 0x66, 0xE9], .isoLatin1, "Café"),
            ([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA], .shiftJIS, "日本語"),
            ([0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD], .shiftJIS, "ﾃﾞｻﾞｲﾝ"),
            ([0xFE, 0xFF, 0x00, 0x41, 0x00, 0x42], .utf16, "AB"),
        ])
    func guess(bytes: [UInt8], charset: PayloadText.Charset, text: String) {
        let decoded = PayloadText.decode(bytes)
        #expect(decoded.charset == charset)
        #expect(decoded.text == text)
    }

    @Test("bytes valid in no character set still give text (ISO-8859-1 never fails)")
    func neverFails() {
        let bytes: [UInt8] = [0x80, 0xFF, 0x00, 0x81]
        #expect(PayloadText.decode(bytes).text.unicodeScalars.map(\.value) == [0x80, 0xFF, 0x00, 0x81])
    }

    @Test("a Latin-1 payload in a real QR code reads back as its text")
    func latin1RoundTrip() throws {
        let bytes: [UInt8] = [0x5A, 0xFC, 0x72, 0x69, 0x63, 0x68, 0x20, 0x43, 0x61, 0x66, 0xE9]
        let image = try QRCodeEncoder().encode(bytes).grayImage(scale: 4, margin: 4)
        let symbol = try #require(BarcodeScanner().scan(image).first)
        #expect(symbol.bytes == bytes)
        #expect(symbol.text == "Zürich Café")
    }
}

@Suite("Declared character sets (ECI)")
struct DeclaredCharsetTests {
    /// Codes made with segno, each declaring its character set: ECI 21 Windows-1250, 22 Windows-1251,
    /// 23 Windows-1252, 24 Windows-1256, 28 Big5, 29 GB18030, 30 EUC-KR.
    @Test(
        "a code that declares its character set comes out as its text in UTF-8",
        arguments: ["cp1250", "cp1251", "cp1252", "cp1256", "big5", "gb18030", "euc_kr"])
    func declared(name: String) throws {
        let expected = String(decoding: try ImageFixture.bytes("eci/\(name).txt"), as: UTF8.self)
        let symbol = try #require(
            try BarcodeScanner(effort: .fast).scanFile(ImageFixture.path("eci/\(name).png")).first)
        #expect(symbol.text == expected)
        #expect(symbol.bytes == Array(expected.utf8))
    }
}
