/* fitsasdf's implementation of libasdf's public C API: shared macros and asdf_free.
 * The declarations of every header under <asdf/...> follow libasdf 0.2.0 (see the README's
 * "C API" section for what is and is not implemented); the code behind them is fitsasdf's. */
#ifndef FITSASDF_LIBASDF_UTIL_H
#define FITSASDF_LIBASDF_UTIL_H

#include <asdf/config.h>

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 4)
#define ASDF_EXPORT __attribute__((visibility("default")))
#define ASDF_LOCAL __attribute__((visibility("hidden")))
#else
#define ASDF_EXPORT
#define ASDF_LOCAL
#endif

#ifdef __cplusplus
#define ASDF_BEGIN_DECLS extern "C" {
#define ASDF_END_DECLS }
#else
#define ASDF_BEGIN_DECLS
#define ASDF_END_DECLS
#endif

ASDF_BEGIN_DECLS

/* Free a buffer the library allocated for the caller (asdf_write_to_mem, asdf_ndarray_read_all,
 * asdf_ndarray_read_tile_*). Such buffers come from malloc, so free() works as well. NULL is
 * ignored. */
ASDF_EXPORT void asdf_free(void *buf);

ASDF_END_DECLS

#endif
