/* Values of an ASDF tree: scalars, mappings and sequences, read and built.
 *
 * A value handle (asdf_value_t) returned by a getter belongs to the caller: free it with
 * asdf_value_destroy (asdf_mapping_destroy / asdf_sequence_destroy for the typed views; they
 * are the same handle). Handles made by asdf_value_of_*, asdf_mapping_create and
 * asdf_sequence_create belong to their file until inserted into the tree (asdf_mapping_set,
 * asdf_sequence_append, asdf_set_value take them over) or destroyed; the file frees the rest
 * when closed. Strings handed out stay valid while their value is in the tree and the file is
 * open. */
#ifndef FITSASDF_LIBASDF_VALUE_H
#define FITSASDF_LIBASDF_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <asdf/util.h>
#include <asdf/yaml.h>

ASDF_BEGIN_DECLS

#ifndef FITSASDF_LIBASDF_FILE_T
#define FITSASDF_LIBASDF_FILE_T
typedef struct asdf_file asdf_file_t;
#endif

typedef struct asdf_value asdf_value_t;

typedef enum {
    ASDF_VALUE_UNKNOWN,
    ASDF_VALUE_SEQUENCE,
    ASDF_VALUE_MAPPING,
    ASDF_VALUE_SCALAR,
    ASDF_VALUE_STRING,
    ASDF_VALUE_BOOL,
    ASDF_VALUE_NULL,
    ASDF_VALUE_INT8,
    ASDF_VALUE_INT16,
    ASDF_VALUE_INT32,
    ASDF_VALUE_INT64,
    ASDF_VALUE_UINT8,
    ASDF_VALUE_UINT16,
    ASDF_VALUE_UINT32,
    ASDF_VALUE_UINT64,
    ASDF_VALUE_FLOAT,
    ASDF_VALUE_DOUBLE,
    ASDF_VALUE_EXTENSION
} asdf_value_type_t;

typedef enum {
    ASDF_VALUE_ERR_UNKNOWN = -2,
    ASDF_VALUE_ERR_NOT_FOUND = -1,
    ASDF_VALUE_OK = 0,
    ASDF_VALUE_ERR_TYPE_MISMATCH,
    ASDF_VALUE_ERR_PARSE_FAILURE,
    ASDF_VALUE_ERR_EMIT_FAILURE,
    ASDF_VALUE_ERR_OVERFLOW,
    ASDF_VALUE_ERR_OOM,
    ASDF_VALUE_ERR_READ_ONLY
} asdf_value_err_t;

/* Typed views of a value handle: a mapping or sequence handle is an asdf_value_t. */
typedef struct asdf_mapping asdf_mapping_t;
typedef struct asdf_sequence asdf_sequence_t;

/* Iterators: valid until the next call to *_iter_next; after the last item *_iter_next
 * returns false, frees the iterator and sets it to NULL. Call *_iter_destroy only when
 * stopping early. */
typedef struct {
    const char *key;
    asdf_value_t *value;
} asdf_mapping_iter_t;

typedef struct {
    asdf_value_t *value;
    int index;
} asdf_sequence_iter_t;

typedef struct {
    const char *key; /* NULL for a sequence's items */
    int index;
    asdf_value_t *value;
} asdf_container_iter_t;

typedef struct {
    asdf_value_t *value;
} asdf_find_iter_t;

typedef bool (*asdf_value_pred_t)(asdf_value_t *value);
typedef int64_t asdf_depth_t;

#define ASDF_DEPTH_FIRST true
#define ASDF_BREADTH_FIRST false
#define asdf_find_descend_all ((asdf_value_pred_t)NULL)

