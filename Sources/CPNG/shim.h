#include <png.h>
#include <setjmp.h>
#include <string.h>

/* Reading a 1-bit gray PNG as packed rows (8 pixels a byte, first pixel in the high bit, 1 = white)
 * without widening every pixel to a byte: how `generate` reads its own codes back quickly.
 * libpng's full API reports errors with longjmp, which must never cross Swift frames, so the whole
 * read stays inside this C function; Swift uses libpng's simplified API everywhere else. */

typedef struct {
    const unsigned char *data;
    size_t size;
    size_t offset;
} activate_png_memory;

static void activate_png_read_memory(png_structp png, png_bytep out, size_t length) {
    activate_png_memory *source = (activate_png_memory *)png_get_io_ptr(png);
    if (length > source->size - source->offset) png_error(png, "the file ends early");
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

/* Errors leave through the setjmp below, silently (libpng's default handler prints to stderr). */
static void activate_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

static void activate_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/* Decodes `data` into `rows` (height × ((width + 7) / 8) bytes) if it is a non-interlaced 1-bit gray
 * PNG of exactly `width` × `height` pixels. Returns 1 on success, 0 if the file is a valid PNG of
 * another kind or size, -1 if it is not a valid PNG (bad chunk, CRC, or compressed data). */
static inline int activate_png_read_bilevel(const unsigned char *data, size_t size, unsigned char *rows,
                                            unsigned int width, unsigned int height) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, activate_png_error, activate_png_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return -1;
    }
    activate_png_memory source = {data, size, 0};
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_read_fn(png, &source, activate_png_read_memory);
    png_set_user_limits(png, width, height);
    png_read_info(png, info);
    size_t rowBytes = ((size_t)width + 7) / 8;
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height ||
        png_get_bit_depth(png, info) != 1 || png_get_color_type(png, info) != PNG_COLOR_TYPE_GRAY ||
        png_get_interlace_type(png, info) != PNG_INTERLACE_NONE || png_get_rowbytes(png, info) != rowBytes) {
        png_destroy_read_struct(&png, &info, NULL);
        return 0;
    }
    for (unsigned int y = 0; y < height; y++) png_read_row(png, rows + (size_t)y * rowBytes, NULL);
    png_read_end(png, NULL);  /* the chunks after the image data, with their CRCs */
    png_destroy_read_struct(&png, &info, NULL);
    return 1;
}
