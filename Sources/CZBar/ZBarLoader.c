#include "CZBar.h"

#include <dlfcn.h>
#include <pthread.h>

static activate_zbar functions;
static const activate_zbar *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // Resolved at once (RTLD_NOW), so that a libzbar without one of the functions is found here and
    // not in the middle of a scan; private (RTLD_LOCAL), so nothing else binds to its symbols.
    void *library = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    void **slots = (void **)&functions;
    static const char *const names[] = {
        "zbar_image_scanner_create", "zbar_image_scanner_destroy", "zbar_image_scanner_set_config",
        "zbar_image_create", "zbar_image_destroy", "zbar_image_set_format", "zbar_image_set_size",
        "zbar_image_set_data", "zbar_scan_image", "zbar_image_first_symbol", "zbar_symbol_next",
        "zbar_symbol_get_type", "zbar_symbol_get_data", "zbar_symbol_get_data_length",
        "zbar_symbol_get_loc_size", "zbar_symbol_get_loc_x", "zbar_symbol_get_loc_y", "zbar_symbol_get_quality",
    };
    _Static_assert(sizeof names / sizeof names[0] == sizeof(activate_zbar) / sizeof(void *),
                   "one name per function of activate_zbar, in its order");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        slots[i] = dlsym(library, names[i]);
        if (slots[i] == NULL) {
            dlclose(library);
            return;
        }
    }
    loaded = &functions;
}

const activate_zbar *activate_zbar_functions(void) {
    pthread_once(&once, load);
    return loaded;
}
