/* Types shared by the core schema objects: software records and parsed tags. libasdf's
 * extension registry (asdf_extension_register, ASDF_REGISTER_EXTENSION) is not part of
 * fitsasdf's C API: the core types (ndarray, software, history entries, meta, datatype) are
 * built in, and other tagged values are read as plain mappings, sequences and scalars. */
#ifndef FITSASDF_LIBASDF_EXTENSION_H
#define FITSASDF_LIBASDF_EXTENSION_H

#include <stddef.h>

#include <asdf/util.h>
#include <asdf/version.h>

ASDF_BEGIN_DECLS

/* A tag split into its name and version ("tag:stsci.edu:asdf/core/ndarray", 1.0.0). */
typedef struct {
    const char *name;
    const asdf_version_t *version;
} asdf_tag_t;

/* A core/software record. */
typedef struct {
    const char *name;
    const asdf_version_t *version;
    const char *author;   /* NULL when absent */
    const char *homepage; /* NULL when absent */
} asdf_software_t;

/* Opaque: extensions cannot be registered with fitsasdf's C API. */
typedef struct asdf_extension asdf_extension_t;

/* Split `tag` into name and version ("name-1.2.3"); free with asdf_tag_destroy. */
ASDF_EXPORT asdf_tag_t *asdf_tag_parse(const char *tag);
ASDF_EXPORT void asdf_tag_destroy(asdf_tag_t *tag);

ASDF_END_DECLS

#endif
