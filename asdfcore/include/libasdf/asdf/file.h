/* Opening, reading and writing ASDF files, and reaching values by path.
 *
 * Paths are libasdf's "YAML pointer": components separated by '/', the leading '/' optional
 * ("" or "/" is the root). A component is a mapping key, or on a sequence an index (negative
 * ones count from the end); "[n]" is always an index, a quoted component ('0' or "a/b") always
 * a key, and a backslash escapes one of / { } [ ] . & * \ outside quotes.
 *
 * Nothing here prints, aborts or throws: failures are return values, and asdf_error() gives
 * the message (with the file name and, where known, the byte offset and tree path). */
#ifndef FITSASDF_LIBASDF_FILE_H
#define FITSASDF_LIBASDF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <asdf/block.h>
#include <asdf/emitter.h>
#include <asdf/error.h>
#include <asdf/log.h>
#include <asdf/parser.h>
#include <asdf/util.h>
#include <asdf/value.h>

ASDF_BEGIN_DECLS

#ifndef FITSASDF_LIBASDF_FILE_T
#define FITSASDF_LIBASDF_FILE_T
typedef struct asdf_file asdf_file_t;
#endif

typedef enum {
    ASDF_BLOCK_DECOMP_MODE_AUTO = 0,
    ASDF_BLOCK_DECOMP_MODE_EAGER,
    ASDF_BLOCK_DECOMP_MODE_LAZY
} asdf_block_decomp_mode_t;

/* Settings for opening a file; copied by the open functions, zero fields mean the defaults.
 * fitsasdf uses emitter.flags (NO_BLOCK_CHECKSUM, NO_EMIT_ASDF_LIBRARY, EMIT_EMPTY) and
 * emitter.array_storage; the rest is accepted and ignored (blocks are memory-mapped and
 * decoded when an array is read). */
typedef struct {
    asdf_parser_cfg_t parser;
    asdf_emitter_cfg_t emitter;
    asdf_log_cfg_t log;
    struct {
        asdf_block_decomp_mode_t mode;
        size_t max_memory_bytes;
        double max_memory_threshold;
        size_t chunk_size;
        const char *tmp_dir;
    } decomp;
} asdf_config_t;

/* Open the file `filename` with `mode` "r" (read; the tree may still be changed in memory and
 * written elsewhere) or "w" (a new, empty file written to `filename` by asdf_close). NULL on
 * failure: asdf_error(NULL) then says why. */
ASDF_EXPORT asdf_file_t *asdf_open_file_ex(const char *filename, const char *mode, asdf_config_t *config);
/* Read an ASDF file from the stream `fp` (from its current position to its end); `filename`
 * names it in messages and may be NULL. */
ASDF_EXPORT asdf_file_t *asdf_open_fp_ex(FILE *fp, const char *filename, asdf_config_t *config);
/* Read an ASDF file from `size` bytes at `buf` (copied); buf NULL and size 0 give a new, empty
 * file to build and write with asdf_write_to. */
ASDF_EXPORT asdf_file_t *asdf_open_mem_ex(const void *buf, size_t size, asdf_config_t *config);

static inline asdf_file_t *asdf_open_file(const char *filename, const char *mode) {
    return asdf_open_file_ex(filename, mode, NULL);
}
static inline asdf_file_t *asdf_open_fp(FILE *fp, const char *filename) {
    return asdf_open_fp_ex(fp, filename, NULL);
}
static inline asdf_file_t *asdf_open_mem(const void *buf, size_t size) {
    return asdf_open_mem_ex(buf, size, NULL);
}

/* asdf_open(path), asdf_open(path, mode), asdf_open(fp), asdf_open(fp, name),
 * asdf_open((const void *)buf, size) and asdf_open(NULL) (a new file), as in libasdf: C11
 * _Generic macros. C++ callers use the functions above. */
#define ASDF__PP_NARGS(...) ASDF__PP_NARGS_(__VA_ARGS__, 2, 1, 0)
#define ASDF__PP_NARGS_(_1, _2, N, ...) N
#define ASDF__PP_CAT(a, b) ASDF__PP_CAT_(a, b)
#define ASDF__PP_CAT_(a, b) a##b

