// libFuzzer targets, one per parser an attacker can reach (docs/security.md, "Fuzzing").
//
// Built only by `scripts/fuzz.sh` (ACTIVATE_FUZZ=1 adds this target to Package.swift), with
// `-sanitize=fuzzer,address`: libFuzzer supplies `main`, and `FUZZ_TARGET` picks the parser.
// Each target feeds the bytes to the public entry point a real input reaches and requires only
// that it returns or throws its error: a crash, a leak, a hang or a blow-up is the finding.

import ActivationDiscoveryProtocol
import CDeflate
import Crypto
import Foundation

// `@testable`: the AC1 payload target reaches the steps behind the signature check directly, and
// the PNG target the read-back of generated codes (scripts/fuzz.sh builds with -enable-testing).
@testable import ActivationConfiguration
@testable import ActivationImaging
@testable import ActivationOnboarding
@testable import ActivationSecureStore

/// The parsers, by the name `FUZZ_TARGET` (and `scripts/fuzz.sh`) uses.
let targets: [String: @Sendable ([UInt8]) -> Void] = [
    // Images, with a pixel cap small enough for fast iterations (the cap itself is tested).
    "png": { bytes in
        _ = try? ImageDecoder(maxPixels: 1 << 20).decode(bytes, name: "fuzz.png")
        // As the tools decode it (gAMA chunks cut out, alpha dropped), with its CRCs made right
        // too, so that the chunk walk and the cut reach libpng; made from the first decoding's
        // samples, it must be the same.
        let repaired = PNGFuzzing.repairingCRCs(bytes)
        let decoder = ImageDecoder(maxPixels: 1 << 16)
        let decoded = try? decoder.decodeWithToolsViews(repaired, name: "fuzz.png", keepingUpTo: 1 << 16)
        for tool in [ImageDecoder.ReaderTool.zbarimg, .zxingReader] {
            let fromFile = try? decoder.decode(repaired, name: "fuzz.png", as: tool)
            if let decoded, decoded.asTheToolsDecode(tool) != fromFile {
                fatalError("the tools' view from the decoded samples differs from the file's")
            }
        }
        // The same file with every chunk's CRC made right, so that mutations reach past the
        // CRC check into the direct path, whose pixels must then be libpng's.
        comparePNGPaths(PNGFuzzing.repairingCRCs(bytes), requireLibPNG: false, maxPixels: 1 << 16)
        // The packed 1-bit read that checks generated codes, at the size the IHDR claims (capped).
        guard bytes.count > 24 else { return }
        let width = Int(bytes[18]) << 8 | Int(bytes[19])
        let height = Int(bytes[22]) << 8 | Int(bytes[23])
        guard (1...1024).contains(width), (1...1024).contains(height) else { return }
        _ = try? PNGCodec.decodeBilevel(
            bytes, width: width, height: height, shrinkingBy: 1 + height % 5, name: "fuzz.png")
    },
    // PNGCodec's direct path against libpng on well-formed files of every layout the direct path
    // takes: the first bytes choose the layout, palette and transparency, the rest are the
    // filtered rows (filter bytes included), compressed here.
    "png-direct": { bytes in comparePNGPaths(PNGFuzzing.file(from: bytes), requireLibPNG: true, maxPixels: 1 << 12) },
    "jpeg": { bytes in
        _ = try? ImageDecoder(maxPixels: 1 << 20).decode(bytes, name: "fuzz.jpg")
        // zbarimg's view: the RGB decoding, reduced to ImageMagick's luma.
        _ = try? ImageDecoder(maxPixels: 1 << 20).decode(bytes, name: "fuzz.jpg", as: .zbarimg)
    },
    "pnm": { _ = try? ImageDecoder(maxPixels: 1 << 20).decode($0, name: "fuzz.pnm") },
    // QR Code Model 1 (our own reader): the bytes as a sampled module grid (format, placement,
    // Reed–Solomon, bit stream), as a bit stream alone, and as a small image for the locator.
    "qr-model1": { bytes in
        guard let first = bytes.first else { return }
        let version = 1 + Int(first) % 14
        let size = 17 + 4 * version
        let bits = bytes.dropFirst().prefix(size * size / 8 + 1).flatMap { byte in
            (0..<8).map { byte >> (7 - $0) & 1 == 1 }
        }
        let modules = (0..<size * size).map { $0 < bits.count && bits[$0] }
        _ = QRModel1Reader.decode(.init(size: size, modules: modules), version: version)
        _ = QRBitStream.payload(Array(bytes.dropFirst()), version: version, leadingZeroBits: Int(first) % 5)
        if bytes.count > 48 * 48 { _ = QRModel1Reader.read(GrayImage(unchecked: 48, 48, Array(bytes.suffix(48 * 48)))) }
    },
    // Configuration documents: parse, then the document model and the policy, as `inspect` does.
    "json": { bytes in
        guard let value = try? JSONReader().parse(bytes, source: "fuzz") else { return }
        checkDocument(value)
    },
    // Each plist target keeps the fuzzer on its reader: input without the format's opening gets it.
    "xml-plist": { bytes in
        let input =
            PropertyListReader.looksLikePropertyList(bytes) ? bytes : Array("<plist version=\"1.0\">".utf8) + bytes
        guard let value = try? PropertyListReader.parse(input, source: "fuzz") else { return }
        checkDocument(value)
    },
    "binary-plist": { bytes in
        let input = bytes.starts(with: Array("bplist".utf8)) ? bytes : Array("bplist00".utf8) + bytes
        guard let value = try? PropertyListReader.parse(input, source: "fuzz") else { return }
        checkDocument(value)
    },
    "mdm": { bytes in
        // Flattened keys: each line `key=value`, so the fuzzer works on the key paths directly.
        var flat = ConfigurationObject()
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(20_000) {
            // Empty parts kept: a line "=" is the empty key with the empty value, not nothing.
            let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            flat[String(pair[0])] = .string(pair.count > 1 ? String(pair[1]) : "")
        }
        guard let inflated = try? MDMKeys.inflate(flat) else { return }
        checkDocument(.object(inflated))
    },
    "jws": { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let parts = try? CompactJWS.parse(text, source: "fuzz") else { return }
        _ = try? CompactJWS.verify(parts, with: fuzzKeys, source: "fuzz")
        _ = try? PayloadRecognizer(policy: SecurityPolicy(verificationKeys: fuzzKeys)).recognize(
            text: text, source: "fuzz")
    },
    "links": { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let style = ActivationLink.style(of: text),
            let value = try? ActivationLink.document(from: text, style: style, source: "fuzz")
        else { return }
        checkDocument(value)
    },
    "url": { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        if let url = try? CanonicalURL(parsing: text) {
            // The canonical form is a fixed point: parsing it again gives the same URL.
            guard let again = try? CanonicalURL(parsing: url.description), again.description == url.description else {
                fatalError("canonical form is not stable: \(url.description)")
            }
        }
        _ = try? CanonicalURL.Host(parsing: text)
        _ = UntrustedText.escaped(text)
    },
    "discovery-request": { bytes in
        // The request target as `serve` receives it: canonical path, then the lookup call of its
        // last segment.
        if let path = try? DiscoveryRoute.canonicalPath(of: bytes) {
            let segment = path.utf8.split(separator: UInt8(ascii: "/")).last ?? []
            _ = LookupCall(function: segment)
        }
        _ = LookupCall(function: bytes)
        // An error answer as a client reads it.
        if let body = DiscoveryErrorBody(json: bytes), DiscoveryErrorBody(json: Array(body.json.utf8)) != body {
            fatalError("an error body changed on a round through its JSON")
        }
        // Admin request bodies as the service decodes them: an order that passes its checks
        // passes them again after a round through its JSON.
        if let order = try? AdminBodyError.decode(CodeOrder.self, from: bytes),
            (try? AdminBodyError.decode(CodeOrder.self, from: Array(AdminJSON.text(order).utf8))) != order
        {
            fatalError("a code order changed on a round through its JSON")
        }
        _ = try? AdminBodyError.decode(DomainAssignment.self, from: bytes)
        _ = try? AdminBodyError.decode(JSONValue.self, from: bytes)
    },
    // AC1 codes up to the signature: the fuzzer's bytes as the COSE frame (behind a valid prefix
    // and Base45), and as the text itself.
    "ac1": { bytes in
        _ = try? ActivationCode.verify(
            ActivationCode.prefix + Base45.encode(bytes), trustList: fuzzTrustList, source: "fuzz")
        _ = try? ActivationCode.verify(String(decoding: bytes, as: UTF8.self), trustList: fuzzTrustList, source: "fuzz")
    },
    // What lies behind the signature, which a fuzzer cannot forge: the claims (then inflation and
    // the compact configuration), raw DEFLATE, and the compact configuration's CBOR itself.
    "ac1-payload": { bytes in
        if let (_, compressed) = try? ActivationCode.claims(bytes, source: "fuzz"),
            let value = try? ActivationCode.configuration(compressed, source: "fuzz")
        {
            checkDocument(value)
        }
        _ = try? RawDeflate.inflate(bytes, limit: ActivationCode.maxInflatedBytes, what: "fuzz", source: "fuzz")
        guard
            let item = try? CBORReader(maxDepth: 8, maxItems: 4096, maxBytes: ActivationCode.maxInflatedBytes).read(
                bytes, what: "fuzz", source: "fuzz")
        else { return }
        // Whatever CBOR is read is written back to the same bytes (the reader takes only deterministic forms).
        guard item.encoded.count == bytes.count else { fatalError("CBOR re-encoding changed the length") }
        guard let value = try? CompactConfiguration.decode(item, source: "fuzz"),
            let document = try? ConfigurationDocument(from: value, source: "fuzz")
        else { return }
        checkDocument(value)
        // A document read from the compact form survives another round through it.
        guard let again = try? CompactConfiguration.encode(document, source: "fuzz"),
            let reread = try? CompactConfiguration.decode(again, source: "fuzz"),
            (try? ConfigurationDocument(from: reread, source: "fuzz")) == document
        else { fatalError("compact configuration round trip changed the document") }
    },
    "trust-list": { bytes in
        guard let list = try? TrustList(json: bytes, source: "fuzz") else { return }
        guard (try? TrustList(json: Array(list.json.utf8), source: "fuzz")) == list else {
            fatalError("trust list round trip changed it")
        }
    },
    "store": { bytes in
        guard let value = try? JSONReader(maxBytes: 1 << 20).parse(bytes, source: "fuzz"),
            let record = try? StoredConfiguration(from: value, source: "fuzz")
        else { return }
        _ = try? record.check(against: SecurityPolicy(verificationKeys: fuzzKeys), source: "fuzz")
    },
    // The secure store's age file: the header (which must write back to the very bytes it was
    // read from), the scrypt stanza under the seeds' passphrase where the work factor is small
    // enough for a fuzzer, and the STREAM payload under a fixed key and under the unwrapped one.
    "age-file": { bytes in
        guard let header = try? AgeFormat.header(of: bytes, source: "fuzz") else { return }
        guard header.bytes == Array(bytes.prefix(header.length)) else {
            fatalError("the header does not write back to its bytes")
        }
        _ = try? AgeFormat.decryptPayload(of: bytes, header: header, fileKey: fuzzFileKey, source: "fuzz")
        guard header.workFactor <= 4,
            let key = try? AgeFormat.unwrapFileKey(header, passphrase: Array(fuzzPasscode.utf8)),
            AgeFormat.verify(header, fileKey: key)
        else { return }
        _ = try? AgeFormat.decryptPayload(of: bytes, header: header, fileKey: key, source: "fuzz")
    },
    // What the store holds once decrypted, which a fuzzer cannot reach through the AEAD: the
    // documented plaintext, which must survive a round through its own writer.
    "store-contents": { bytes in
        guard let contents = try? SecureStoreContents(plaintext: bytes, source: "fuzz") else { return }
        guard let again = try? SecureStoreContents(plaintext: contents.plaintext, source: "fuzz"), again == contents,
            again.plaintext == contents.plaintext
        else {
            fatalError("the store's contents changed on a round through their JSON")
        }
        _ = contents.passcodeExpiredDays(now: Date())
        _ = contents.clientPolicies.blockWiping.verdict(lastContact: contents.lastServerContact ?? Date(), now: Date())
    },
    // What lies beside the store and comes with it: the state file, a settingsExchange document
    // (then a passcode judged by its policy), and credentials given as JSON.
    "store-state": { bytes in
        if let state = try? StoreState(json: bytes, source: "fuzz") {
            guard (try? StoreState(json: Array(JSONWriter.compact(state.value).utf8), source: "fuzz")) == state else {
                fatalError("the state changed on a round through its JSON")
            }
        }
        if let policies = try? ClientPolicies(json: bytes, source: "fuzz") {
            _ = policies.passcode.validate(String(decoding: bytes.prefix(64), as: UTF8.self))
            guard (try? ClientPolicies(from: policies.document, source: "fuzz")) == policies else {
                fatalError("policies changed on a second read")
            }
        }
        _ = try? StoredCredentials(json: bytes, source: "fuzz")
    },
    // What an authorization server sends back during a sign-in. The redirect's query (from the
    // listener's request or a pasted address), judged against a request as the listener judges it.
    "oauth-callback": { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        let request = fuzzAuthorizationRequest
        if let callback = try? AuthorizationCallback(query: Substring(text)) {
            _ = callback.verdict(for: request, issuer: "https://idp.example.com")
            _ = callback.verdict(for: request, issuer: nil)
        }
        _ = try? AuthorizationCallback(address: text, redirectURI: "https://app.example.com/callback")
        _ = try? FormEncoding.decode(Substring(text), maxFields: AuthorizationCallback.maxFields)
        _ = SignInPage.failed(text).html
    },
    // The token endpoint's answers: tokens, errors (shown escaped), and the ID token's claims.
    "token-answer": { bytes in
        if let answer = try? TokenAnswer(json: bytes, source: "fuzz") {
            guard answer.accessToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                fatalError("a token that is not visible ASCII")
            }
            if let idToken = answer.idToken { _ = IDTokenClaims(idToken) }
        }
        if let error = ErrorAnswer(json: bytes), !UntrustedText.isPlain(error.shown) {
            fatalError("server text shown unescaped")
        }
        _ = IDTokenClaims(String(decoding: bytes, as: UTF8.self))
    },
    // The device authorization endpoint's answer, then polling on what a poll might answer.
    "device-answer": { bytes in
        guard let device = try? DeviceAuthorization(json: bytes, source: "fuzz", policy: SecurityPolicy()) else {
            return
        }
        guard UntrustedText.isPlain(device.userCode) else { fatalError("a user code that is not plain") }
        var polling = DeviceGrantPolling(device)
        var next = polling.first
        for byte in bytes.prefix(64) {
            guard case .wait(let seconds) = next else { break }
            next = polling.next(
                after: byte % 3 == 0 ? .error("slow_down") : .error("authorization_pending"), waited: seconds)
        }
    },
    // An issuer's metadata, and the endpoints it fills in under the policy.
    "oauth-metadata": { bytes in
        guard let metadata = try? AuthorizationServerMetadata(json: bytes, source: "fuzz") else { return }
        let endpoints = OAuth2Endpoints(
            authorization: "https://idp.example.com/a", token: "https://idp.example.com/t", issuer: metadata.issuer,
            client: OAuth2Client(clientID: "app", redirectURL: "http://127.0.0.1/callback"))
        _ = endpoints.filled(from: metadata, policy: SecurityPolicy())
        _ = AuthorizationServerMetadata.locations(issuer: metadata.issuer)
    },
]

