/* ndarrays: reading an array's elements whole, as a tile or one at a time, converted to the
 * type asked for; and building arrays to write.
 *
 * Reading: asdf_get_ndarray (or asdf_value_as_ndarray) gives an asdf_ndarray_t the caller
 * frees with asdf_ndarray_destroy. The read functions give elements in C order in the
 * machine's byte order, following the array's strides. Converting between the integer and
 * floating-point types (and from bool8) clamps values that do not fit (to the type's limits,
 * or to +-infinity for floats) and then returns ASDF_NDARRAY_ERR_OVERFLOW with every element
 * written. ASDF_DATATYPE_SOURCE reads any array (complex, bool8, strings, records too) in its
 * own type; other conversions of complex, string and record arrays give
 * ASDF_NDARRAY_ERR_CONVERSION and write nothing.
 *
 * Writing: fill an asdf_ndarray_t (datatype.type, byteorder, ndim, shape), get its buffer with
 * asdf_ndarray_data_alloc (or asdf_ndarray_data_copy), fill it, then asdf_set_ndarray or
 * asdf_value_of_ndarray: the file then shares the buffer. Release the struct's buffer with
 * asdf_ndarray_data_dealloc when done (also after asdf_close: the file keeps its own
 * reference). */
#ifndef FITSASDF_LIBASDF_CORE_NDARRAY_H
#define FITSASDF_LIBASDF_CORE_NDARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <asdf/core/datatype.h>
#include <asdf/emitter.h>
#include <asdf/file.h>
#include <asdf/util.h>
#include <asdf/value.h>

ASDF_BEGIN_DECLS

#define ASDF_CORE_NDARRAY_TAG ASDF_CORE_TAG_PREFIX "ndarray-1.1.0"

typedef enum {
    ASDF_NDARRAY_OK = 0,
    ASDF_NDARRAY_ERR_OUT_OF_BOUNDS,
    ASDF_NDARRAY_ERR_OOM,
    ASDF_NDARRAY_ERR_INVAL,
    ASDF_NDARRAY_ERR_OVERFLOW,
    ASDF_NDARRAY_ERR_CONVERSION
} asdf_ndarray_err_t;

typedef struct {
    size_t source;            /* the block number (0 for an inline array) */
    uint32_t ndim;
    const uint64_t *shape;
    asdf_datatype_t datatype;
    asdf_byteorder_t byteorder;
    uint64_t offset;          /* bytes from the block's start to the first element */
    const int64_t *strides;   /* bytes per step in each dimension; NULL for C order */
    void *_reserved;          /* the library's state: leave it zero in a new struct */
} asdf_ndarray_t;

