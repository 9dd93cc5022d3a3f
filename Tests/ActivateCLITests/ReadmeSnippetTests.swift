import Foundation
import Testing

/// README code that claims to be compiled is: each ```swift block after a
/// `<!-- compiled: PATH -->` marker must be exactly the file at PATH, which the package builds
/// (a sample target) and `make test` runs.
@Suite("README snippets")
struct ReadmeSnippetTests {
    @Test("every block marked as compiled is the compiled file, verbatim")
    func compiledBlocks() throws {
        let readme = try String(contentsOfFile: SourceTree.path("README.md"), encoding: .utf8)
        let marker = try Regex(#"<!-- compiled: ([^ ]+) -->\n```swift\n"#)
        let matches = readme.matches(of: marker)
        #expect(!matches.isEmpty)
        for match in matches {
            let path = try #require(match.output[1].substring.map(String.init))
            let rest = readme[match.range.upperBound...]
            let block = try #require(rest.range(of: "```\n").map { String(rest[..<$0.lowerBound]) })
            let file = try String(contentsOfFile: SourceTree.path(path), encoding: .utf8)
            #expect(block == file, "README block for \(path) differs from the file")
            let package = try String(contentsOfFile: SourceTree.path("Package.swift"), encoding: .utf8)
            #expect(package.contains("path: \"\((path as NSString).deletingLastPathComponent)\""), "\(path) is no target's source")
        }
    }
}
