internal import CZlib
import FileAccess

/// Raw DEFLATE (RFC 1951, no zlib or gzip header) through zlib: the compressed configuration of
/// an `AC1:` code. Inflation stops at a cap, so a small code can never expand into a large
/// allocation (a "decompression bomb"); callers inflate only after the signature holds.
enum RawDeflate {
    /// Compresses at zlib's best level.
    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        // Negative window bits: raw DEFLATE. A window just larger than the input compresses it as
        // well as the largest one and spares zlib from clearing 256 KiB of tables per code.
        let windowBits = Int32(min(15, max(9, Int.bitWidth - (input.count | 256).leadingZeroBitCount)))
        guard
            deflateInit2_(
                &stream, Z_BEST_COMPRESSION, Z_DEFLATED, -windowBits, Int32(min(9, windowBits - 6)), Z_DEFAULT_STRATEGY,
                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            throw ConfigurationError(.invalidValue, source: "zlib", "cannot start compressing")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = run(&stream, input, into: &output) { CZlib.deflate($0, Z_FINISH) }
        guard status == Z_STREAM_END else {
            throw ConfigurationError(.invalidValue, source: "zlib", "compressing failed (\(status))")
        }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// Expands `input`, which must be exactly one complete raw DEFLATE stream of at most `limit`
    /// bytes once inflated.
    ///
    /// - Parameter what: names the data in errors.
    /// - Throws: ``ConfigurationError``: `inputTooLarge` past the limit (inflation stops there),
    ///   `invalidValue` for a broken, truncated or trailing-data stream.
    static func inflate(_ input: [UInt8], limit: Int, what: String, source: String) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ConfigurationError(.invalidValue, source: source, "zlib: cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        // One byte more than the limit: filling it proves the data is too large.
        var output = [UInt8](repeating: 0, count: limit + 1)
        let status = run(&stream, input, into: &output) { CZlib.inflate($0, Z_FINISH) }
        let produced = Int(stream.total_out)
        if produced > limit {
            throw ConfigurationError(
                .inputTooLarge, source: source, "\(what) inflates to more than \(ByteCount(limit)) (the limit); refused"
            )
        }
        guard status == Z_STREAM_END else {
            throw ConfigurationError(
                .invalidValue, source: source,
                "\(what) is not valid DEFLATE data (\(status == Z_BUF_ERROR ? "truncated" : "corrupt"))")
        }
        guard stream.avail_in == 0 else {
            throw ConfigurationError(
                .invalidValue, source: source, "\(what) has \(stream.avail_in) bytes after the end of its DEFLATE data")
        }
        return Array(output.prefix(produced))
    }

    /// One zlib call over all of `input` into `output`, with the stream pointing at both.
    private static func run(
        _ stream: inout z_stream, _ input: [UInt8], into output: inout [UInt8],
        _ call: (UnsafeMutablePointer<z_stream>) -> Int32
    ) -> Int32 {
        var input = input
        return input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                return call(&stream)
            }
        }
    }
}
