/* Parsed version strings ("1.2.3.dev4"). */
#ifndef FITSASDF_LIBASDF_VERSION_H
#define FITSASDF_LIBASDF_VERSION_H

#include <asdf/util.h>

ASDF_BEGIN_DECLS

typedef struct {
    const char *version; /* the whole text */
    unsigned int major;
    unsigned int minor;
    unsigned int patch;
    const char *extra; /* what follows major.minor.patch, without its leading '.' or '-' */
} asdf_version_t;

/* Parse `version`; text that is not X.Y.Z gives zeros and keeps the text. Free the result with
 * asdf_version_destroy. NULL only when `version` is NULL or memory runs out. */
ASDF_EXPORT asdf_version_t *asdf_version_parse(const char *version);
ASDF_EXPORT asdf_version_t *asdf_version_copy(const asdf_version_t *version);
ASDF_EXPORT void asdf_version_destroy(asdf_version_t *version);

ASDF_END_DECLS

#endif