/* Any value. */
ASDF_EXPORT void asdf_value_destroy(asdf_value_t *value);
ASDF_EXPORT asdf_value_t *asdf_value_copy(asdf_value_t *value);
#define asdf_value_clone asdf_value_copy /* libasdf's earlier name */
ASDF_EXPORT asdf_value_type_t asdf_value_get_type(asdf_value_t *value);
ASDF_EXPORT const char *asdf_value_path(asdf_value_t *value);
ASDF_EXPORT asdf_value_t *asdf_value_parent(asdf_value_t *value);
ASDF_EXPORT const char *asdf_value_type_string(asdf_value_type_t type);
ASDF_EXPORT const char *asdf_value_tag(asdf_value_t *value);
ASDF_EXPORT asdf_file_t *asdf_value_file(asdf_value_t *value);
ASDF_EXPORT bool asdf_value_is_type(asdf_value_t *value, asdf_value_type_t type);
ASDF_EXPORT asdf_value_err_t asdf_value_as_type(asdf_value_t *value, asdf_value_type_t type, void *out);

/* Mappings. */
ASDF_EXPORT bool asdf_value_is_mapping(asdf_value_t *value);
ASDF_EXPORT int asdf_mapping_size(asdf_mapping_t *mapping);
ASDF_EXPORT asdf_value_err_t asdf_value_as_mapping(asdf_value_t *value, asdf_mapping_t **out);
ASDF_EXPORT asdf_value_t *asdf_value_of_mapping(asdf_mapping_t *mapping);
ASDF_EXPORT asdf_mapping_t *asdf_mapping_create(asdf_file_t *file);
ASDF_EXPORT void asdf_mapping_set_style(asdf_mapping_t *mapping, asdf_yaml_node_style_t style);
ASDF_EXPORT asdf_mapping_t *asdf_mapping_copy(asdf_mapping_t *mapping);
#define asdf_mapping_clone asdf_mapping_copy
ASDF_EXPORT void asdf_mapping_destroy(asdf_mapping_t *mapping);
ASDF_EXPORT asdf_value_t *asdf_mapping_get(asdf_mapping_t *mapping, const char *key);
ASDF_EXPORT asdf_mapping_iter_t *asdf_mapping_iter_init(asdf_mapping_t *mapping);
ASDF_EXPORT asdf_mapping_iter_t *asdf_mapping_reverse_iter_init(asdf_mapping_t *mapping);
ASDF_EXPORT bool asdf_mapping_iter_next(asdf_mapping_iter_t **iter);
ASDF_EXPORT void asdf_mapping_iter_destroy(asdf_mapping_iter_t *iter);
ASDF_EXPORT asdf_value_err_t asdf_mapping_update(asdf_mapping_t *mapping, asdf_mapping_t *update);
ASDF_EXPORT asdf_value_t *asdf_mapping_pop(asdf_mapping_t *mapping, const char *key);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set(asdf_mapping_t *mapping, const char *key, asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_string(asdf_mapping_t *mapping, const char *key, const char *str, size_t len);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_string0(asdf_mapping_t *mapping, const char *key, const char *str);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_bool(asdf_mapping_t *mapping, const char *key, bool val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_null(asdf_mapping_t *mapping, const char *key);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_int8(asdf_mapping_t *mapping, const char *key, int8_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_int16(asdf_mapping_t *mapping, const char *key, int16_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_int32(asdf_mapping_t *mapping, const char *key, int32_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_int64(asdf_mapping_t *mapping, const char *key, int64_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_uint8(asdf_mapping_t *mapping, const char *key, uint8_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_uint16(asdf_mapping_t *mapping, const char *key, uint16_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_uint32(asdf_mapping_t *mapping, const char *key, uint32_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_uint64(asdf_mapping_t *mapping, const char *key, uint64_t val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_float(asdf_mapping_t *mapping, const char *key, float val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_double(asdf_mapping_t *mapping, const char *key, double val);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_mapping(asdf_mapping_t *mapping, const char *key, asdf_mapping_t *value);
ASDF_EXPORT asdf_value_err_t asdf_mapping_set_sequence(asdf_mapping_t *mapping, const char *key, asdf_sequence_t *value);

/* Sequences (a negative index counts from the end). */
ASDF_EXPORT bool asdf_value_is_sequence(asdf_value_t *value);
ASDF_EXPORT int asdf_sequence_size(asdf_sequence_t *sequence);
ASDF_EXPORT asdf_value_t *asdf_sequence_get(asdf_sequence_t *sequence, int index);
ASDF_EXPORT asdf_value_err_t asdf_value_as_sequence(asdf_value_t *value, asdf_sequence_t **out);
ASDF_EXPORT asdf_value_t *asdf_value_of_sequence(asdf_sequence_t *sequence);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_create(asdf_file_t *file);
ASDF_EXPORT void asdf_sequence_set_style(asdf_sequence_t *sequence, asdf_yaml_node_style_t style);
ASDF_EXPORT void asdf_sequence_destroy(asdf_sequence_t *sequence);
ASDF_EXPORT asdf_sequence_iter_t *asdf_sequence_iter_init(asdf_sequence_t *sequence);
ASDF_EXPORT asdf_sequence_iter_t *asdf_sequence_reverse_iter_init(asdf_sequence_t *sequence);
ASDF_EXPORT bool asdf_sequence_iter_next(asdf_sequence_iter_t **iter);
ASDF_EXPORT void asdf_sequence_iter_destroy(asdf_sequence_iter_t *iter);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append(asdf_sequence_t *sequence, asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_string(asdf_sequence_t *sequence, const char *str, size_t len);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_string0(asdf_sequence_t *sequence, const char *str);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_bool(asdf_sequence_t *sequence, bool val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_null(asdf_sequence_t *sequence);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_int8(asdf_sequence_t *sequence, int8_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_int16(asdf_sequence_t *sequence, int16_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_int32(asdf_sequence_t *sequence, int32_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_int64(asdf_sequence_t *sequence, int64_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_uint8(asdf_sequence_t *sequence, uint8_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_uint16(asdf_sequence_t *sequence, uint16_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_uint32(asdf_sequence_t *sequence, uint32_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_uint64(asdf_sequence_t *sequence, uint64_t val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_float(asdf_sequence_t *sequence, float val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_double(asdf_sequence_t *sequence, double val);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_mapping(asdf_sequence_t *sequence, asdf_mapping_t *value);
ASDF_EXPORT asdf_value_err_t asdf_sequence_append_sequence(asdf_sequence_t *sequence, asdf_sequence_t *value);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_null(asdf_file_t *file, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_string(asdf_file_t *file, const char *const *arr, const size_t *lens, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_string0(asdf_file_t *file, const char *const *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_bool(asdf_file_t *file, const bool *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_int8(asdf_file_t *file, const int8_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_int16(asdf_file_t *file, const int16_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_int32(asdf_file_t *file, const int32_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_int64(asdf_file_t *file, const int64_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_uint8(asdf_file_t *file, const uint8_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_uint16(asdf_file_t *file, const uint16_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_uint32(asdf_file_t *file, const uint32_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_uint64(asdf_file_t *file, const uint64_t *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_float(asdf_file_t *file, const float *arr, int size);
ASDF_EXPORT asdf_sequence_t *asdf_sequence_of_double(asdf_file_t *file, const double *arr, int size);
ASDF_EXPORT asdf_value_t *asdf_sequence_pop(asdf_sequence_t *sequence, int index);

/* Mappings or sequences. */
ASDF_EXPORT bool asdf_value_is_container(asdf_value_t *value);
ASDF_EXPORT int asdf_container_size(asdf_value_t *container);
ASDF_EXPORT asdf_container_iter_t *asdf_container_iter_init(asdf_value_t *container);
ASDF_EXPORT asdf_container_iter_t *asdf_container_reverse_iter_init(asdf_value_t *container);
ASDF_EXPORT bool asdf_container_iter_next(asdf_container_iter_t **iter);
ASDF_EXPORT void asdf_container_iter_destroy(asdf_container_iter_t *iter);

/* Scalars. The *_string functions give text that is not NUL-terminated, with its length; the
 * *_string0 ones a NUL-terminated copy owned by the value. *_scalar gives the text of any
 * scalar. Integer getters succeed when the value fits the type (else ASDF_VALUE_ERR_OVERFLOW,
 * with the C conversion of the value stored); float and double getters also take integers. */
ASDF_EXPORT bool asdf_value_is_string(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_string(asdf_value_t *value, const char **out, size_t *out_len);
ASDF_EXPORT asdf_value_err_t asdf_value_as_string0(asdf_value_t *value, const char **out);
ASDF_EXPORT asdf_value_t *asdf_value_of_string(asdf_file_t *file, const char *value, size_t len);
ASDF_EXPORT asdf_value_t *asdf_value_of_string0(asdf_file_t *file, const char *value);
ASDF_EXPORT bool asdf_value_is_scalar(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_scalar(asdf_value_t *value, const char **out, size_t *out_len);
ASDF_EXPORT asdf_value_err_t asdf_value_as_scalar0(asdf_value_t *value, const char **out);
ASDF_EXPORT bool asdf_value_is_bool(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_bool(asdf_value_t *value, bool *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_bool(asdf_file_t *file, bool value);
ASDF_EXPORT bool asdf_value_is_null(asdf_value_t *value);
ASDF_EXPORT asdf_value_t *asdf_value_of_null(asdf_file_t *file);
ASDF_EXPORT bool asdf_value_is_int(asdf_value_t *value);
ASDF_EXPORT bool asdf_value_is_int8(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_int8(asdf_value_t *value, int8_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_int8(asdf_file_t *file, int8_t value);
ASDF_EXPORT bool asdf_value_is_int16(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_int16(asdf_value_t *value, int16_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_int16(asdf_file_t *file, int16_t value);
ASDF_EXPORT bool asdf_value_is_int32(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_int32(asdf_value_t *value, int32_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_int32(asdf_file_t *file, int32_t value);
ASDF_EXPORT bool asdf_value_is_int64(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_int64(asdf_value_t *value, int64_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_int64(asdf_file_t *file, int64_t value);
ASDF_EXPORT bool asdf_value_is_uint8(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_uint8(asdf_value_t *value, uint8_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_uint8(asdf_file_t *file, uint8_t value);
ASDF_EXPORT bool asdf_value_is_uint16(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_uint16(asdf_value_t *value, uint16_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_uint16(asdf_file_t *file, uint16_t value);
ASDF_EXPORT bool asdf_value_is_uint32(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_uint32(asdf_value_t *value, uint32_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_uint32(asdf_file_t *file, uint32_t value);
ASDF_EXPORT bool asdf_value_is_uint64(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_uint64(asdf_value_t *value, uint64_t *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_uint64(asdf_file_t *file, uint64_t value);
ASDF_EXPORT bool asdf_value_is_float(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_float(asdf_value_t *value, float *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_float(asdf_file_t *file, float value);
ASDF_EXPORT bool asdf_value_is_double(asdf_value_t *value);
ASDF_EXPORT asdf_value_err_t asdf_value_as_double(asdf_value_t *value, double *out);
ASDF_EXPORT asdf_value_t *asdf_value_of_double(asdf_file_t *file, double value);

/* Searching a tree below `root` for values `pred` accepts (breadth-first unless asked). */
ASDF_EXPORT asdf_value_t *asdf_value_find(asdf_value_t *root, asdf_value_pred_t pred);
ASDF_EXPORT asdf_value_t *asdf_value_find_ex(asdf_value_t *root, asdf_value_pred_t pred, bool depth_first, asdf_value_pred_t descend_pred, asdf_depth_t max_depth);
ASDF_EXPORT asdf_find_iter_t *asdf_find_iter_init(asdf_value_t *root, asdf_value_pred_t pred);
ASDF_EXPORT asdf_find_iter_t *asdf_find_iter_init_ex(asdf_value_t *root, asdf_value_pred_t pred, bool depth_first, asdf_value_pred_t descend_pred, asdf_depth_t max_depth);
ASDF_EXPORT bool asdf_value_find_iter_next(asdf_find_iter_t **iter);
ASDF_EXPORT void asdf_find_iter_destroy(asdf_find_iter_t *iter);

static inline bool asdf_find_descend_mapping_only(asdf_value_t *value) {
    return asdf_value_is_mapping(value);
}
static inline bool asdf_find_descend_sequence_only(asdf_value_t *value) {
    return asdf_value_is_sequence(value);
}

ASDF_END_DECLS

#endif