#define ASDF__OPEN_1(source)                                                                    \
    _Generic((source), FILE *: asdf_open_fp((FILE *)(source), NULL),                            \
             const char *: asdf_open_file((const char *)(source), "r"),                        \
             char *: asdf_open_file((const char *)(source), "r"),                              \
             void *: asdf_open_mem(NULL, 0))
#define ASDF__OPEN_2(source, ...)                                                               \
    _Generic((source), FILE *: asdf_open_fp, const char *: asdf_open_file,                      \
             char *: asdf_open_file, const void *: asdf_open_mem)(source, __VA_ARGS__)
#define asdf_open(...) ASDF__PP_CAT(ASDF__OPEN_, ASDF__PP_NARGS(__VA_ARGS__))(__VA_ARGS__)

#define asdf_open_ex(source, ...)                                                               \
    _Generic((source), const char *: asdf_open_file_ex, char *: asdf_open_file_ex,             \
             FILE *: asdf_open_fp_ex, void *: asdf_open_mem_ex,                                 \
             const void *: asdf_open_mem_ex)(source, __VA_ARGS__)

/* Write the file's tree and arrays: to `filename` (atomically: the file appears whole or not
 * at all), to the stream `fp`, or to memory (`*buf` NULL: a malloc'ed buffer the caller frees
 * with asdf_free; else the caller's buffer of `*size` bytes, an error when too small).
 * 0 on success, non-zero on failure (asdf_error(file) says why). */
ASDF_EXPORT int asdf_write_to_file(asdf_file_t *file, const char *filename);
ASDF_EXPORT int asdf_write_to_fp(asdf_file_t *file, FILE *fp);
ASDF_EXPORT int asdf_write_to_mem(asdf_file_t *file, void **buf, size_t *size);

#define ASDF__WRITE_TO_1(source, dest)                                                          \
    _Generic((dest), const char *: asdf_write_to_file, char *: asdf_write_to_file,              \
             FILE *: asdf_write_to_fp)(source, dest)
#define ASDF__WRITE_TO_2(source, dest, ...) asdf_write_to_mem(source, dest, __VA_ARGS__)
#define asdf_write_to(file, ...)                                                                \
    ASDF__PP_CAT(ASDF__WRITE_TO_, ASDF__PP_NARGS(__VA_ARGS__))(file, __VA_ARGS__)

/* Close the file (a "w" file is written first) and free it with what it still owns. Free the
 * values and ndarrays taken from it before. NULL is ignored. */
ASDF_EXPORT void asdf_close(asdf_file_t *file);

/* The last error of `file` (NULL: of the last failed open in this thread): its message (NULL
 * when none), its code, and for ASDF_ERR_SYSTEM the errno. */
ASDF_EXPORT const char *asdf_error(asdf_file_t *file);
ASDF_EXPORT asdf_error_code_t asdf_error_code(asdf_file_t *file);
ASDF_EXPORT int asdf_error_errno(asdf_file_t *file);

/* Values by path. asdf_get_value's result is the caller's (asdf_value_destroy); NULL when the
 * path names nothing. The asdf_is_* tests are false for a missing path. */
