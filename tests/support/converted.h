#pragma once
// A FITS file converted to ASDF in a test's temporary folder and read back, for the converter
// tests: the report, the ASDF file, the input's bytes, and the lookups they make in the tree
// (nodes by path, native table columns, blocks, report notes); or the error refusing it.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fitsasdf/convert.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace fitsasdf::test {

/// A converted file, read back.
struct Converted {
  fitsasdf::ConversionReport report;
  asdfcore::AsdfFile file;
  std::string fits_bytes;  ///< The FITS file as converted.

  /// Return the node at `keys` below the root ("fits", "1", "data"): numbers index sequences.
  asdfcore::tree::NodePtr at(const std::vector<std::string>& keys) const {
    asdfcore::tree::NodePtr n = file.tree();
    for (const auto& k : keys) {
      REQUIRE(n);
      if (n->is_sequence()) {
        const auto i = std::stoul(k);
        REQUIRE(i < n->items().size());
        n = n->items()[i];
      } else {
        n = n->get(k);
      }
    }
    REQUIRE(n);
    return n;
  }
  /// Return the ndarray at `keys`.
  asdfcore::ndarray::NDArray array(const std::vector<std::string>& keys) const {
    return file.array(*at(keys));
  }
  /// Return the native table column `name` of the table at `table`.
  asdfcore::tree::NodePtr column(const std::string& table, const std::string& name) const {
    for (const auto& c : at({table, "columns"})->items()) {
      if (c->get("name")->as_string() == name) return c;
    }
    FAIL("no native column " << name);
    return nullptr;
  }
  /// Return the data of the native table column `name` of the table at `table`.
  asdfcore::ndarray::NDArray column_data(const std::string& table, const std::string& name) const {
    return file.array(*column(table, name)->get("data"));
  }
  /// Return the names of the native table columns of the table at `table`.
  std::vector<std::string> column_names(const std::string& table) const {
    std::vector<std::string> out;
    for (const auto& c : at({table, "columns"})->items()) {
      out.push_back(c->get("name")->as_string());
    }
    return out;
  }
  std::size_t block_count() const { return file.container().blocks().size(); }
  /// Return the (decompressed) bytes of block `i`.
  std::vector<std::uint8_t> block(std::size_t i) const {
    const auto b = file.container().data(i);
    return {b.span().begin(), b.span().end()};
  }
  /// Return the data size block `i`'s header gives.
  std::uint64_t block_size(std::size_t i) const {
    return file.container().blocks().at(i).header.data_size;
  }
  /// Return true when a note of HDU `hdu` (0-based) of the report holds `part`.
  bool has_note(std::size_t hdu, const std::string& part) const {
    for (const auto& n : report.hdus.at(hdu).notes) {
      if (n.find(part) != std::string::npos) return true;
    }
    return false;
  }
};

/// Convert `input` to an ASDF file in `dir` (named after it) and read it back.
inline Converted convert_path(const TempDir& dir, const std::filesystem::path& input,
                              fitsasdf::ConvertOptions options = {}) {
  options.durable = false;
  const std::string out = (dir / (input.filename().string() + ".asdf")).string();
  Converted c{fitsasdf::convert_fits_to_asdf(input.string(), out, options),
              asdfcore::AsdfFile::open(out),
              {}};
  std::ifstream in(input, std::ios::binary);
  c.fits_bytes.assign(std::istreambuf_iterator<char>(in), {});
  return c;
}

/// Write `fits` to `name` in `dir`, convert it and read it back.
inline Converted convert_bytes(const TempDir& dir, const std::string& fits,
                               fitsasdf::ConvertOptions options = {},
                               const std::string& name = "in.fits") {
  std::ofstream(dir / name, std::ios::binary) << fits;
  return convert_path(dir, dir / name, options);
}

/// Convert `fits`; return the error (failing the test when there is none, or when an output
/// file is left behind).
inline asdfcore::Error error_of(const std::string& fits) {
  TempDir dir;
  std::ofstream(dir / "bad.fits", std::ios::binary) << fits;
  const std::string out = (dir / "bad.asdf").string();
  try {
    fitsasdf::ConvertOptions options;
    options.durable = false;
    fitsasdf::convert_fits_to_asdf((dir / "bad.fits").string(), out, options);
  } catch (const asdfcore::Error& e) {
    CHECK_FALSE(std::filesystem::exists(out));
    return e;
  }
  FAIL("no error");
  return asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument, "unreachable");
}

/// Return the elements of `a` (C order) as `T`, which must have the element size.
template <typename T>
std::vector<T> values(const asdfcore::ndarray::NDArray& a) {
  const std::vector<std::uint8_t> bytes = a.to_c_order(asdfcore::ndarray::ByteOrder::kLittle);
  REQUIRE(a.dtype().itemsize() == sizeof(T));
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace fitsasdf::test
