/* fitsasdf's implementation of libasdf's C API (libasdf 0.2.0): include this one header.
 * Compile with `pkg-config --cflags fitsasdf` (or asdfcore), link with `pkg-config --libs`. */
#ifndef FITSASDF_LIBASDF_ASDF_H
#define FITSASDF_LIBASDF_ASDF_H

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

#endif
