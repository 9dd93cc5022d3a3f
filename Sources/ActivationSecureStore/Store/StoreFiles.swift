import ActivationConfiguration
import FileAccess
import Foundation

/// The files of a store and how they are written: the folder (0700, its owner's alone), the
/// store file, the state file and the device secret beside it, and the two-step write that keeps
/// a store openable when a write is interrupted.
enum StoreFiles {
    /// The folder must be a real folder that only its owner can write (made 0700 when missing).
    static func prepareFolder(_ location: SecureStoreLocation) throws {
        try FileIO.makeDirectory(location.folder, mode: 0o700)
        try checkFolder(location)
    }

    /// Refuses a folder that others can write: whoever can, can swap the store, its state or its secret.
    static func checkFolder(_ location: SecureStoreLocation) throws {
        try FileIO.converting { () throws(FileFailure) in
            let status = try Files.status(location.folder)
            guard let status, status.type == .directory else {
                // A link could be turned to another folder between two commands; the folder it
                // points to is the place to give.
                let linkMessage = """
                    the store's folder is a symbolic link; only a real folder is used \
                    (give --store a path in the folder it points to)
                    """
                throw FileFailure(
                    .unwritable, location.folder,
                    status?.type == .symbolicLink ? linkMessage : "the store's folder is not a folder")
            }
            try Files.requirePrivate(location.folder, status, what: "the store's folder")
        }
    }

    static func readStoreFile(_ location: SecureStoreLocation) throws -> [UInt8] {
        try FileIO.converting { () throws(FileFailure) in
            guard let status = try Files.status(location.path) else {
                throw FileFailure(.notFound, location.path, "no store")
            }
            try Files.requireSecret(location.path, status, what: "the store")
        }
        return try FileIO.read(location.path, limit: SecureStore.maxFileBytes, followLinks: false)
    }

    /// The digest of the header on disk and those its state accepts, to keep accepting while a
    /// store is replaced; empty when there is no readable store.
    static func currentDigests(_ location: SecureStoreLocation) -> [String] {
        guard let file = try? readStoreFile(location),
            let header = try? AgeFormat.header(of: file, source: location.path)
        else { return [] }
        return [StoreState.digest(header)]
    }

    /// The device secret beside the store (the age passphrase), or `nil` when there is none.
    static func deviceSecret(_ location: SecureStoreLocation) throws -> [UInt8]? {
        guard FileIO.exists(location.deviceSecretPath) else { return nil }
        let bytes = try FileIO.readSecret(location.deviceSecretPath, limit: 4096, what: "the store's device secret")
        let secret = Array(bytes.prefix { $0 != 0x0A })
        return secret.isEmpty ? nil : secret
    }

    static func readState(_ location: SecureStoreLocation) throws -> StoreState? {
        guard FileIO.exists(location.statePath) else { return nil }
        let bytes = try FileIO.readSecret(
            location.statePath, limit: StoreState.maxBytes, what: "the store's state file")
        return try StoreState(json: bytes, source: location.statePath)
    }

    static func writeState(_ state: StoreState, at location: SecureStoreLocation) throws {
        try FileIO.write(
            Array(JSONWriter.pretty(state.value).utf8) + [0x0A], to: location.statePath, replace: true, mode: 0o600)
    }

    /// Writes a store file with a new header in two steps around its state: first the state
    /// accepts both the header on disk and the new one, then the file is renamed into place,
    /// then the state accepts only the new one. Killed at any moment, the store opens with the
    /// old passcode or the new.
    static func commit(
        _ file: [UInt8], header: AgeHeader, state: StoreState, alsoAccepting previous: [String],
        at location: SecureStoreLocation, replace: Bool
    ) throws {
        var interim = state
        interim.headerDigests = Array((state.headerDigests + previous).prefix(4))
        try writeState(interim, at: location)
        try FileIO.write(file, to: location.path, replace: replace, mode: 0o600)
        try writeState(state, at: location)
    }

    /// Deletes the store, its state, its device secret and the key the keyring keeps for it;
    /// `true` when a store file was there.
    @discardableResult
    static func removeFiles(_ location: SecureStoreLocation) throws -> Bool {
        KeyringCache(storePath: location.path).forget()
        let removed = try FileIO.remove(location.path)
        try FileIO.remove(location.statePath)
        try FileIO.remove(location.deviceSecretPath)
        return removed
    }
}
