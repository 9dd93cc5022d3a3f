import ActivationImaging
import TestSupport
import Testing

@Suite("Image decoding")
struct ImageDecoderTests {
    static let payload = "https://mobile.example.com/activate?id=42"

    @Test(
        "every supported variant decodes and its code reads back",
        arguments: [
            "base.png", "gray16.png", "palette.png", "rgb-colored.png", "rgba-transparent.png",
            "baseline.jpg", "progressive.jpg", "pgm-raw.pgm", "ppm-plain.ppm",
        ])
    func supportedVariants(file: String) throws {
        let symbols = try BarcodeScanner().scanFile(ImageFixture.path(file))
        #expect(symbols.map(\.text) == [Self.payload])
        #expect(symbols.first?.symbology == .qr)
    }

    @Test("transparent pixels are composited onto white")
    func transparency() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("rgba-transparent.png"))
        #expect(image[0, 0] == 255)
        #expect(image.pixels.contains(0))
    }

    @Test("format sniffing looks at bytes, not names")
    func sniffing() throws {
        #expect(ImageFormat.sniff(try ImageFixture.bytes("base.png")) == .png)
        #expect(ImageFormat.sniff(try ImageFixture.bytes("progressive.jpg")) == .jpeg)
        #expect(ImageFormat.sniff(try ImageFixture.bytes("gif-image.gif")) == .gif)
        #expect(ImageFormat.sniff(try ImageFixture.bytes("text-file.png")) == nil)
        #expect(ImageFormat.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .webp)
    }

    @Test(
        "hostile inputs give their own clear error",
        arguments: [
            ("empty.png", ImagingError.Code.unsupportedFormat, "empty.png: the file is empty"),
            ("truncated.png", .corruptImage, "truncated.png: PNG is damaged or truncated"),
            ("truncated.jpg", .corruptImage, "truncated.jpg: JPEG is damaged or truncated"),
            (
                "huge-header.png", .imageTooLarge,
                "huge-header.png: 100000×100000 pixels (10000 MP) exceeds the limit of 50 MP"
            ),
            ("text-file.png", .unsupportedFormat, "text-file.png: not an image (PNG, JPEG or PNM expected)"),
            ("gif-image.gif", .unsupportedFormat, "gif-image.gif: GIF is not supported; convert it to PNG or JPEG"),
            ("no-such-file.png", .unreadable, "no-such-file.png: no such file"),
            ("corpus", .unreadable, "corpus: is a directory, not a regular file"),
        ])
    func hostile(file: String, code: ImagingError.Code, message: String) throws {
        let error = #expect(throws: ImagingError.self) { try ImageDecoder().decodeFile(ImageFixture.path(file)) }
        #expect(error?.code == code)
        #expect(error?.reason.hasPrefix(ImageFixture.path(message)) == true, "\(error?.reason ?? "")")
        // The file is a field of its own, for programs; the message does not repeat it.
        #expect(error?.source == ImageFixture.path(file), "\(error?.source ?? "nil")")
        #expect(error.map { !$0.message.contains(file) } == true, "\(error?.message ?? "")")
    }

    @Test("the pixel cap is checked before decoding")
    func pixelCap() throws {
        let decoder = ImageDecoder(maxPixels: 100 * 100)
        let error = #expect(throws: ImagingError.self) { try decoder.decodeFile(ImageFixture.path("base.png")) }
        #expect(error?.code == .imageTooLarge)
    }

    @Test("the byte cap is checked before reading")
    func byteCap() throws {
        let decoder = ImageDecoder(maxBytes: 100)
        let error = #expect(throws: ImagingError.self) { try decoder.decodeFile(ImageFixture.path("base.png")) }
        #expect(error?.code == .imageTooLarge)
        #expect(error?.reason.contains("exceeds the 100 bytes limit") == true)
    }

    @Test("a JPEG that stops before its end-of-image marker is truncated; data after it is fine")
    func jpegEnd() throws {
        let complete = try ImageFixture.bytes("baseline.jpg")
        #expect(try ImageDecoder().decode(complete + Array("trailer".utf8), name: "x").width == 148)
        #expect(throws: ImagingError.self) { try ImageDecoder().decode(Array(complete.dropLast(2)), name: "x") }
    }
}
