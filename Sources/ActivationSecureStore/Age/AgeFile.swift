import ActivationConfiguration
import Crypto
import CryptoExtras
import Foundation

/// An age v1 file (c2sp.org/age) with its one scrypt recipient: how the secure store lies on disk,
/// so that its owner can open it with Debian's `age -d` and the passcode.
///
/// The framing is ours; every primitive is swift-crypto's: scrypt wraps the 16-byte file key
/// under the passphrase, HKDF-SHA-256 derives the header and payload keys from it, HMAC-SHA-256
/// authenticates the header and ChaCha20-Poly1305 seals the payload in 64 KiB chunks (STREAM).
/// Parsing is strict, as the spec asks: canonical unpadded base64, one scrypt stanza alone, a
/// work factor within ``maxWorkFactor``, and no chunk out of place.
package struct AgeHeader: Sendable, Hashable {
    /// The scrypt salt (16 bytes).
    package var salt: [UInt8]
    /// log2 of scrypt's N.
    package var workFactor: Int
    /// The file key sealed under the scrypt key (32 bytes).
    package var wrappedFileKey: [UInt8]
    /// HMAC-SHA-256 of ``authenticatedBytes`` under the header key.
    package var mac: [UInt8]
    /// The header up to and including `---`: what the MAC covers.
    package var authenticatedBytes: [UInt8]
    /// The whole header's length, its last newline included: where the payload starts.
    package var length: Int

    /// The bytes of the header, as written.
    package var bytes: [UInt8] {
        authenticatedBytes + Array(" \(Base64.encodeUnpadded(mac))\n".utf8)
    }
}

