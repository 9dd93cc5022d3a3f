import Foundation
import TestSupport
import Testing

/// Swift in the README, the pages under docs/, benchmarks/README.md and the DocC articles is
/// compiled code: every ```swift block follows a marker that says which compiled file it is, and
/// the block must match it.
///
/// - `<!-- compiled: PATH -->`: the block is exactly the file at PATH, a sample target's source,
///   which the package builds and `make test` runs.
/// - `<!-- excerpt: PATH -->`: the block is a run of whole lines of the file at PATH, as they stand
///   (a sample's source, or the README's consumer manifest).
/// - `<!-- consumer: Package.swift -->`: the README's consumer manifest, which
///   `scripts/consumer-check.sh` builds with the compiled `main.swift` (`make test`); the script
///   reads both from README.md, so that is where they must stay.
@Suite("README and article snippets")
struct ReadmeSnippetTests {
    /// The README, every page under docs/, benchmarks/README.md, and every article of every DocC
    /// catalog.
    static func documents() throws -> [String] {
        var paths = ["README.md"]
        let docs = SourceTree.path("docs")
        for page in try FileManager.default.contentsOfDirectory(atPath: docs).sorted() where page.hasSuffix(".md") {
            paths.append("docs/\(page)")
        }
        if FileManager.default.fileExists(atPath: SourceTree.path("benchmarks/README.md")) {
            paths.append("benchmarks/README.md")
        }
        let sources = SourceTree.path("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources).sorted() {
            let targetPath = "\(sources)/\(target)"
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: targetPath)) ?? []
            where catalog.hasSuffix(".docc") {
                for article in try FileManager.default.contentsOfDirectory(atPath: "\(targetPath)/\(catalog)").sorted()
                where article.hasSuffix(".md") {
                    paths.append("Sources/\(target)/\(catalog)/\(article)")
                }
            }
        }
        return paths
    }

    @Test("every Swift block is marked, and matches the compiled file it names")
    func compiledBlocks() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 6, "\(documents)")  // the README and the articles of four catalogs
        #expect(documents.filter { $0.hasPrefix("docs/") }.count >= 10, "\(documents)")  // the reference pages
        let package = try String(contentsOfFile: SourceTree.path("Package.swift"), encoding: .utf8)
        var compiled = 0
        for document in documents {
            let text = try String(contentsOfFile: SourceTree.path(document), encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line == "```swift" {
                let marker = index > 0 ? lines[index - 1] : ""
                guard let end = lines[(index + 1)...].firstIndex(of: "```") else {
                    Issue.record("\(document):\(index + 1): a Swift block that never ends")
                    continue
                }
                let block = lines[(index + 1)..<end].joined(separator: "\n") + "\n"
                let place = "\(document):\(index + 1)"
                if marker == "<!-- consumer: Package.swift -->" {
                    #expect(
                        document == "README.md" && block.contains(#".package(path: "../activate", traits: [])"#),
                        "\(place)")
                } else if let path = Self.path(in: marker, kind: "compiled") {
                    let file = try String(contentsOfFile: SourceTree.path(path), encoding: .utf8)
                    #expect(block == file, "\(place): the block differs from \(path)")
                    #expect(
                        package.contains("path: \"\((path as NSString).deletingLastPathComponent)\""),
                        "\(path) is no target's source")
                } else if let path = Self.path(in: marker, kind: "excerpt") {
                    let file = try String(contentsOfFile: SourceTree.path(path), encoding: .utf8)
                    #expect(
                        ("\n" + file).contains("\n" + block),
                        "\(place): the block is not a run of whole lines of \(path)")
                } else {
                    Issue.record("\(place): a Swift block without a compiled, excerpt or consumer marker")
                }
                compiled += 1
            }
        }
        #expect(compiled >= 10, "\(compiled) blocks")
    }

    @Test("the compiled samples quoted outside the README are quoted in the docs pages")
    func docsPagesQuoteSamples() throws {
        // The pages moved out of the README keep their compiled samples, checked above.
        for (page, path) in [
            ("docs/discovery-service.md", "SampleCodes/DiscoveryService/main.swift"),
            ("docs/activation-codes.md", "SampleCodes/VerifyActivationCode/main.swift"),
        ] {
            let text = try String(contentsOfFile: SourceTree.path(page), encoding: .utf8)
            #expect(
                text.contains("<!-- compiled: \(path) -->\n```swift\n")
                    || text.contains("<!-- excerpt: \(path) -->\n```swift\n"),
                "\(page) no longer quotes \(path)")
        }
    }

    /// PATH of a `<!-- kind: PATH -->` line.
    static func path(in marker: String, kind: String) -> String? {
        let prefix = "<!-- \(kind): "
        let suffix = " -->"
        guard marker.hasPrefix(prefix), marker.hasSuffix(suffix), marker.count > prefix.count + suffix.count else {
            return nil
        }
        return String(marker.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
