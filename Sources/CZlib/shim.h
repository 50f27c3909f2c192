#ifndef SHARE_CZLIB_SHIM_H
#define SHARE_CZLIB_SHIM_H
// zlib: inflating the deflated entries of a ZIP head ([Content_Types].xml, .rels parts).
#include <zlib.h>

// inflateInit2 is a macro (it passes the library's version and the stream's size): Swift sees
// neither. windowBits -15 is raw deflate (a ZIP entry), 15 + 32 a zlib or gzip stream.
static inline int share_inflate_init(z_stream *stream, int window_bits) {
  return inflateInit2(stream, window_bits);
}
#endif
