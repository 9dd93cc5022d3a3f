// activate-zxing-helper: runs zxing-cpp (Debian's libzxing) for activate in a separate process, so
// that a crash or abort inside the library (zxing-cpp 1.4.0 aborts on some images) cannot take the
// scanning process down. activate starts it and talks to it over its standard input and output.
//
// Request  (repeated until EOF): "AZX1", u32 width, u32 height, u32 formats (zxing BarcodeFormat
//          bits), u32 flags (1 tryHarder, 2 tryRotate, 4 tryDownscale, 8 pure, 16 local-average
//          binarizer off, 32 no decoding: answer at once, to time the round trip), then
//          width*height 8-bit gray pixels. "AZX2" instead of "AZX1": the pixels do not follow but
//          lie at the start of the file open as descriptor 3, which activate shares with this
//          process (a memfd). A helper that knows only "AZX1" stops at once on "AZX2".
// Response: u32 count, then per symbol: u32 format, u32 hasECI, u32 n + n raw bytes,
//          u32 m + m bytes of UTF-8 text, 8 x i32 corners (top left, top right, bottom right,
//          bottom left). All integers little-endian.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

static bool readAll(void* buffer, size_t size) {
    auto* out = static_cast<uint8_t*>(buffer);
    while (size > 0) {
        ssize_t n = read(STDIN_FILENO, out, size);
        if (n <= 0) return false;
        out += n;
        size -= size_t(n);
    }
    return true;
}

static void put32(std::string& out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(char((value >> (8 * i)) & 0xFF));
}

static bool writeAll(const std::string& data) {
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        ssize_t n = write(STDOUT_FILENO, p, left);
        if (n <= 0) return false;
        p += n;
        left -= size_t(n);
    }
    return true;
}

int main() {
    const uint32_t maxPixels = 100u * 1000u * 1000u;
    for (;;) {
        uint8_t header[20];
        if (!readAll(header, sizeof header)) return 0;
        const bool sharedPixels = std::memcmp(header, "AZX2", 4) == 0;
        if (!sharedPixels && std::memcmp(header, "AZX1", 4) != 0) return 2;
        auto get = [&](int at) { return uint32_t(header[at]) | uint32_t(header[at + 1]) << 8 | uint32_t(header[at + 2]) << 16 | uint32_t(header[at + 3]) << 24; };
        uint32_t width = get(4), height = get(8), formats = get(12), flags = get(16);
        if (width == 0 || height == 0 || uint64_t(width) * height > maxPixels) return 3;
        const size_t pixelCount = size_t(width) * height;
        std::vector<uint8_t> received;
        const uint8_t* pixels = nullptr;
        if (sharedPixels) {
            // The shared file: mapped again only when activate has grown it.
            static const uint8_t* shared = nullptr;
            static size_t sharedSize = 0;
            struct stat status;
            if (fstat(3, &status) != 0 || status.st_size <= 0) return 4;
            if (size_t(status.st_size) != sharedSize) {
                if (shared) munmap(const_cast<uint8_t*>(shared), sharedSize);
                void* mapped = mmap(nullptr, size_t(status.st_size), PROT_READ, MAP_SHARED, 3, 0);
                if (mapped == MAP_FAILED) return 4;
                shared = static_cast<const uint8_t*>(mapped);
                sharedSize = size_t(status.st_size);
            }
            if (pixelCount > sharedSize) return 3;
            pixels = shared;
        } else {
            received.resize(pixelCount);
            if (!readAll(received.data(), received.size())) return 0;
            pixels = received.data();
        }

        if (flags & 32) {
            if (!writeAll(std::string(4, '\0'))) return 0;
            continue;
        }

        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormats(ZXing::BarcodeFormat(formats)));
        hints.setTryHarder(flags & 1);
        hints.setTryRotate(flags & 2);
        hints.setTryDownscale(flags & 4);
        hints.setIsPure(flags & 8);
        if (flags & 16) hints.setBinarizer(ZXing::Binarizer::GlobalHistogram);
        ZXing::ImageView image(pixels, int(width), int(height), ZXing::ImageFormat::Lum);
        auto results = ZXing::ReadBarcodes(image, hints);

        std::string out;
        uint32_t count = 0;
        std::string body;
        for (const auto& result : results) {
            if (!result.isValid()) continue;
            ++count;
            put32(body, uint32_t(result.format()));
            put32(body, result.hasECI() ? 1 : 0);
            const auto& bytes = result.bytes();
            put32(body, uint32_t(bytes.size()));
            body.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            std::string text = result.text();
            put32(body, uint32_t(text.size()));
            body.append(text);
            const auto& position = result.position();
            for (const auto& point : {position.topLeft(), position.topRight(), position.bottomRight(), position.bottomLeft()}) {
                put32(body, uint32_t(point.x));
                put32(body, uint32_t(point.y));
            }
        }
        put32(out, count);
        out += body;
        if (!writeAll(out)) return 0;
    }
}
