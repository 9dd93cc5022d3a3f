import ActivationConfiguration
import Crypto
import Foundation
import TestSupport
import Testing

@testable import ActivationSecureStore

@Suite("The age v1 container: scrypt stanza, header MAC, STREAM payload")
struct AgeFormatTests {
    static let passphrase = Array("correct horse battery staple".utf8)

    static func file(_ plaintext: [UInt8], workFactor: Int = 4) throws -> (bytes: [UInt8], key: SymmetricKey) {
        let key = AgeFormat.makeFileKey()
        let header = try AgeFormat.makeHeader(fileKey: key, passphrase: passphrase, workFactor: workFactor)
        return (header.bytes + (try AgeFormat.encryptPayload(plaintext, fileKey: key)), key)
    }

    @Test("round trip across chunk boundaries", arguments: [0, 1, 65_535, 65_536, 65_537, 200_000])
    func roundTrip(size: Int) throws {
        var generator = SplitMix64(seed: UInt64(size))
        let plaintext = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let (bytes, key) = try Self.file(plaintext)
        let header = try AgeFormat.header(of: bytes, source: "t.age")
        #expect(header.workFactor == 4)
        let unwrapped = try #require(try AgeFormat.unwrapFileKey(header, passphrase: Self.passphrase))
        #expect(unwrapped == key)
        #expect(AgeFormat.verify(header, fileKey: unwrapped))
        #expect(
            try AgeFormat.decryptPayload(of: bytes, header: header, fileKey: unwrapped, source: "t.age") == plaintext)
        // The payload is the nonce, then one chunk per 64 KiB (at least one), each with its tag.
        let chunks: Int = max(1, (size + 65_535) / 65_536)
        let expected: Int = 16 + size + 16 * chunks
        #expect(bytes.count - header.length == expected)
    }

    @Test("the header is age's text: version line, one scrypt stanza, MAC line")
    func headerText() throws {
        let (bytes, _) = try Self.file(Array("x".utf8), workFactor: 10)
        let header = try AgeFormat.header(of: bytes, source: "t.age")
        let lines = String(decoding: bytes[0..<header.length], as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == "age-encryption.org/v1")
        #expect(lines[1].hasPrefix("-> scrypt ") && lines[1].hasSuffix(" 10"))
        #expect(lines[1].split(separator: " ")[2].count == 22)  // 16 bytes, unpadded
        #expect(lines[2].count == 43)  // 32 bytes, unpadded
        #expect(lines[3].hasPrefix("--- ") && lines[3].count == 47)
    }

    @Test("a wrong passphrase unwraps nothing; a wrong key fails the MAC")
    func wrongKeys() throws {
        let (bytes, _) = try Self.file(Array("secret".utf8))
        let header = try AgeFormat.header(of: bytes, source: "t.age")
        #expect(try AgeFormat.unwrapFileKey(header, passphrase: Array("Correct horse battery staple".utf8)) == nil)
        #expect(!AgeFormat.verify(header, fileKey: AgeFormat.makeFileKey()))
        #expect(throws: SecureStoreError.self) { try AgeFormat.unwrapFileKey(header, passphrase: []) }
    }

    /// Replaces the header's text with `edit` applied to it and parses.
    func parse(editing edit: (String) -> String) throws -> AgeHeader {
        let (bytes, _) = try Self.file(Array("secret".utf8))
        let header = try AgeFormat.header(of: bytes, source: "t.age")
        let text = edit(String(decoding: bytes[0..<header.length], as: UTF8.self))
        return try AgeFormat.header(of: Array(text.utf8) + bytes[header.length...], source: "t.age")
    }

    @Test("strict parsing: each malformed header is refused as damaged, with the reason")
    func strictHeader() throws {
        func refused(_ reason: String, _ edit: (String) -> String) {
            do {
                _ = try parse(editing: edit)
                Issue.record("accepted: \(reason)")
            } catch let error as SecureStoreError {
                #expect(error.code == .storeDamaged)
                #expect(error.message.contains(reason), "\(error.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
        refused("not an age file") {
            $0.replacingOccurrences(of: "age-encryption.org/v1", with: "age-encryption.org/v2")
        }
        refused("X25519 recipient") { $0.replacingOccurrences(of: "-> scrypt", with: "-> X25519") }
        refused("work factor 2^23 is above the limit 2^22") { $0.replacingOccurrences(of: " 4\n", with: " 23\n") }
        refused("not a whole number from 1 to 22") { $0.replacingOccurrences(of: " 4\n", with: " 04\n") }
        refused("not a whole number from 1 to 22") { $0.replacingOccurrences(of: " 4\n", with: " 0\n") }
        refused("arguments, not 2") { $0.replacingOccurrences(of: " 4\n", with: " 4 x\n") }
        refused("not printable ASCII") { $0.replacingOccurrences(of: "\n---", with: "\r\n---") }
        refused("MAC line is malformed") { $0.replacingOccurrences(of: "--- ", with: "---") }
        refused("more than one recipient") { text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return ([lines[0], lines[1], lines[2], lines[1], lines[2]] + lines[3...]).joined(separator: "\n")
        }
        // Padding and non-canonical base64 (a set unused low bit) are both refused.
        refused("salt is not 16 bytes of canonical base64") { text in
            let salt = text.split(separator: "\n")[1].split(separator: " ")[2]
            return text.replacingOccurrences(of: String(salt), with: salt + "==")
        }
        refused("salt is not 16 bytes of canonical base64") { text in
            let salt = String(text.split(separator: "\n")[1].split(separator: " ")[2])
            let last = salt.last ?? "A"
            // In 22 characters the last carries 2 unused bits; a character differing only there is non-canonical.
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            let index = alphabet.firstIndex(of: last) ?? 0
            return text.replacingOccurrences(of: salt, with: salt.dropLast() + String(alphabet[index ^ 1]))
        }
        let (bytes, _) = try Self.file([])
        // Errors are equal by code: the reason is compared as well.
        func refusal(_ body: () throws -> AgeHeader) -> String? {
            do {
                _ = try body()
                return nil
            } catch let error as SecureStoreError where error.code == .storeDamaged {
                return error.reason
            } catch {
                return "\(error)"
            }
        }
        #expect(
            refusal {
                try AgeFormat.header(
                    of: Array("-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n-----END AGE ENCRYPTED FILE-----\n".utf8),
                    source: "t.age")
            } == """
                t.age: the store is damaged: it is an ASCII-armored age file; keep the binary form (age -d, then age -p \
                without -a)
                """)
        #expect(
            refusal { try AgeFormat.header(of: Array(bytes.prefix(30)), source: "t.age") }
                == "t.age: the store is damaged: the header is cut short")
    }

    @Test("the payload: a changed, cut, extended or reordered chunk is refused")
    func payloadTampering() throws {
        let plaintext = [UInt8](repeating: 7, count: 150_000)
        let (bytes, key) = try Self.file(plaintext)
        let header = try AgeFormat.header(of: bytes, source: "t.age")
        func refused(_ file: [UInt8]) {
            #expect(throws: SecureStoreError.self) {
                try AgeFormat.decryptPayload(of: file, header: header, fileKey: key, source: "t.age")
            }
        }
        var flipped = bytes
        flipped[header.length + 20] ^= 1
        refused(flipped)
        refused(Array(bytes.dropLast()))
        refused(Array(bytes.dropLast(plaintext.count - 2 * 65_536 + 16)))  // the last chunk removed whole
        refused(bytes + [0])
        refused(bytes + AgeFormat.randomBytes(16))  // an empty final chunk that was never written
        let chunk = 65_536 + 16
        let first = header.length + 16
        let swapped =
            Array(bytes[..<first]) + bytes[(first + chunk)..<(first + 2 * chunk)] + bytes[first..<(first + chunk)]
            + bytes[(first + 2 * chunk)...]
        refused(swapped)
    }
}