/// One authorization request for the callback target: its state and nonce are random, so a
/// fuzzed query matches them only by the parser's mistake.
let fuzzAuthorizationRequest = AuthorizationRequest(
    endpoints: OAuth2Endpoints(
        authorization: "https://idp.example.com/authorize", token: "https://idp.example.com/token",
        client: OAuth2Client(clientID: "app", redirectURL: "http://127.0.0.1/callback", scope: "openid")),
    redirectURI: "http://127.0.0.1:8080/callback")

/// The passphrase of the age-file seeds (Fuzz/seeds/age-file, written with work factor 2).
let fuzzPasscode = "fuzz-passcode"
let fuzzFileKey = SymmetricKey(data: [UInt8](repeating: 7, count: 16))

/// A document value through the model, the policy and the report, as every command does.
func checkDocument(_ value: ConfigurationValue) {
    guard let document = try? ConfigurationDocument(from: value, source: "fuzz") else { return }
    _ = try? SecurityPolicy().check(document, source: "fuzz")
    if let report = try? ActivationReport(document: document, signature: .unsigned, source: "fuzz") {
        _ = report.lines(headline: "Fuzz.")
        _ = try? JSONEncoder().encode(InspectReport(report))  // what inspect/scan --json print
    }
    _ = document.canonicalJSON()
}

