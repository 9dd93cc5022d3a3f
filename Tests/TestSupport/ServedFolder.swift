import Foundation

/// A discovery folder (`discovery.json` and the documents of the configuration tests) in a
/// temporary folder, as `activate serve --folder` reads it.
public final class ServedFolder: Sendable {
    /// The configuration tests' documents.
    public static let documents = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ActivationConfigurationTests/Fixtures/documents").path
    let folder: TemporaryFolder
    /// The folder.
    public var path: String { folder.path }

    /// A folder with `index` as its `discovery.json` and copies of the documents `names`.
    public init(index: String, documents names: [String] = ["oauth-authorization-code.json", "android-basic.json"])
        throws
    {
        folder = try TemporaryFolder(prefix: "discovery")
        for name in names {
            try FileManager.default.copyItem(atPath: "\(Self.documents)/\(name)", toPath: folder.file(name))
        }
        _ = try folder.write("discovery.json", Array(index.utf8))
    }

    /// One application, `com.example.fieldservice`: the domain `example.com`, a code that works
    /// (`12345678`), one expired (`87654321`) and one without an end (`abcd-efgh-jk1n`).
    public static let standardIndex = """
        {"applications": {"com.example.fieldservice": {
          "domains": {"example.com": "oauth-authorization-code.json"},
          "codes": {"12345678": {"document": "android-basic.json", "expires": "2099-01-01T00:00:00Z"},
                    "87654321": {"document": "android-basic.json", "expires": "2020-01-01T00:00:00Z"},
                    "abcd-efgh-jk1n": {"document": "android-basic.json"}}}}}
        """
}
