// zlib shim. Provider: apt zlib1g-dev. Only the Artifacts module imports this (Wireframe writes PNG via cairo).
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#define ZLIB_CONST
#include <zlib.h>

/// deflateInit2 / inflateInit2 are function-like macros Swift cannot import.
static inline int czlib_deflate_init2(z_streamp strm, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, strategy);
}
static inline int czlib_inflate_init2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
/// windowBits for gzip-format streams (valid .gz files): 15 + 16.
static inline int czlib_gzip_window_bits(void) { return 15 + 16; }
#endif
