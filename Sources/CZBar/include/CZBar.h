// libzbar's API, with libzbar loaded on first use instead of when activate starts.
//
// libzbar.so.0 needs 25 other libraries for its video and window support (D-Bus, X11, V4L,
// systemd, gcrypt, ...), which activate never uses: linked at build time, every start of every
// command would map, relocate and bind them all. Loaded here, only a scan whose passes reach zbar
// pays for them, once per process.
#ifndef ACTIVATE_CZBAR_H
#define ACTIVATE_CZBAR_H

#include <zbar.h>

/// The functions of libzbar that activate calls.
typedef struct activate_zbar {
    zbar_image_scanner_t *_Nullable (*_Nonnull image_scanner_create)(void);
    void (*_Nonnull image_scanner_destroy)(zbar_image_scanner_t *_Nonnull scanner);
    int (*_Nonnull image_scanner_set_config)(
        zbar_image_scanner_t *_Nonnull scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value);
    zbar_image_t *_Nullable (*_Nonnull image_create)(void);
    void (*_Nonnull image_destroy)(zbar_image_t *_Nonnull image);
    void (*_Nonnull image_set_format)(zbar_image_t *_Nonnull image, unsigned long format);
    void (*_Nonnull image_set_size)(zbar_image_t *_Nonnull image, unsigned width, unsigned height);
    void (*_Nonnull image_set_data)(
        zbar_image_t *_Nonnull image, const void *_Nullable data, unsigned long length,
        zbar_image_cleanup_handler_t *_Nullable cleanup);
    int (*_Nonnull scan_image)(zbar_image_scanner_t *_Nonnull scanner, zbar_image_t *_Nonnull image);
    const zbar_symbol_t *_Nullable (*_Nonnull image_first_symbol)(const zbar_image_t *_Nonnull image);
    const zbar_symbol_t *_Nullable (*_Nonnull symbol_next)(const zbar_symbol_t *_Nonnull symbol);
    zbar_symbol_type_t (*_Nonnull symbol_get_type)(const zbar_symbol_t *_Nonnull symbol);
    const char *_Nullable (*_Nonnull symbol_get_data)(const zbar_symbol_t *_Nonnull symbol);
    unsigned int (*_Nonnull symbol_get_data_length)(const zbar_symbol_t *_Nonnull symbol);
    unsigned (*_Nonnull symbol_get_loc_size)(const zbar_symbol_t *_Nonnull symbol);
    int (*_Nonnull symbol_get_loc_x)(const zbar_symbol_t *_Nonnull symbol, unsigned index);
    int (*_Nonnull symbol_get_loc_y)(const zbar_symbol_t *_Nonnull symbol, unsigned index);
    int (*_Nonnull symbol_get_quality)(const zbar_symbol_t *_Nonnull symbol);
} activate_zbar;

/// libzbar's functions, loading libzbar.so.0 on the first call (thread-safe); NULL when it cannot
/// be loaded or lacks one of them, on this call and every later one.
const activate_zbar *_Nullable activate_zbar_functions(void);

#endif
