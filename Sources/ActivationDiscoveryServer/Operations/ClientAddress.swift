import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network, `192.0.2.0/24` or `2001:db8::/32` (a bare address is a /32 or /128).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    let address: [UInt8]
    let prefix: Int

    /// Parses CIDR notation; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let address = IPNetwork.bytes(of: first) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        self.address = address
    }

    /// The network in CIDR notation, e.g. `10.0.0.0/8`.
    public var description: String {
        "\(IPNetwork.text(of: address) ?? "?")/\(prefix)"
    }

    /// Whether `bytes` (4 or 16) lie in this network.
    func contains(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == address.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address, bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// The 4 or 16 bytes of an IP address in text form; an IPv4-mapped IPv6 address gives its IPv4 bytes.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// The canonical text of 4 or 16 address bytes.
    static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        return done ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}

/// Whom the guessing limits count a request against.
enum ClientAddress {
    /// The peer's address; when the peer is a trusted proxy, the right-most address of
    /// `X-Forwarded-For` that is not a trusted proxy itself (the left part is the client's to forge).
    /// Always canonical address text, never header text.
    static func of(peer: SocketAddress?, forwardedFor: [String], trusted: [IPNetwork]) -> String {
        guard let peerText = peer?.ipAddress, var current = IPNetwork.bytes(of: peerText) else { return "unknown" }
        if !trusted.isEmpty {
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            for hop in hops.reversed() {
                guard trusted.contains(where: { $0.contains(current) }) else { break }
                guard let bytes = IPNetwork.bytes(of: hop) else { break }  // garbage: stop at the last proxy
                current = bytes
            }
        }
        return IPNetwork.text(of: current) ?? "unknown"
    }
}
