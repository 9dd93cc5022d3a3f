import ActivationImaging
import Foundation
import TestSupport
import Testing

@Suite("activate scan")
struct ScanCommandTests {
    let directory: TemporaryFolder
    let code: String
    let other: String
    let blank: String

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        code = try directory.write(
            "code.png", QRCodeGenerator(scale: 4).generate(Array("Hello Zürich 日本".utf8), as: .png).data)
        other = try directory.write(
            "other.png", QRCodeGenerator(scale: 4).generate(Array("second".utf8), as: .png).data)
        blank = try directory.write(
            "blank.png", try GrayImage(width: 50, height: 50, pixels: [UInt8](repeating: 255, count: 2500)).png())
    }

    @Test("default output: type and text; file names when several files are given")
    func readable() async throws {
        let one = try await ActivateCLI.runInProcess(["scan", code])
        #expect(one.status == 0)
        #expect(one.text == "QR-Code: Hello Zürich 日本\n")
        let two = try await ActivateCLI.runInProcess(["scan", code, other])
        #expect(two.text == "\(code): QR-Code: Hello Zürich 日本\n\(other): QR-Code: second\n")
    }

    @Test(
        "libzbar is loaded by the first zbar pass, not at start: --version, a code zxing reads and an image of one value never load it"
    )
    func zbarLoadedWhenUsed() async throws {
        // LD_DEBUG=files: the dynamic loader names each library it loads, on stderr.
        func loads(_ arguments: [String]) async throws -> (result: ActivateCLI.Result, zbar: Bool) {
            let result = try await Tool.run("/usr/bin/env", ["LD_DEBUG=files", ActivateCLI.executable] + arguments)
            #expect(result.stderr.contains("libc.so.6"), "the loader's report is missing: \(result.stderr)")
            return (result, result.stderr.contains("libzbar.so.0"))
        }
        let version = try await loads(["--version"])
        #expect(version.result.status == 0 && !version.zbar)
        let readByZXing = try await loads(["scan", "--raw", code])
        #expect(readByZXing.result.text == "Hello Zürich 日本\n" && !readByZXing.zbar)
        let uniform = try await loads(["scan", "--raw", blank])
        #expect(uniform.result.status == 4 && !uniform.zbar)
        let zbarOnly = try await loads(["scan", "--raw", "--effort", "fast", code])
        #expect(zbarOnly.result.text == "Hello Zürich 日本\n" && zbarOnly.zbar)
    }

    @Test("--raw prints each payload and one newline, like zbarimg --raw")
    func raw() async throws {
        #expect(
            try await ActivateCLI.runInProcess(["scan", "--raw", code, other]).stdout
                == Array("Hello Zürich 日本\nsecond\n".utf8))
    }

    @Test("--raw --binary prints the exact bytes")
    func binary() async throws {
        let latin1: [UInt8] = [0x43, 0x61, 0x66, 0xE9]
        let file = try directory.write("latin1.png", QRCodeGenerator(scale: 4).generate(latin1, as: .png).data)
        #expect(try await ActivateCLI.runInProcess(["scan", "--raw", "--binary", file]).stdout == latin1 + [0x0A])
        #expect(try await ActivateCLI.runInProcess(["scan", "--raw", file]).stdout == Array("Café\n".utf8))
    }

    @Test("--json: one object per file with type, text, base64 bytes and four corners")
    func json() async throws {
        let result = try await ActivateCLI.runInProcess(["scan", "--json", code, blank])
        #expect(result.status == 4)
        let reports = try decodeReport([ScanReport].self, result.stdout)
        #expect(reports.map(\.file) == [code, blank])
        let symbol = try #require(reports.first?.symbols.first)
        #expect(symbol.type == "qr")
        #expect(symbol.text == "Hello Zürich 日本")
        #expect(Data(base64Encoded: symbol.bytes) == Data("Hello Zürich 日本".utf8))
        #expect(symbol.position.count == 4)
        #expect(reports[1].symbols.isEmpty && reports[1].error == nil)
        // The library's type decodes what the tool prints, the verdict included.
        #expect(
            !symbol.activation.accepted && symbol.activation.kind == "text" && symbol.activation.configuration == nil)
        let sample = try await ActivateCLI.runInProcess([
            "scan", "--json", SourceTree.path("SampleCodes/oauth-activation.png"),
        ])
        let activation = try #require(
            try decodeReport([ScanReport].self, sample.stdout).first?.symbols.first?.activation)
        #expect(activation.accepted)
        #expect(activation.configuration?.host == "mobile-demo.example.hana.ondemand.com")
    }

    @Test("standard input with -")
    func standardInput() async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: code)))
        let result = try await ActivateCLI.run(["scan", "--raw", "-"], stdin: bytes)
        #expect(result.text == "Hello Zürich 日本\n")
    }

    @Test("exit 4 when an input has no code; the others are still printed")
    func nothingFound() async throws {
        let result = try await ActivateCLI.runInProcess(["scan", "--raw", blank, code])
        #expect(result.status == 4)
        #expect(result.text == "Hello Zürich 日本\n")
        #expect(result.stderr.contains("\(blank): no QR code or barcode found"))
    }

    @Test("--symbology restricts the scan")
    func symbology() async throws {
        #expect(try await ActivateCLI.runInProcess(["scan", "--symbology", "ean13,code128", code]).status == 4)
        #expect(try await ActivateCLI.runInProcess(["scan", "--symbology", "qr", code]).status == 0)
    }

    @Test("hostile inputs: a clear error naming the file, exit 1, never a crash; other files still scanned")
    func hostile() async throws {
        let png = Array(try Data(contentsOf: URL(fileURLWithPath: code)))
        let cases: [(String, String)] = [
            (try directory.write("empty.png", []), "the file is empty"),
            (try directory.write("truncated.png", Array(png.prefix(png.count / 2))), "PNG is damaged or truncated"),
            (
                try directory.write(
                    "truncated.jpg",
                    [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [
                        0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xFF, 0xDB, 0x00,
                    ]),
                "JPEG is damaged or truncated"
            ),
            (
                try directory.write("huge.png", Self.pngHeader(width: 100_000, height: 100_000)),
                "100000×100000 pixels (10000 MP) exceeds the limit of 50 MP"
            ),
            (try directory.write("text.png", Array("just text\n".utf8)), "not an image (PNG, JPEG or PNM expected)"),
            (directory.file("missing.png"), "no such file"),
        ]
        for (file, message) in cases {
            let result = try await ActivateCLI.runInProcess(["scan", file, code])
            #expect(result.status == 1, "\(file)")
            #expect(result.stderr.contains("activate: \(file): \(message)"), "\(file): \(result.stderr)")
            #expect(
                result.text.hasSuffix("\(code): QR-Code: Hello Zürich 日本\n"), "\(file): the good file is still scanned")
        }
    }

    @Test("a folder without images is named, exit 4")
    func emptyFolder() async throws {
        let empty = directory.file("empty-folder")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let result = try await ActivateCLI.runInProcess(["scan", empty, code])
        #expect(result.status == 4)
        #expect(result.stderr.contains("activate: \(empty): no image files in this folder"))
        #expect(result.text.contains("QR-Code: Hello Zürich 日本"))
    }

    @Test("--max-pixels refuses large images before decoding")
    func maxPixels() async throws {
        let result = try await ActivateCLI.runInProcess(["scan", "--max-pixels", "1000", code])
        #expect(result.status == 1)
        #expect(result.stderr.contains("exceeds the limit of"))
    }

    @Test("a folder is scanned recursively, in parallel, reported in order; --json-lines streams one object per file")
    func folders() async throws {
        let folder = directory.file("batch")
        for index in 0..<12 {
            let sub = "\(folder)/\(index % 3)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            try Data(try QRCodeGenerator(scale: 3).generate(Array("code \(index)".utf8), as: .png).data)
                .write(to: URL(fileURLWithPath: "\(sub)/\(String(format: "%02d", index)).png"))
        }
        try Data("not scanned".utf8).write(to: URL(fileURLWithPath: "\(folder)/readme.txt"))
        let lines = try await ActivateCLI.runInProcess(["scan", "--json-lines", "--jobs", "2", folder])
        #expect(lines.status == 0, "\(lines.stderr)")
        let objects = try lines.text.split(separator: "\n").map {
            try JSONDecoder().decode(ScanReport.self, from: Data($0.utf8))
        }
        let expectedOrder = (0..<3).flatMap { sub in
            stride(from: sub, to: 12, by: 3).map { "\(folder)/\(sub)/\(String(format: "%02d", $0)).png" }
        }
        #expect(objects.map(\.file) == expectedOrder)
        #expect(
            objects.map { $0.symbols.first?.text }
                == expectedOrder.map { "code \(Int(($0 as NSString).lastPathComponent.prefix(2))!)" })
        // One job or two: the same output.
        let serial = try await ActivateCLI.runInProcess(["scan", "--json-lines", "--jobs", "1", folder])
        #expect(serial.stdout == lines.stdout)
    }

    @Test("--effort fast is one zbar pass; --verbose says which pass found the code")
    func effort() async throws {
        let micro = SourceTree.path("Tests/ActivationImagingTests/Fixtures/corpus/microqrcode-1/M2-Alpha.png")
        let fast = try await ActivateCLI.runInProcess(["scan", "--effort", "fast", micro])
        #expect(fast.status == 4)
        let normal = try await ActivateCLI.runInProcess(["scan", "--verbose", micro])
        #expect(normal.status == 0)
        #expect(normal.text == "MicroQR-Code: ABC\n")
        #expect(normal.stderr.contains("1 found by zxing/once (pass 1)"))
    }

    @Test("without the zxing helper the scan still works, with zbar alone")
    func withoutHelper() async throws {
        let micro = SourceTree.path("Tests/ActivationImagingTests/Fixtures/corpus/microqrcode-1/M2-Alpha.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ActivateCLI.executable)
        process.arguments = ["scan", code, micro]
        process.environment = ["ACTIVATE_ZXING_HELPER": "/nonexistent/helper", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 4)
        #expect(text == "\(code): QR-Code: Hello Zürich 日本\n")
    }

    /// A PNG whose header declares a size and whose data is nonsense.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("IEND", [])
    }

    @Test("the zxing helper is found beside activate, else on PATH; without it Micro QR is not read")
    func helperLookup() async throws {
        let image = SourceTree.path("Tests/ActivationImagingTests/Fixtures/corpus/microqrcode-1/M2-Alpha.png")
        let alone = try TemporaryFolder(prefix: "activate-cli")
        // Copied by a child process: a copy written by this process could still be open for
        // writing in a child another test spawns meanwhile, and executing it would fail (ETXTBSY, 126).
        #expect(try await Tool.run("/bin/cp", [ActivateCLI.executable, alone.file("activate")]).status == 0)
        let buildFolder = (ActivateCLI.executable as NSString).deletingLastPathComponent
        let without = try await Tool.run(
            "/usr/bin/env", ["PATH=/usr/bin:/bin", alone.file("activate"), "scan", "--raw", image])
        #expect(without.status == 4)
        let onPath = try await Tool.run(
            "/usr/bin/env", ["PATH=\(buildFolder):/usr/bin:/bin", alone.file("activate"), "scan", "--raw", image])
        #expect(onPath.status == 0 && onPath.text == "ABC\n", "\(onPath.stderr)")
        #expect(try await ActivateCLI.runInProcess(["scan", "--raw", image]).text == "ABC\n")
    }
}
