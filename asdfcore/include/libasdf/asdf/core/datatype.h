/* Element types of ndarrays. */
#ifndef FITSASDF_LIBASDF_CORE_DATATYPE_H
#define FITSASDF_LIBASDF_CORE_DATATYPE_H

#include <stddef.h>
#include <stdint.h>

#include <asdf/core/asdf.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

#define ASDF_CORE_DATATYPE_TAG ASDF_CORE_TAG_PREFIX "datatype-1.0.0"

typedef enum {
    ASDF_DATATYPE_UNKNOWN = 0,
    ASDF_DATATYPE_INT8,
    ASDF_DATATYPE_UINT8,
    ASDF_DATATYPE_INT16,
    ASDF_DATATYPE_UINT16,
    ASDF_DATATYPE_INT32,
    ASDF_DATATYPE_UINT32,
    ASDF_DATATYPE_INT64,
    ASDF_DATATYPE_UINT64,
    ASDF_DATATYPE_FLOAT16,
    ASDF_DATATYPE_FLOAT32,
    ASDF_DATATYPE_FLOAT64,
    ASDF_DATATYPE_COMPLEX64,
    ASDF_DATATYPE_COMPLEX128,
    ASDF_DATATYPE_BOOL8,
    ASDF_DATATYPE_ASCII,
    ASDF_DATATYPE_UCS4,
    ASDF_DATATYPE_STRUCTURED
} asdf_scalar_datatype_t;

/* As a destination type of the read functions: the array's own type. */
#define ASDF_DATATYPE_SOURCE ASDF_DATATYPE_UNKNOWN

typedef enum {
    ASDF_BYTEORDER_INVALID = -1,
    ASDF_BYTEORDER_DEFAULT = 0,
    ASDF_BYTEORDER_BIG = '>',
    ASDF_BYTEORDER_LITTLE = '<'
} asdf_byteorder_t;

typedef struct asdf_datatype asdf_datatype_t;

/* An element type: a scalar type, or a record of named fields (STRUCTURED). `size` is the
 * element's size in bytes (for ASCII the characters, for UCS4 four bytes a character); `ndim`
 * and `shape` give a field's sub-array dimensions. */
struct asdf_datatype {
    asdf_scalar_datatype_t type;
    uint64_t size;
    const char *name;
    asdf_byteorder_t byteorder;
    uint32_t ndim;
    const uint64_t *shape;
    uint32_t nfields;
    const asdf_datatype_t *fields;
};

/* "int8" ... "complex128", "bool8", "ascii", "ucs4" to the type, unknown text to
 * ASDF_DATATYPE_UNKNOWN; and back (NULL for an unknown value). */
ASDF_EXPORT asdf_scalar_datatype_t asdf_scalar_datatype_from_string(const char *dtype);
ASDF_EXPORT const char *asdf_scalar_datatype_to_string(asdf_scalar_datatype_t datatype);
/* The size in bytes of one element of `datatype`, stored in datatype->size when it was 0. */
ASDF_EXPORT uint64_t asdf_datatype_size(asdf_datatype_t *datatype);

/* The size of one element of a fixed-size type; 0 for strings, records and unknown. */
static inline size_t asdf_scalar_datatype_size(asdf_scalar_datatype_t type) {
    switch (type) {
    case ASDF_DATATYPE_INT8:
    case ASDF_DATATYPE_UINT8:
    case ASDF_DATATYPE_BOOL8:
        return 1;
    case ASDF_DATATYPE_INT16:
    case ASDF_DATATYPE_UINT16:
    case ASDF_DATATYPE_FLOAT16:
        return 2;
    case ASDF_DATATYPE_INT32:
    case ASDF_DATATYPE_UINT32:
    case ASDF_DATATYPE_FLOAT32:
        return 4;
    case ASDF_DATATYPE_INT64:
    case ASDF_DATATYPE_UINT64:
    case ASDF_DATATYPE_FLOAT64:
    case ASDF_DATATYPE_COMPLEX64:
        return 8;
    case ASDF_DATATYPE_COMPLEX128:
        return 16;
    default:
        return 0;
    }
}

ASDF_END_DECLS

#endif
