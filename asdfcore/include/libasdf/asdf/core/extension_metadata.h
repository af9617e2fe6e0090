/* core/extension_metadata records (the history's list of extensions used). */
#ifndef FITSASDF_LIBASDF_CORE_EXTENSION_METADATA_H
#define FITSASDF_LIBASDF_CORE_EXTENSION_METADATA_H

#include <asdf/core/software.h>
#include <asdf/extension.h>
#include <asdf/util.h>
#include <asdf/value.h>

ASDF_BEGIN_DECLS

typedef struct {
    const char *extension_class;
    const asdf_software_t *package; /* NULL when absent */
    asdf_mapping_t *metadata;       /* the whole record, as a mapping */
} asdf_extension_metadata_t;

ASDF_END_DECLS

#endif
