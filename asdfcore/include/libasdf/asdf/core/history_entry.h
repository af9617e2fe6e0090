/* core/history_entry records. */
#ifndef FITSASDF_LIBASDF_CORE_HISTORY_ENTRY_H
#define FITSASDF_LIBASDF_CORE_HISTORY_ENTRY_H

#include <time.h>

#include <asdf/core/software.h>
#include <asdf/core/time.h>
#include <asdf/extension.h>
#include <asdf/file.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

typedef struct {
    const char *description;
    const asdf_time_t *time;          /* NULL when the entry has none */
    const asdf_software_t **software; /* NULL-terminated (empty when none) */
} asdf_history_entry_t;

ASDF_EXPORT asdf_value_err_t asdf_get_history_entry(asdf_file_t *file, const char *path, asdf_history_entry_t **out);
ASDF_EXPORT asdf_value_err_t asdf_value_as_history_entry(asdf_value_t *value, asdf_history_entry_t **out);
ASDF_EXPORT void asdf_history_entry_destroy(asdf_history_entry_t *entry);
/* Append an entry with `description`, the current time and this library as its software to
 * the file's history (written with the file). 0 on success. */
ASDF_EXPORT int asdf_history_entry_add(asdf_file_t *file, const char *description);

ASDF_END_DECLS

#endif
