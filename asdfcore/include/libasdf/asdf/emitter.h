/* Writer settings (part of asdf_config_t). */
#ifndef FITSASDF_LIBASDF_EMITTER_H
#define FITSASDF_LIBASDF_EMITTER_H

#include <stddef.h>
#include <stdint.h>

#include <asdf/util.h>
#include <asdf/yaml.h>

ASDF_BEGIN_DECLS

/* Flags of asdf_emitter_cfg_t.flags. libasdf declares ASDF_EMITTER_OPT_LAST as 1 << 62 in
 * the enum, which ISO C does not allow an enumerator; here it is a macro. */
typedef enum {
    ASDF_EMITTER_OPT_DEFAULT = 1 << 0,
    ASDF_EMITTER_OPT_EMIT_EMPTY = 1 << 1,
    ASDF_EMITTER_OPT_NO_BLOCK_CHECKSUM = 1 << 2,
    ASDF_EMITTER_OPT_NO_BLOCK_INDEX = 1 << 3,
    ASDF_EMITTER_OPT_EMIT_EMPTY_TREE = 1 << 4,
    ASDF_EMITTER_OPT_NO_EMIT_EMPTY_TREE = 1 << 5,
    ASDF_EMITTER_OPT_NO_EMIT_ASDF_LIBRARY = 1 << 6
} asdf_emitter_opt_t;
#define ASDF_EMITTER_OPT_LAST (UINT64_C(1) << 62)

typedef uint64_t asdf_emitter_optflags_t;

/* Where an ndarray's elements are written. */
typedef enum {
    ASDF_ARRAY_STORAGE_DEFAULT = 0,
    ASDF_ARRAY_STORAGE_INLINE = 1,
    ASDF_ARRAY_STORAGE_INTERNAL = 2,
    ASDF_ARRAY_STORAGE_EXTERNAL = 3
} asdf_array_storage_t;

typedef struct asdf_emitter_cfg {
    asdf_emitter_optflags_t flags;
    asdf_yaml_tag_handle_t *tag_handles;
    size_t inline_ndarray_warning_thresh;
    asdf_array_storage_t array_storage;
} asdf_emitter_cfg_t;

ASDF_END_DECLS

#endif