ASDF_EXPORT asdf_value_t *asdf_get_value(asdf_file_t *file, const char *path);
ASDF_EXPORT bool asdf_is_mapping(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_mapping(asdf_file_t *file, const char *path, asdf_mapping_t **out);
ASDF_EXPORT bool asdf_is_sequence(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_sequence(asdf_file_t *file, const char *path, asdf_sequence_t **out);
ASDF_EXPORT bool asdf_is_string(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_string(asdf_file_t *file, const char *path, const char **out, size_t *out_len);
ASDF_EXPORT asdf_value_err_t asdf_get_string0(asdf_file_t *file, const char *path, const char **out);
ASDF_EXPORT bool asdf_is_scalar(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_scalar(asdf_file_t *file, const char *path, const char **out, size_t *out_len);
ASDF_EXPORT asdf_value_err_t asdf_get_scalar0(asdf_file_t *file, const char *path, const char **out);
ASDF_EXPORT bool asdf_is_bool(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_bool(asdf_file_t *file, const char *path, bool *out);
ASDF_EXPORT bool asdf_is_null(asdf_file_t *file, const char *path);
ASDF_EXPORT bool asdf_is_int(asdf_file_t *file, const char *path);
ASDF_EXPORT bool asdf_is_int8(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_int8(asdf_file_t *file, const char *path, int8_t *out);
ASDF_EXPORT bool asdf_is_int16(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_int16(asdf_file_t *file, const char *path, int16_t *out);
ASDF_EXPORT bool asdf_is_int32(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_int32(asdf_file_t *file, const char *path, int32_t *out);
ASDF_EXPORT bool asdf_is_int64(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_int64(asdf_file_t *file, const char *path, int64_t *out);
#define asdf_get_int asdf_get_int64
ASDF_EXPORT bool asdf_is_uint8(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_uint8(asdf_file_t *file, const char *path, uint8_t *out);
ASDF_EXPORT bool asdf_is_uint16(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_uint16(asdf_file_t *file, const char *path, uint16_t *out);
ASDF_EXPORT bool asdf_is_uint32(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_uint32(asdf_file_t *file, const char *path, uint32_t *out);
ASDF_EXPORT bool asdf_is_uint64(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_uint64(asdf_file_t *file, const char *path, uint64_t *out);
ASDF_EXPORT bool asdf_is_float(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_float(asdf_file_t *file, const char *path, float *out);
ASDF_EXPORT bool asdf_is_double(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_double(asdf_file_t *file, const char *path, double *out);

/* Setting values by path: missing mappings on the way are created (a sequence where the next
 * component is "[n]", padded with nulls), an existing value is replaced, "" replaces the root.
 * asdf_set_value, asdf_set_mapping and asdf_set_sequence take over the handle they are given. */
ASDF_EXPORT asdf_value_err_t asdf_set_value(asdf_file_t *file, const char *path, asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_set_string(asdf_file_t *file, const char *path, const char *str, size_t len);
ASDF_EXPORT asdf_value_err_t asdf_set_string0(asdf_file_t *file, const char *path, const char *str);
ASDF_EXPORT asdf_value_err_t asdf_set_bool(asdf_file_t *file, const char *path, bool val);
ASDF_EXPORT asdf_value_err_t asdf_set_null(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_set_int8(asdf_file_t *file, const char *path, int8_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_int16(asdf_file_t *file, const char *path, int16_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_int32(asdf_file_t *file, const char *path, int32_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_int64(asdf_file_t *file, const char *path, int64_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_uint8(asdf_file_t *file, const char *path, uint8_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_uint16(asdf_file_t *file, const char *path, uint16_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_uint32(asdf_file_t *file, const char *path, uint32_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_uint64(asdf_file_t *file, const char *path, uint64_t val);
ASDF_EXPORT asdf_value_err_t asdf_set_float(asdf_file_t *file, const char *path, float val);
ASDF_EXPORT asdf_value_err_t asdf_set_double(asdf_file_t *file, const char *path, double val);
ASDF_EXPORT asdf_value_err_t asdf_set_mapping(asdf_file_t *file, const char *path, asdf_mapping_t *mapping);
ASDF_EXPORT asdf_value_err_t asdf_set_sequence(asdf_file_t *file, const char *path, asdf_sequence_t *sequence);

/* Searching the whole tree (see asdf_value_find). */
ASDF_EXPORT asdf_value_t *asdf_file_find(asdf_file_t *file, asdf_value_pred_t pred);
ASDF_EXPORT asdf_value_t *asdf_file_find_ex(asdf_file_t *file, asdf_value_pred_t pred, bool depth_first, asdf_value_pred_t descend_pred, asdf_depth_t max_depth);
#define asdf_find(source, pred)                                                                 \
    _Generic((source), asdf_file_t *: asdf_file_find, asdf_value_t *: asdf_value_find)(source, pred)
#define asdf_find_ex(source, ...)                                                               \
    _Generic((source), asdf_file_t *: asdf_file_find_ex,                                        \
             asdf_value_t *: asdf_value_find_ex)(source, __VA_ARGS__)

ASDF_END_DECLS

#endif
