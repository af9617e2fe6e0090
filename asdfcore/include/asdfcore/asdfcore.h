#pragma once
/// \file
/// The public entry header of asdfcore, the ASDF library of fitsasdf: include this one.
///
/// Reading: `File::open` gives the tree as `Value`s (by key, index or JSON Pointer, with typed
/// getters) and arrays as typed `ArrayView`s that read the file's memory mapping without a copy
/// when they can. Writing: build a `Tree` of plain values and `Array`s and `write` it, or
/// stream an array that never fits in memory through a `StreamWriter`. Every failure is an
/// `Error` with a category (`ErrorCode`) and the place: file, byte offset, tree path.
///
/// \code
///   #include <asdfcore/asdfcore.h>
///   asdfcore::File in = asdfcore::File::open("in.asdf");
///   asdfcore::Tree tree;
///   tree["exptime"] = in.get<double>("/meta/exposure/exptime");
///   tree["sci"] = asdfcore::Array::take(in.array_as<double>("/data").to_vector(), {64, 64});
///   asdfcore::write("out.asdf", tree);
/// \endcode
///
/// The headers in the sub-folders (format/, tree/, ndarray/, compression/, io/, extension/)
/// are the lower layers these are built on: usable, but they change more often.

#include "asdfcore/array_view.h"  // IWYU pragma: export
#include "asdfcore/error.h"       // IWYU pragma: export
#include "asdfcore/file.h"        // IWYU pragma: export
#include "asdfcore/stream_writer.h"  // IWYU pragma: export
#include "asdfcore/tree_builder.h"   // IWYU pragma: export
#include "asdfcore/update.h"         // IWYU pragma: export
#include "asdfcore/value.h"       // IWYU pragma: export
#include "asdfcore/version.h"     // IWYU pragma: export
#include "asdfcore/write.h"       // IWYU pragma: export
