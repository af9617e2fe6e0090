/* The root of an ASDF tree (core/asdf): the library that wrote the file and its history. */
#ifndef FITSASDF_LIBASDF_CORE_ASDF_H
#define FITSASDF_LIBASDF_CORE_ASDF_H

#include <asdf/core/extension_metadata.h>
#include <asdf/core/history_entry.h>
#include <asdf/core/software.h>
#include <asdf/extension.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

#define ASDF_STANDARD_TAG_PREFIX "tag:stsci.edu:asdf/"
#define ASDF_CORE_TAG_PREFIX ASDF_STANDARD_TAG_PREFIX "core/"

/* This library (fitsasdf), as the software record it writes. */
ASDF_EXPORT extern asdf_version_t libasdf_version;
ASDF_EXPORT extern asdf_software_t libasdf_software;

typedef struct {
    const asdf_extension_metadata_t **extensions; /* NULL-terminated */
    const asdf_history_entry_t **entries;         /* NULL-terminated */
} asdf_meta_history_t;

typedef struct {
    asdf_software_t *asdf_library; /* NULL when the file does not say */
    asdf_meta_history_t history;   /* both lists NULL-terminated, empty when absent */
} asdf_meta_t;

/* The root's metadata (`path` "" or "/"; history as a list or as {extensions, entries}). Free
 * it with asdf_meta_destroy. */
ASDF_EXPORT asdf_value_err_t asdf_get_meta(asdf_file_t *file, const char *path, asdf_meta_t **out);
ASDF_EXPORT asdf_value_err_t asdf_value_as_meta(asdf_value_t *value, asdf_meta_t **out);
ASDF_EXPORT void asdf_meta_destroy(asdf_meta_t *meta);

ASDF_END_DECLS

#endif
