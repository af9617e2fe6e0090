/* Binary blocks. Of libasdf's block API fitsasdf offers only the count: arrays are read and
 * written through the ndarray API, which handles blocks, codecs and checksums itself. */
#ifndef FITSASDF_LIBASDF_BLOCK_H
#define FITSASDF_LIBASDF_BLOCK_H

#include <stddef.h>

#include <asdf/util.h>

ASDF_BEGIN_DECLS

#ifndef FITSASDF_LIBASDF_FILE_T
#define FITSASDF_LIBASDF_FILE_T
typedef struct asdf_file asdf_file_t;
#endif

/* The number of binary blocks of the file (0 for NULL or a new file). */
ASDF_EXPORT size_t asdf_block_count(asdf_file_t *file);

ASDF_END_DECLS

#endif
