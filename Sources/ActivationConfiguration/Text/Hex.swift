/// Bytes as lower-case hexadecimal text (key ids, digests), for the whole package.
package enum Hex {
    /// `[0xAB, 0x01]` → `ab01`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