ASDF_EXPORT bool asdf_is_ndarray(asdf_file_t *file, const char *path);
ASDF_EXPORT asdf_value_err_t asdf_get_ndarray(asdf_file_t *file, const char *path, asdf_ndarray_t **out);
ASDF_EXPORT bool asdf_value_is_ndarray(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_ndarray(asdf_value_t *value, asdf_ndarray_t **out);
ASDF_EXPORT asdf_value_t *asdf_value_of_ndarray(asdf_file_t *file, const asdf_ndarray_t *ndarray);
ASDF_EXPORT asdf_value_err_t asdf_set_ndarray(asdf_file_t *file, const char *path, const asdf_ndarray_t *ndarray);
/* Free what the library holds for `ndarray` (not the struct); asdf_ndarray_destroy also frees
 * the struct. Both ignore NULL. */
ASDF_EXPORT void asdf_ndarray_deinit(asdf_ndarray_t *ndarray);
ASDF_EXPORT void asdf_ndarray_destroy(asdf_ndarray_t *ndarray);

/* The elements as stored (after decompression; the array's type and byte order), owned by the
 * ndarray; `size` (may be NULL) receives their byte count. NULL on failure. */
ASDF_EXPORT const void *asdf_ndarray_data(asdf_ndarray_t *ndarray, size_t *size);
/* The number of elements (0 for NULL or no dimensions), and of bytes. */
ASDF_EXPORT uint64_t asdf_ndarray_size(const asdf_ndarray_t *ndarray);
ASDF_EXPORT uint64_t asdf_ndarray_nbytes(const asdf_ndarray_t *ndarray);

/* Writing: a zeroed buffer of asdf_ndarray_nbytes bytes (the same one on later calls), or a
 * copy of `src`; asdf_ndarray_data_dealloc releases the struct's hold on it. */
ASDF_EXPORT void *asdf_ndarray_data_alloc(asdf_ndarray_t *ndarray);
ASDF_EXPORT asdf_ndarray_err_t asdf_ndarray_data_copy(asdf_ndarray_t *ndarray, const void *src);
ASDF_EXPORT void asdf_ndarray_data_dealloc(asdf_ndarray_t *ndarray);
/* The codec of the array's block when written: "zlib", "bzp2", "lz4", or NULL / "" for none.
 * Non-zero for another name. */
ASDF_EXPORT int asdf_ndarray_compression_set(asdf_ndarray_t *ndarray, const char *compression);
ASDF_EXPORT asdf_array_storage_t asdf_ndarray_storage(asdf_ndarray_t *ndarray);
/* INLINE writes the elements in the tree, INTERNAL in a block; EXTERNAL is not supported and
 * leaves the setting unchanged. */
ASDF_EXPORT void asdf_ndarray_storage_set(asdf_ndarray_t *ndarray, asdf_array_storage_t storage);

/* Read the whole array, the tile of `shape` starting at `origin`, or the 2-D tile of
 * `width` x `height` at column `x`, row `y` of the plane `plane_origin` selects in the leading
 * dimensions (NULL: the first), converted to `dst_t`. `*dst` NULL: the library allocates the
 * buffer (free it with asdf_free); else the caller's buffer, large enough. */
ASDF_EXPORT asdf_ndarray_err_t asdf_ndarray_read_all(asdf_ndarray_t *ndarray, asdf_scalar_datatype_t dst_t, void **dst);
ASDF_EXPORT asdf_ndarray_err_t asdf_ndarray_read_tile_ndim(asdf_ndarray_t *ndarray, const uint64_t *origin, const uint64_t *shape, asdf_scalar_datatype_t dst_t, void **dst);
ASDF_EXPORT asdf_ndarray_err_t asdf_ndarray_read_tile_2d(asdf_ndarray_t *ndarray, uint64_t x, uint64_t y, uint64_t width, uint64_t height, const uint64_t *plane_origin, asdf_scalar_datatype_t dst_t, void **dst);
/* One element, at `indices` (one per dimension), into `dst`. */
ASDF_EXPORT asdf_ndarray_err_t asdf_ndarray_read_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_scalar_datatype_t dst_t, void *dst);
/* One element converted to a C type; 0 on failure, with the reason in `*err` (may be NULL). */
ASDF_EXPORT int8_t asdf_ndarray_read_int8_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT uint8_t asdf_ndarray_read_uint8_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT int16_t asdf_ndarray_read_int16_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT uint16_t asdf_ndarray_read_uint16_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT int32_t asdf_ndarray_read_int32_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT uint32_t asdf_ndarray_read_uint32_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT int64_t asdf_ndarray_read_int64_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT uint64_t asdf_ndarray_read_uint64_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT float asdf_ndarray_read_float32_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);
ASDF_EXPORT double asdf_ndarray_read_float64_at(asdf_ndarray_t *ndarray, const uint64_t *indices, asdf_ndarray_err_t *err);

/* asdf_ndarray_at(nd, T, i, j, ...) and asdf_ndarray_at_err(nd, T, &err, i, j, ...): the
 * element at the given indices (up to 8) as the C type T (int8_t ... uint64_t, float, double);
 * a count of indices other than nd->ndim gives 0 and ASDF_NDARRAY_ERR_INVAL. C11. */
#define ASDF__NDARRAY_NIDX(...) ASDF__NDARRAY_NIDX_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ASDF__NDARRAY_NIDX_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define ASDF__NDARRAY_READER(T)                                                                 \
    _Generic((T)0, int8_t: asdf_ndarray_read_int8_at, uint8_t: asdf_ndarray_read_uint8_at,      \
             int16_t: asdf_ndarray_read_int16_at, uint16_t: asdf_ndarray_read_uint16_at,        \
             int32_t: asdf_ndarray_read_int32_at, uint32_t: asdf_ndarray_read_uint32_at,        \
             int64_t: asdf_ndarray_read_int64_at, uint64_t: asdf_ndarray_read_uint64_at,        \
             float: asdf_ndarray_read_float32_at, double: asdf_ndarray_read_float64_at)
#define asdf_ndarray_at_err(ndarray, T, err, ...)                                               \
    ASDF__NDARRAY_READER(T)(                                                                    \
        (ndarray),                                                                              \
        ((uint32_t)ASDF__NDARRAY_NIDX(__VA_ARGS__) == (ndarray)->ndim                           \
             ? (const uint64_t *)(const uint64_t[]){__VA_ARGS__}                                \
             : (const uint64_t *)NULL),                                                         \
        (err))
#define asdf_ndarray_at(ndarray, T, ...) asdf_ndarray_at_err(ndarray, T, NULL, __VA_ARGS__)

ASDF_END_DECLS

#endif
