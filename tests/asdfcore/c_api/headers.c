/* Every public C header, compiled by tests/CMakeLists.txt as C99 and as C11 with -Wall -Wextra
 * -pedantic -Werror (the C++ tests include them as C++20). */
#include <asdf.h>
#include <asdf/block.h>
#include <asdf/core/asdf.h>
#include <asdf/core/datatype.h>
#include <asdf/core/extension_metadata.h>
#include <asdf/core/history_entry.h>
#include <asdf/core/ndarray.h>
#include <asdf/core/software.h>
#include <asdf/core/time.h>
#include <asdf/emitter.h>
#include <asdf/error.h>
#include <asdf/extension.h>
#include <asdf/file.h>
#include <asdf/log.h>
#include <asdf/parser.h>
#include <asdf/util.h>
#include <asdf/value.h>
#include <asdf/version.h>
#include <asdf/yaml.h>
#include <fitsasdf/c/convert.h>

/* Something to compile: the size of an element of each type, through the header's function. */
size_t fitsasdf_headers_check(asdf_scalar_datatype_t type);
size_t fitsasdf_headers_check(asdf_scalar_datatype_t type) { return asdf_scalar_datatype_size(type); }
