/* Build facts of fitsasdf's libasdf-compatible C API. libasdf generates this header; here it
 * is fixed: logging goes nowhere (errors are reported through asdf_error()), and the _Float16
 * element getter is not offered (read float16 arrays converted to float or double). */
#ifndef FITSASDF_LIBASDF_CONFIG_H
#define FITSASDF_LIBASDF_CONFIG_H

/* This header set is fitsasdf's, following libasdf 0.2.0. */
#define FITSASDF_LIBASDF_COMPAT 1
#define FITSASDF_LIBASDF_COMPAT_VERSION "0.2.0"

#endif
