import Foundation

/// Paths of the test fixtures (copied into the test bundle by `resources: [.copy("Fixtures")]`).
enum Fixture {
    static let directory: String = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("Fixtures missing from the test bundle")
        }
        return url.path
    }()

    static func path(_ name: String) -> String { "\(directory)/\(name)" }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Images under `corpus/<category>/` with their expected text (`<stem>.txt`).
    static func corpusSamples() throws -> [(image: String, expected: [UInt8])] {
        let root = path("corpus")
        var samples: [(String, [UInt8])] = []
        for category in try FileManager.default.contentsOfDirectory(atPath: root).sorted() where !category.contains(".")
        {
            for file in try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(category)").sorted()
            where file.hasSuffix(".png") {
                let stem = String(file.dropLast(4))
                let expectedPath = "\(root)/\(category)/\(stem).txt"
                guard FileManager.default.fileExists(atPath: expectedPath) else { continue }
                samples.append(
                    ("corpus/\(category)/\(file)", Array(try Data(contentsOf: URL(fileURLWithPath: expectedPath)))))
            }
        }
        return samples
    }
}
