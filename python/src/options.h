#pragma once
// The keyword arguments of the module's calls, read into the library's options structs. The
// package's wrappers pass every argument by name; a name nobody reads is an error, so a typo in
// the wrappers cannot be silently ignored.
#include <set>
#include <string>

#include "bindings.h"
#include "fitsasdf/diff.h"
#include "fitsasdf/options.h"
#include "fitsasdf/to_fits.h"

namespace fitsasdf::python {

/// Keyword arguments being read: each `get` marks its name as used.
class Kwargs {
 public:
  explicit Kwargs(py::kwargs kwargs) : kwargs_(std::move(kwargs)) {}
  /// Return the argument `name` as `T`, or `fallback` when it is absent or None.
  template <typename T>
  T get(const char* name, T fallback) {
    used_.insert(name);
    if (!kwargs_.contains(name)) return fallback;
    const py::object value = kwargs_[name];
    if (value.is_none()) return fallback;
    return py::cast<T>(value);
  }
  /// Return the argument `name` as it is (None when absent).
  py::object object(const char* name) {
    used_.insert(name);
    return kwargs_.contains(name) ? py::object(kwargs_[name]) : py::object(py::none());
  }
  /// Throw TypeError naming an argument no `get` asked for.
  void check_all_used(const char* function) const;

 private:
  py::kwargs kwargs_;
  std::set<std::string> used_;
};

/// Read `compression_level`: 0 to 9, or -1 for the codec's default (as the command line).
int compression_level(Kwargs& kw);
/// Read `checksum` ("stored", "decoded" or "none"): what each written block's MD5 covers.
asdfcore::format::ChecksumConvention checksum_convention(Kwargs& kw);
/// Read the FITS -> ASDF settings (compress, compression_level, scaling, checksum, fits_tag,
/// native_byte_order, asdf_standard, native_view, fits_list, threads, durable, max_memory).
ConvertOptions to_asdf_options(Kwargs& kw);
/// Read the ASDF -> FITS settings (durable, add_checksums, verify_checksums, max_memory).
AsdfToFitsOptions to_fits_options(Kwargs& kw);
/// Read the comparison settings (mode, ignore_keywords, ignore_paths, max_listed).
CompareOptions compare_options(Kwargs& kw);

}  // namespace fitsasdf::python
