/* core/software records (asdf_software_t is declared in <asdf/extension.h>). */
#ifndef FITSASDF_LIBASDF_CORE_SOFTWARE_H
#define FITSASDF_LIBASDF_CORE_SOFTWARE_H

#include <stdbool.h>

#include <asdf/extension.h>
#include <asdf/file.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

/* The software record at `path` (a mapping with a name and version). Free it with
 * asdf_software_destroy. */
ASDF_EXPORT asdf_value_err_t asdf_get_software(asdf_file_t *file, const char *path, asdf_software_t **out);
ASDF_EXPORT asdf_value_err_t asdf_value_as_software(asdf_value_t *value, asdf_software_t **out);
ASDF_EXPORT void asdf_software_destroy(asdf_software_t *software);

ASDF_END_DECLS

#endif
