#pragma once
// Helpers of the tests of libasdf's C API (include/libasdf): files made from YAML text, RAII
// owners of what the API hands out, and the MD5 of bytes.
#include <asdf.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/compression/md5.h"

namespace fitsasdf::test::capi {

/// Close a file when the test ends.
struct FileCloser {
  void operator()(asdf_file_t* f) const { asdf_close(f); }
};
using FilePtr = std::unique_ptr<asdf_file_t, FileCloser>;

/// Free a value when the test ends.
struct ValueFree {
  void operator()(asdf_value_t* v) const { asdf_value_destroy(v); }
};
using ValuePtr = std::unique_ptr<asdf_value_t, ValueFree>;

/// Free an ndarray when the test ends.
struct NdarrayFree {
  void operator()(asdf_ndarray_t* a) const { asdf_ndarray_destroy(a); }
};
using NdarrayPtr = std::unique_ptr<asdf_ndarray_t, NdarrayFree>;

/// Free a library buffer when the test ends.
struct BufferFree {
  void operator()(void* p) const { asdf_free(p); }
};
using BufferPtr = std::unique_ptr<void, BufferFree>;

/// Return the text of an ASDF file without blocks whose tree (below the root tag) is `yaml`.
inline std::string asdf_text(const std::string& yaml) {
  return "#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
         "--- !core/asdf-1.1.0\n" + yaml + "...\n";
}

/// Open the ASDF file held in `bytes` (a copy is made).
inline FilePtr open_text(const std::string& bytes) {
  return FilePtr(asdf_open_mem(bytes.data(), bytes.size()));
}

/// Return the hex MD5 of `bytes`.
inline std::string md5_hex(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  return asdfcore::compression::to_hex(asdfcore::compression::md5(std::span(p, size)));
}

}  // namespace fitsasdf::test::capi
