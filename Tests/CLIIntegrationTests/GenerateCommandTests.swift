import ActivationImaging
import Foundation
import TestSupport
import Testing

@Suite("activate generate")
struct GenerateCommandTests {
    let directory: TemporaryFolder

    init() throws { directory = try TemporaryFolder(prefix: "activate-cli") }

    @Test("payload from the argument, --input and stdin; format from the extension", arguments: QRRenderFormat.allCases)
    func sources(format: QRRenderFormat) async throws {
        let payloadFile = try directory.write("payload.bin", Array("from a file\n".utf8))
        let name =
            format == .terminal ? "out-\(format).term" : "out-\(format).\(format == .text ? "txt" : format.rawValue)"
        let output = directory.file(name)
        let formatArguments = format == .terminal ? ["--format", "terminal"] : []
        let result = try await ActivateCLI.runInProcess(
            ["generate", "--input", payloadFile, "--output", output] + formatArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("read back and verified"))
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        switch format {
        case .png:
            #expect(
                try await ActivateCLI.runInProcess(["scan", "--raw", output]).stdout == Array("from a file\n\n".utf8))
        case .svg: #expect(String(decoding: written, as: UTF8.self).hasPrefix("<?xml"))
        case .text: #expect(written.starts(with: Array("        ".utf8)))
        case .terminal: #expect(String(decoding: written, as: UTF8.self).contains("█"))
        }
    }

    @Test("argument and stdin payloads are encoded exactly")
    func exactPayload() async throws {
        let fromArgument = directory.file("argument.png")
        #expect(try await ActivateCLI.runInProcess(["generate", "Grüße", "-o", fromArgument]).status == 0)
        #expect(
            try await ActivateCLI.runInProcess(["scan", "--raw", "--binary", fromArgument]).stdout
                == Array("Grüße\n".utf8))
        let fromStdin = directory.file("stdin.png")
        #expect(try await ActivateCLI.run(["generate", "-o", fromStdin], stdin: [0, 1, 2, 0xFF]).status == 0)
        #expect(
            try await ActivateCLI.runInProcess(["scan", "--raw", "--binary", fromStdin]).stdout == [
                0, 1, 2, 0xFF, 0x0A,
            ])
    }

    @Test("without --output the code is drawn on standard output")
    func terminal() async throws {
        let result = try await ActivateCLI.run(["generate", "HELLO"])
        #expect(result.status == 0)
        #expect(result.text.contains("▀") || result.text.contains("▄"))
        #expect(result.stderr.contains("alphanumeric mode"))
    }

    @Test("an existing file is kept unless --force")
    func noClobber() async throws {
        let output = try directory.write("exists.png", Array("precious".utf8))
        let refused = try await ActivateCLI.runInProcess(["generate", "new", "-o", output])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(output): already exists; pass --force to replace it"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data("precious".utf8))
        #expect(try await ActivateCLI.runInProcess(["generate", "new", "-o", output, "--force"]).status == 0)
        #expect(try await ActivateCLI.runInProcess(["scan", "--raw", output]).text == "new\n")
    }

    @Test("a payload too large: its size and the largest that fits")
    func tooLarge() async throws {
        let result = try await ActivateCLI.run(
            ["generate", "--ec", "H", "-o", directory.file("big.png")], stdin: [UInt8](repeating: 0x61, count: 1300))
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                """
                payload: 1300 bytes do not fit in a QR code; at error-correction level H the largest byte payload is \
                1273
                """
            ))
        #expect(!FileManager.default.fileExists(atPath: directory.file("big.png")))
    }

    @Test("an unwritable output path is a clear error")
    func unwritable() async throws {
        let result = try await ActivateCLI.runInProcess(["generate", "x", "-o", "/nonexistent-directory/code.png"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent-directory/code.png: cannot write"))
    }

    @Test("--ec, --scale, --margin and --min-version shape the image")
    func shape() async throws {
        let output = directory.file("shaped.png")
        let result = try await ActivateCLI.runInProcess([
            "generate", "abc", "-o", output, "--ec", "q", "--scale", "3", "--margin", "2", "--min-version", "5",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains("QR version 5-Q"))
        let image = try ImageDecoder().decodeFile(output)
        #expect(image.width == (37 + 4) * 3)
    }
}