package enum AgeFormat {
    static let versionLine = "age-encryption.org/v1"
    static let armorLine = "-----BEGIN AGE ENCRYPTED FILE-----"
    static let scryptLabel = Array("age-encryption.org/v1/scrypt".utf8)
    /// The file key's length.
    package static let fileKeyLength = 16
    static let saltLength = 16
    /// Plaintext bytes per payload chunk.
    static let chunkSize = 64 << 10
    static let tagSize = 16
    /// A header with one scrypt stanza is about 150 bytes; anything much longer is not ours.
    static let maxHeaderBytes = 1024
    /// The highest scrypt work factor a file may ask for, age's own limit: 2^22 costs 4 GiB of
    /// memory. rage and pyrage pick the factor that takes about a second on the writing machine
    /// (2^20 here), so a lower limit would refuse the files they write on faster ones.
    package static let maxWorkFactor = 22

    // MARK: Reading

    /// Whether `file` begins as a passphrase-encrypted age file does: the version line, then a
    /// scrypt stanza. What a secure store is known by, damaged or not; an age file encrypted to
    /// someone's key, an armored one and any other file are not stores.
    package static func startsLikeScryptFile(_ file: some Collection<UInt8>) -> Bool {
        file.starts(with: Array("\(versionLine)\n-> scrypt ".utf8))
    }

    /// Parses the header at the start of `file`.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` saying what is wrong, naming `source`.
    package static func header(of file: [UInt8], source: String) throws -> AgeHeader {
        var lines = HeaderLines(bytes: file, source: source)
        if file.starts(with: Array(armorLine.utf8)) {
            throw damaged(
                source, "it is an ASCII-armored age file; keep the binary form (age -d, then age -p without -a)")
        }
        guard try lines.next() == versionLine else {
            throw damaged(source, "it is not an age file (the first line is not \"\(versionLine)\")")
        }
        let stanza = try lines.next()
        guard stanza.hasPrefix("-> ") else { throw damaged(source, "the header has no recipient stanza") }
        let arguments = stanza.dropFirst(3).split(separator: " ", omittingEmptySubsequences: false)
        guard let type = arguments.first, !arguments.contains(where: \.isEmpty) else {
            throw damaged(source, "a recipient stanza is malformed")
        }
        guard type == "scrypt" else {
            throw damaged(source, "the file is encrypted to an age \(type.prefix(32)) recipient, not with a passphrase")
        }
        guard arguments.count == 3 else {
            throw damaged(source, "the scrypt stanza has \(arguments.count - 1) arguments, not 2")
        }
        guard let salt = Base64.decodeUnpaddedCanonical(arguments[1]), salt.count == saltLength else {
            throw damaged(source, "the scrypt salt is not 16 bytes of canonical base64")
        }
        let factorText = arguments[2]
        guard factorText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), factorText.count <= 2,
            !(factorText.hasPrefix("0")),
            let workFactor = Int(factorText), workFactor > 0
        else {
            throw damaged(source, "the scrypt work factor is not a whole number from 1 to \(maxWorkFactor)")
        }
        guard workFactor <= maxWorkFactor else {
            let memory = workFactor <= 50 ? "\(1 << (workFactor - 10)) MiB" : "more"
            throw SecureStoreError(
                .storeDamaged, source: source,
                """
                the scrypt work factor 2^\(workFactor) is above the limit 2^\(maxWorkFactor) \
                (it would need \(memory) of memory)
                """
            )
        }
        // The body: lines of 64 characters, ended by a shorter one. 32 bytes are one line of 43.
        var body = ""
        while true {
            let line = try lines.next()
            guard line.count <= 64 else { throw damaged(source, "a stanza body line is longer than 64 characters") }
            body += line
            if line.count < 64 { break }
            guard body.count < 256 else { throw damaged(source, "the scrypt stanza body is too long") }
        }
        guard let wrapped = Base64.decodeUnpaddedCanonical(body), wrapped.count == fileKeyLength + tagSize else {
            throw damaged(source, "the scrypt stanza body is not a 32-byte sealed file key")
        }
        let macStart = lines.offset
        let last = try lines.next()
        if last.hasPrefix("-> ") {
            throw damaged(source, "the header has more than one recipient; a passphrase stanza must be alone")
        }
        guard last.hasPrefix("--- "), let mac = Base64.decodeUnpaddedCanonical(last.dropFirst(4)), mac.count == 32
        else {
            throw damaged(source, "the header's MAC line is malformed")
        }
        return AgeHeader(
            salt: salt, workFactor: workFactor, wrappedFileKey: wrapped, mac: mac,
            authenticatedBytes: Array(file[0..<(macStart + 3)]), length: lines.offset)
    }

    /// The file key, unwrapped with `passphrase`; `nil` when the passphrase is not the one it was
    /// sealed with (or the stanza was changed: the two cannot be told apart).
    package static func unwrapFileKey(_ header: AgeHeader, passphrase: [UInt8]) throws -> SymmetricKey? {
        let key = try scryptKey(passphrase: passphrase, salt: header.salt, workFactor: header.workFactor)
        let sealed = header.wrappedFileKey
        guard
            let box = try? ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12)),
                ciphertext: sealed[0..<fileKeyLength], tag: sealed[fileKeyLength...]),
            let fileKey = try? ChaChaPoly.open(box, using: key)
        else { return nil }
        return SymmetricKey(data: fileKey)
    }

    /// Whether `fileKey` is the key the header was written with (its MAC verifies).
    package static func verify(_ header: AgeHeader, fileKey: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(
            header.mac, authenticating: header.authenticatedBytes, using: headerKey(fileKey))
    }

    /// The payload after `header`, decrypted and authenticated.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` when any chunk was changed, moved, cut or added.
    package static func decryptPayload(of file: [UInt8], header: AgeHeader, fileKey: SymmetricKey, source: String)
        throws -> [UInt8]
    {
        let payload = file[header.length...]
        guard payload.count >= 16 + tagSize else { throw damaged(source, "the payload is cut short") }
        let nonce = payload.prefix(16)
        let key = payloadKey(fileKey, nonce: nonce)
        var plaintext: [UInt8] = []
        var offset = payload.startIndex + 16
        var counter: UInt64 = 0
        while true {
            let remaining = payload.endIndex - offset
            let isLast = remaining <= chunkSize + tagSize
            let chunk = payload[offset..<(offset + min(remaining, chunkSize + tagSize))]
            guard chunk.count >= tagSize, !(isLast && chunk.count == tagSize && counter > 0) else {
                throw damaged(source, "the payload ends with an empty chunk")
            }
            guard
                let box = try? ChaChaPoly.SealedBox(
                    nonce: chunkNonce(counter, last: isLast),
                    ciphertext: chunk.dropLast(tagSize), tag: chunk.suffix(tagSize)),
                let opened = try? ChaChaPoly.open(box, using: key)
            else {
                throw damaged(source, "the payload does not authenticate (chunk \(counter) was changed, cut or moved)")
            }
            plaintext += opened
            if isLast { return plaintext }
            offset += chunk.count
            counter += 1
        }
    }

    // MARK: Writing

    /// A new header sealing `fileKey` under `passphrase` at `workFactor` (a fresh salt).
    package static func makeHeader(fileKey: SymmetricKey, passphrase: [UInt8], workFactor: Int) throws -> AgeHeader {
        let salt = randomBytes(saltLength)
        let key = try scryptKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
        let box = try ChaChaPoly.seal(
            fileKey.withUnsafeBytes { Array($0) }, using: key,
            nonce: ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12)))
        let wrapped = Array(box.ciphertext) + Array(box.tag)
        let saltText = Base64.encodeUnpadded(salt)
        let wrappedText = Base64.encodeUnpadded(wrapped)
        let text = "\(versionLine)\n-> scrypt \(saltText) \(workFactor)\n\(wrappedText)\n---"
        let authenticated = Array(text.utf8)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: authenticated, using: headerKey(fileKey)))
        var header = AgeHeader(
            salt: salt, workFactor: workFactor, wrappedFileKey: wrapped, mac: mac, authenticatedBytes: authenticated,
            length: 0)
        header.length = header.bytes.count
        return header
    }

    /// `plaintext` sealed as an age payload under `fileKey` (a fresh nonce).
    package static func encryptPayload(_ plaintext: [UInt8], fileKey: SymmetricKey) throws -> [UInt8] {
        let nonce = randomBytes(16)
        let key = payloadKey(fileKey, nonce: nonce[...])
        var output = nonce
        output.reserveCapacity(16 + plaintext.count + (plaintext.count / chunkSize + 1) * tagSize)
        var offset = 0
        var counter: UInt64 = 0
        repeat {
            let end = min(offset + chunkSize, plaintext.count)
            let isLast = end == plaintext.count
            let box = try ChaChaPoly.seal(plaintext[offset..<end], using: key, nonce: chunkNonce(counter, last: isLast))
            output += box.ciphertext
            output += box.tag
            offset = end
            counter += 1
        } while offset < plaintext.count
        return output
    }

    /// A new random file key.
    package static func makeFileKey() -> SymmetricKey { SymmetricKey(data: randomBytes(fileKeyLength)) }

    // MARK: Keys

    static func scryptKey(passphrase: [UInt8], salt: [UInt8], workFactor: Int) throws -> SymmetricKey {
        // BoringSSL's scrypt takes the passphrase's address, which an empty array does not have.
        guard !passphrase.isEmpty else {
            throw SecureStoreError(.passcodeRejected, "an empty passcode cannot protect a store")
        }
        return try KDF.Scrypt.deriveKey(
            from: passphrase, salt: scryptLabel + salt, outputByteCount: 32,
            rounds: 1 << workFactor, blockSize: 8, parallelism: 1)
    }

    static func headerKey(_ fileKey: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, salt: [UInt8](), info: Array("header".utf8), outputByteCount: 32)
    }

    static func payloadKey(_ fileKey: SymmetricKey, nonce: ArraySlice<UInt8>) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, salt: Array(nonce), info: Array("payload".utf8), outputByteCount: 32)
    }

    /// STREAM's nonce: an 11-byte big-endian chunk counter, then 1 for the last chunk, else 0.
    static func chunkNonce(_ counter: UInt64, last: Bool) throws -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[10 - index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        bytes[11] = last ? 1 : 0
        return try ChaChaPoly.Nonce(data: bytes)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func damaged(_ source: String, _ why: String) -> SecureStoreError {
        SecureStoreError(.storeDamaged, source: source, "the store is damaged: \(why)")
    }
}

/// The header's lines, each ended by a newline (LF only), read without running past
/// ``AgeFormat/maxHeaderBytes``.
private struct HeaderLines {
    let bytes: [UInt8]
    let source: String
    var offset = 0

    init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    mutating func next() throws -> String {
        let limit = min(bytes.count, AgeFormat.maxHeaderBytes)
        guard offset < limit, let end = bytes[offset..<limit].firstIndex(of: 0x0A) else {
            throw AgeFormat.damaged(source, limit == bytes.count ? "the header is cut short" : "the header has no end")
        }
        let line = bytes[offset..<end]
        // The header is ASCII text without control characters (VCHAR and space).
        guard line.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw AgeFormat.damaged(source, "the header holds a byte that is not printable ASCII")
        }
        offset = end + 1
        return String(decoding: line, as: UTF8.self)
    }
}
