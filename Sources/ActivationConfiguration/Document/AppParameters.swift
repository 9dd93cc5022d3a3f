/// `AppParameters.plist` of a generated iOS project: the app's identity and destinations, which a
/// transformer needs beside the server's document. It names no server.
public struct AppParameters: Sendable, Hashable {
    /// `Application Identifier`.
    public var applicationID: String
    /// `Application Type`, if present.
    public var applicationType: String?
    /// `Destinations`: destination name → destination id.
    public var destinations: [String: String]
    /// `Digital Signature Public Key`: the file name of the PEM key that verifies signed codes.
    public var publicKeyFile: String?

    /// App parameters for `applicationID`.
    public init(
        applicationID: String, applicationType: String? = nil, destinations: [String: String] = [:],
        publicKeyFile: String? = nil
    ) {
        self.applicationID = applicationID
        self.applicationType = applicationType
        self.destinations = destinations
        self.publicKeyFile = publicKeyFile
    }

    /// Reads app parameters from a property-list dictionary; `nil` when it is not one (no
    /// `Application Identifier`, or it has a `host`: then it is a configuration document).
    ///
    /// - Throws: ``ConfigurationError`` naming the key when a known key has the wrong type.
    public init?(_ object: ConfigurationObject, source: String) throws {
        guard let identifier = object["Application Identifier"], object["host"] == nil else { return nil }
        let reader = ValueReader(source: source, limits: .default)
        let root = ConfigurationPath.root
        applicationID = try reader.string(identifier, at: root.appending("Application Identifier"))
        applicationType = try reader.optionalString(object, "Application Type", at: root)
        publicKeyFile = try reader.optionalString(object, "Digital Signature Public Key", at: root)
        destinations = [:]
        if let value = object["Destinations"] {
            let path = root.appending("Destinations")
            guard let entries = value.objectValue else {
                throw ConfigurationError(
                    .wrongType, source: source, at: path,
                    "expected a dictionary of destination names, found \(value.kindDescription)")
            }
            for (name, id) in entries {
                destinations[name] = try reader.string(id, at: path.appending(name))
            }
        }
    }
}
