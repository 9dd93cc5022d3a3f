import Foundation

/// The images the imaging tests read (`Tests/ActivationImagingTests/Fixtures` in the checkout),
/// for the unit and the integration targets alike.
public enum ImageFixture {
    /// The fixtures' folder.
    public static let directory = SourceTree.path("Tests/ActivationImagingTests/Fixtures")

    /// The path of the fixture `name` (`corpus/qr/x.png`).
    public static func path(_ name: String) -> String { "\(directory)/\(name)" }

    /// The bytes of the fixture `name`.
    public static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Images under `corpus/<category>/` with their expected text (`<stem>.txt`).
    public static func corpusSamples() throws -> [(image: String, expected: [UInt8])] {
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
