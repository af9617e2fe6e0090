#pragma once
/// \file
/// Read-only memory mapping of a whole file.

#include <string>

#include "asdfcore/io/buffer.h"

namespace asdfcore::io {

/// Map the file at `path` read-only and return its bytes. The mapping lives as long as any
/// buffer sliced from the result. An empty file gives an empty buffer. Throws `Error` (io) when
/// the path cannot be opened or is not a regular file.
Buffer map_file(const std::string& path);

}  // namespace asdfcore::io