/// The public half of the test key pair in Tests/ActivationConfigurationTests/Fixtures/keys/ec256.
let fuzzKeys: [VerificationKey] = {
    let pem = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEg2DYxoh1rrFAZva5NLSejhafhoeQ
        6ID+Ty7p+DdGXQU6tk+xMQHJd81TF483c+tZ4dnc1Ct9qqr8nw/p7mVNDA==
        -----END PUBLIC KEY-----
        """
    return (try? VerificationKey(pem: pem)).map { [$0] } ?? []
}()

/// The Ed25519 test key (Tests/ActivationConfigurationTests/Fixtures/keys/ed25519) as a trust list.
let fuzzTrustList: TrustList = {
    let pem = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAUPj30TFJJW6UZT4oP34FxdbO69MXdQByAkQR5/1htaY=
        -----END PUBLIC KEY-----
        """
    return (try? VerificationKey(pem: pem)).flatMap { try? TrustList([TrustList.Entry(key: $0)]) } ?? TrustList()
}()

nonisolated(unsafe) var selected: (@Sendable ([UInt8]) -> Void)?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = targets[name] else {
        FileHandle.standardError.write(
            Data("FUZZ_TARGET must be one of: \(targets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selected?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// libFuzzer's driver, from the fuzzer runtime that `-sanitize=fuzzer` links.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The executable's entry point (SwiftPM names it after the module): hands over to libFuzzer.
@_cdecl("activate_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { data, size in testOneInput(data, size) }
}

/// A PNG the direct path decodes must give libpng's pixels; with `requireLibPNG` (a well-formed
/// file) libpng must read it too. The pixel cap keeps a debug build's iterations fast (the
/// direct path's code is the same at every size).
func comparePNGPaths(_ bytes: [UInt8]?, requireLibPNG: Bool, maxPixels: Int) {
    guard let bytes else { return }
    // Alpha composited onto white (our view), and dropped (the tools' view).
    for alpha in [PNGCodec.AlphaHandling.compositedOntoWhite, .dropped] {
        guard let direct = try? PNGCodec.decodeDirect(bytes, name: "fuzz.png", maxPixels: maxPixels, alpha: alpha)
        else { continue }
        let reference = try? PNGCodec.decodeWithLibPNG(bytes, name: "fuzz.png", maxPixels: maxPixels, alpha: alpha)
        guard let reference else {
            if requireLibPNG { fatalError("the direct path read a PNG libpng refuses") }
            return
        }
        if reference != direct { fatalError("the direct path and libpng read different pixels") }
    }
}

enum PNGFuzzing {
    /// The bytes with each chunk's CRC recomputed (a file too short for chunks unchanged).
    static func repairingCRCs(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - 12 else { break }
            let crc = bytes.withUnsafeBufferPointer {
                $0.baseAddress.map { libdeflate_crc32(0, $0 + offset + 4, length + 4) } ?? 0
            }
            for index in 0..<4 {
                bytes[offset + 8 + length + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index))
            }
            offset += length + 12
        }
        return bytes
    }

    /// A well-formed PNG built from fuzz bytes: colour type, bit depth, size (up to 64×64),
    /// palette, tRNS and gamma from the first bytes, the filtered rows from the rest (repeated to
    /// fill).
    static func file(from bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 8 else { return nil }
        let colorType = ([0, 2, 3, 4, 6] as [UInt8])[Int(bytes[0]) % 5]
        let depths: [UInt8] = colorType == 0 || colorType == 3 ? [1, 2, 4, 8] : [8]
        let bitDepth = depths[Int(bytes[1]) % depths.count]
        let width = 1 + Int(bytes[2]) % 64
        let height = 1 + Int(bytes[3]) % 64
        let transparent = bytes[4] & 1 == 1
        var rest = Array(bytes[8...])
        func take(_ count: Int) -> [UInt8] {
            let taken = (0..<count).map { rest.isEmpty ? UInt8(truncatingIfNeeded: $0 &* 37) : rest[$0 % rest.count] }
            rest.removeFirst(min(count, rest.count))
            return taken
        }
        var chunks: [(type: String, data: [UInt8])] = []
        // A gAMA chunk half the time: sRGB's, or any other that libpng converts, before or after
        // the palette.
        if bytes[4] & 2 == 2 {
            let gamma = bytes[4] & 4 == 4 ? 45_455 : Int(bytes[5]) << 10 | Int(bytes[6]) << 2
            chunks.append(("gAMA", (0..<4).reversed().map { UInt8(truncatingIfNeeded: gamma >> ($0 * 8)) }))
        }
        if colorType == 3 {
            let entries = 1 + Int(bytes[5]) % (1 << Int(bitDepth))
            chunks.insert(("PLTE", take(3 * entries)), at: bytes[4] & 8 == 8 ? chunks.count : 0)
            if transparent { chunks.append(("tRNS", take(1 + Int(bytes[6]) % entries))) }
        } else if transparent && (colorType == 0 || colorType == 2) {
            // Sample values in the image's range (and out of it, now and then).
            chunks.append(
                (
                    "tRNS",
                    take(colorType == 0 ? 2 : 6).enumerated().map {
                        $0.offset % 2 == 0 && bytes[7] & 1 == 0 ? 0 : $0.element
                    }
                ))
        }
        let stride = PNGCodec.rowBytes(width: width, colorType: Int(colorType), bitDepth: Int(bitDepth))
        var rows = take(height * (stride + 1))
        // Filter bytes mostly valid (0–4), 5 now and then.
        for y in 0..<height { rows[y * (stride + 1)] %= 6 }
        let compressor = libdeflate_alloc_compressor(1)
        defer { libdeflate_free_compressor(compressor) }
        var compressed = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, rows.count))
        let size = compressed.withUnsafeMutableBytes {
            libdeflate_zlib_compress(compressor, rows, rows.count, $0.baseAddress, $0.count)
        }
        guard size > 0 else { return nil }
        return PNGCodec.file(
            width: width, height: height, bitDepth: bitDepth, colorType: colorType, chunks: chunks,
            imageData: Array(compressed.prefix(size)), imageChunks: 1 + Int(bytes[7]) % 3)
    }
}
