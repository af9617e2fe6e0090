// The interop matrix of the ASDF core: trees we write with asdfcore::write_asdf, opened by python
// asdf 2.14 (Debian's python3-asdf, through asdf_arrays.py) with schema validation on, must give
// back the values we wrote. Covered: every datatype x both byte orders (where a type has one) x
// every codec, for ASDF Standard 1.5.0 (ndarray-1.0.0 tags) and 1.6.0 (ndarray-1.1.0 tags); then
// views sharing a block (a negative stride among them), value and array masks, inline arrays,
// a streamed array, exploded files, big integers, complex scalars, an unknown tag and anchors.
// Expected values are computed here from the elements we generated (little-endian, C order) and
// never read back through the library; all files go to python in one run. A second test reads
// the same files with our AsdfFile.
//
// What python asdf 2.14 does with them, pinned below:
// - ASDF Standard 1.5.0: no warning at all, schema validation passes.
// - ndarray-1.1.0: read correctly, but 2.14 ships no schema for the tag, so every 1.6.0 file
//   with an array warns "AsdfWarning: Unable to locate schema file for
//   'tag:stsci.edu:asdf/core/ndarray-1.1.0': 'http://stsci.edu/schemas/asdf/core/ndarray-1.1.0'"
//   (and its arrays are not validated).
// - An ndarray-1.1.0 mask that is itself an ndarray is silently ignored (value masks work).
// - float16 (an ndarray-1.1.0 datatype): 2.14 knows no such datatype and cannot open the file:
//   "ValueError: Unknown datatype float16".
// - Negative strides are accepted (the ndarray-1.0.0 schema allows strides <= -1).
// - An inline list with a null and no datatype becomes a masked array of dtype object ("|O");
//   with a datatype it gets that type. Inline records holding records cannot be read ("ValueError:
//   data can not be converted to structured array", also for files python writes itself).
// - An inline float `.nan` reads as a NaN with the sign bit set (PyYAML's -inf/inf); a complex
//   "nan" as a positive one.
// - An unknown tag is kept on the raw dict with exactly one warning: "AsdfConversionWarning:
//   tag:example.org/foo-1.0.0 is not recognized, converting to raw Python data structure".
// - Integer literals must lie in [-(2**63 - 2), 2**63 - 1]: -2**63 and -2**63 + 1 are read but
//   warn "AsdfWarning: Invalid integer literal value ... detected while reading file. ...".
// - A YAML alias gives the same python object (`a is b`), arrays included.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/extension/core_types.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/rewrite.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/reference.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Field;
using asdfcore::ndarray::NDArrayNodeSpec;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
using nlohmann::json;

namespace {

using Bytes = std::vector<std::uint8_t>;

const std::string kNdarray11Warning =
    "AsdfWarning: Unable to locate schema file for 'tag:stsci.edu:asdf/core/ndarray-1.1.0': "
    "'http://stsci.edu/schemas/asdf/core/ndarray-1.1.0'";
const std::string kUnknownTag = "tag:example.org/foo-1.0.0";
const std::vector<std::string> kStandards = {"1.5.0", "1.6.0"};
const std::vector<std::string> kCodecs = {"", "zlib", "bzp2", "lz4"};

std::string md5_hex(std::span<const std::uint8_t> bytes) {
  return asdfcore::compression::to_hex(asdfcore::compression::md5(bytes));
}

/// Return `r[group][path]`, or null when python did not report it.
json reported(const json& r, const std::string& group, const std::string& path) {
  if (!r.contains(group) || !r.at(group).contains(path)) return nullptr;
  return r.at(group).at(path);
}

std::string asdf_tag(const std::string& name) {
  return std::string(asdfcore::tree::kAsdfTagPrefix) + name;
}

/// The ndarray tag version a file of `standard` uses.
std::string ndarray_version(const std::string& standard) {
  return standard == "1.5.0" ? "1.0.0" : "1.1.0";
}

std::uint64_t product(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

// ---- Element values, generated little-endian ----

template <typename U>
void put_le(Bytes& out, U bits) {
  for (std::size_t k = 0; k < sizeof(U); ++k) {
    out.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
  }
}

/// Append the `i`-th test value of `T`: the type's edge cases first, then a spread of others.
template <typename T>
void put_sample(Bytes& out, std::uint64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    out.push_back(static_cast<std::uint8_t>(i % 3 == 1 ? 1 : 0));
  } else if constexpr (std::is_same_v<T, asdfcore::ndarray::Float16>) {
    // 0, -0, 1, -5, the largest, the smallest subnormal, inf, a NaN.
    constexpr std::array<std::uint16_t, 8> kEdges{0x0000, 0x8000, 0x3c00, 0xc500,
                                                  0x7bff, 0x0001, 0x7c00, 0x7e00};
    put_le<std::uint16_t>(out, i < kEdges.size() ? kEdges[i]
                                                 : asdfcore::ndarray::double_to_float16(
                                                       static_cast<double>(i) * 0.37 - 3.0));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using L = std::numeric_limits<T>;
    const std::array<T, 5> edges{L::min(), L::max(), T(0), T(-1), T(1)};
    const T v = i < edges.size()
                    ? edges[i]
                    : static_cast<T>(static_cast<U>((i * 0x9e3779b97f4a7c15ull) >> 17));
    put_le<U>(out, static_cast<U>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    using L = std::numeric_limits<T>;
    const std::array<T, 10> edges{T(0),           T(-0.0),       T(1.5),          T(-2.75e-3),
                                  L::max(),       L::lowest(),   L::denorm_min(), L::infinity(),
                                  -L::infinity(), L::quiet_NaN()};
    const T v = i < edges.size() ? edges[i]
                                 : static_cast<T>((static_cast<double>(i) * 0.731 - 17.0) *
                                                  std::pow(10.0, static_cast<int>(i % 7) - 3));
    put_le<U>(out, std::bit_cast<U>(v));
  } else {  // std::complex<F>: real part, then imaginary part
    using F = typename T::value_type;
    put_sample<F>(out, i);
    put_sample<F>(out, i + 3);
  }
}

/// Append `length` ASCII bytes: printable characters, NUL padded after a varying length.
void put_ascii(Bytes& out, std::uint64_t length, std::uint64_t i) {
  const std::uint64_t used = (i * 5 + 1) % (length + 1);
  for (std::uint64_t k = 0; k < length; ++k) {
    out.push_back(k < used ? static_cast<std::uint8_t>(0x21 + (i * 7 + k * 13) % 94) : 0);
  }
}

/// Append `length` UCS-4 characters (outside ASCII and the BMP too), NUL padded.
void put_ucs4(Bytes& out, std::uint64_t length, std::uint64_t i) {
  constexpr std::array<std::uint32_t, 8> kChars{'a', 0xe9, 0x3a9, 0x4e2d, 0x1f600, 'Z', ' ', '~'};
  const std::uint64_t used = (i * 3 + 2) % (length + 1);
  for (std::uint64_t k = 0; k < length; ++k) {
    put_le<std::uint32_t>(out, k < used ? kChars[(i + k * 5) % kChars.size()] : 0);
  }
}

/// Append element `i` of `type`, every number little-endian; records field by field.
void put_element(Bytes& out, const DType& type, std::uint64_t i) {
  switch (type.kind()) {
    case DTypeKind::kAscii:
      put_ascii(out, type.length(), i);
      return;
    case DTypeKind::kUcs4:
      put_ucs4(out, type.length(), i);
      return;
    case DTypeKind::kStructured: {
      std::uint64_t k = 0;
      for (const Field& f : type.fields()) {
        for (std::uint64_t n = 0; n < f.count(); ++n) put_element(out, f.dtype, i * 11 + k++);
      }
      return;
    }
    default:
      asdfcore::ndarray::visit_numeric(
          type.kind(), [&](auto id) { put_sample<typename decltype(id)::type>(out, i); });
  }
}

/// Return `count` elements of `type` (little-endian), the first being element `first`.
Bytes le_elements(const DType& type, std::uint64_t count, std::uint64_t first = 0) {
  Bytes out;
  for (std::uint64_t i = 0; i < count; ++i) put_element(out, type, first + i);
  return out;
}

/// Return the little-endian elements `le` of `le_type` stored in `order`.
Bytes stored_in(Bytes le, const DType& le_type, ByteOrder order) {
  if (order == ByteOrder::kBig) {
    const auto plan = le_type.swap_plan(ByteOrder::kBig);
    asdfcore::ndarray::apply_swap_plan(le, le_type.itemsize(), plan);
  }
  return le;
}

/// Return the elements a view selects from `src`, in C order: `offset` and `strides` in bytes.
Bytes gather(const Bytes& src, std::uint64_t itemsize, std::int64_t offset,
             const std::vector<std::uint64_t>& shape, const std::vector<std::int64_t>& strides) {
  Bytes out;
  std::vector<std::uint64_t> index(shape.size(), 0);
  for (std::uint64_t n = 0; n < product(shape); ++n) {
    std::int64_t at = offset;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      at += static_cast<std::int64_t>(index[d]) * strides[d];
    }
    const auto begin = src.begin() + at;
    out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>(itemsize));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// ---- The element types of the matrix ----

/// A record with a nested record, a sub-array field, strings, a bool and a complex field.
DType record_type() {
  const ByteOrder le = ByteOrder::kLittle;
  const DType position =
      DType::structured({Field{.name = "ra", .dtype = DType::numeric(DTypeKind::kFloat64, le)},
                         Field{.name = "dec", .dtype = DType::numeric(DTypeKind::kFloat64, le)}});
  return DType::structured({
      Field{.name = "id", .dtype = DType::numeric(DTypeKind::kUInt16, le)},
      Field{.name = "position", .dtype = position},
      Field{.name = "kernel", .dtype = DType::numeric(DTypeKind::kFloat32, le), .shape = {2, 3}},
      Field{.name = "flag", .dtype = DType::numeric(DTypeKind::kBool8)},
      Field{.name = "code", .dtype = DType::ascii(5)},
      Field{.name = "label", .dtype = DType::ucs4(3, le)},
      Field{.name = "z", .dtype = DType::numeric(DTypeKind::kComplex64, le)},
      Field{.name = "count", .dtype = DType::numeric(DTypeKind::kInt64, le)},
  });
}

/// A record without nested records: a sub-array field, strings, a bool and a complex field.
DType flat_record_type() {
  const ByteOrder le = ByteOrder::kLittle;
  return DType::structured({
      Field{.name = "id", .dtype = DType::numeric(DTypeKind::kInt32, le)},
      Field{.name = "kernel", .dtype = DType::numeric(DTypeKind::kFloat64, le), .shape = {3, 2}},
      Field{.name = "code", .dtype = DType::ascii(4)},
      Field{.name = "label", .dtype = DType::ucs4(2, le)},
      Field{.name = "flag", .dtype = DType::numeric(DTypeKind::kBool8)},
      Field{.name = "z", .dtype = DType::numeric(DTypeKind::kComplex128, le)},
  });
}

/// One element type of the matrix, little-endian.
struct Variant {
  std::string label;
  DType type;
  std::vector<std::uint64_t> shape;
  bool has_order = true;  ///< False for one-byte kinds and ASCII: one byte order only.
};

std::vector<Variant> variants(bool with_float16) {
  std::vector<Variant> out;
  const std::vector<std::uint64_t> numeric_shape{4, 15};
  for (DTypeKind kind :
       {DTypeKind::kInt8, DTypeKind::kInt16, DTypeKind::kInt32, DTypeKind::kInt64,
        DTypeKind::kUInt8, DTypeKind::kUInt16, DTypeKind::kUInt32, DTypeKind::kUInt64,
        DTypeKind::kFloat16, DTypeKind::kFloat32, DTypeKind::kFloat64, DTypeKind::kComplex64,
        DTypeKind::kComplex128, DTypeKind::kBool8}) {
    if (kind == DTypeKind::kFloat16 && !with_float16) continue;
    const DType type = DType::numeric(kind, ByteOrder::kLittle);
    out.push_back({std::string(asdfcore::ndarray::kind_info(kind).asdf_name), type, numeric_shape,
                   type.itemsize() > 1});
  }
  out.push_back({"ascii7", DType::ascii(7), {3, 5}, false});
  out.push_back({"ucs4_4", DType::ucs4(4, ByteOrder::kLittle), {3, 5}, true});
  out.push_back({"record", record_type(), {9}, true});
  out.push_back({"flat_record", flat_record_type(), {2, 3}, true});
  return out;
}

std::vector<ByteOrder> orders_of(const Variant& v) {
  if (!v.has_order) return {ByteOrder::kNotApplicable};
  return {ByteOrder::kLittle, ByteOrder::kBig};
}

std::string order_label(ByteOrder order) {
  switch (order) {
    case ByteOrder::kLittle:
      return "little";
    case ByteOrder::kBig:
      return "big";
    case ByteOrder::kNotApplicable:
      break;
  }
  return "one-byte";
}

// ---- Cases: a file and what must be read from it ----

struct MaskWant {
  std::string md5;  ///< MD5 of one byte (0/1) per element, C order.
  std::uint64_t count = 0;
};

/// What python and our reader must find in one file.
struct Want {
  std::map<std::string, std::string> md5;         ///< Array path -> MD5 of its LE C-order elements.
  std::map<std::string, std::string> inline_md5;  ///< The same once written inline.
  std::map<std::string, std::vector<std::uint64_t>> shape;  ///< Array path -> shape.
  std::map<std::string, std::string> dtype;  ///< Array path -> numpy dtype.str (both readers).
  std::map<std::string, MaskWant> masks;     ///< Masked array path -> its mask.
  std::set<std::string> python_drops_mask;   ///< Masked arrays python reads without their mask.
  std::map<std::string, std::string> ours_only_md5;  ///< Arrays python does not report.
  std::set<std::string> python_unchecked;        ///< Arrays python reports but we do not compare.
  std::set<std::string> warnings;                ///< Exactly the warnings python gives.
  std::string error;                             ///< Python's error; empty when it reads the file.
  std::function<void(const json&)> python_more;  ///< Further checks of python's record.
};

struct Case {
  std::string name;
  std::string standard;
  std::string path;
  Want want;
};

/// The bytes of a file's blocks while it is assembled (the writer takes spans).
class Blocks {
 public:
  /// Add a block holding `bytes` compressed with `codec`; return its index.
  std::int64_t add(Bytes bytes, const std::string& codec, bool streamed = false) {
    data_.push_back(std::make_unique<Bytes>(std::move(bytes)));
    asdfcore::format::BlockToWrite b;
    b.pieces.push_back(std::span<const std::uint8_t>(*data_.back()));
    b.compression = codec;
    b.streamed = streamed;
    blocks_.push_back(std::move(b));
    return static_cast<std::int64_t>(blocks_.size() - 1);
  }
  std::span<const asdfcore::format::BlockToWrite> list() const { return blocks_; }

 private:
  std::vector<std::unique_ptr<Bytes>> data_;
  std::vector<asdfcore::format::BlockToWrite> blocks_;
};

void write_file(const std::string& path, const NodePtr& root, const Blocks& blocks,
                const std::string& standard) {
  asdfcore::AsdfWriteOptions options;
  options.asdf_standard = standard;
  options.layout.durable = false;
  asdfcore::write_asdf(path, root, blocks.list(), options);
}

/// The warnings python gives for a file of `standard` with ndarray nodes: none for 1.5.0; for
/// 1.6.0 the missing ndarray-1.1.0 schema, the one warning tolerated.
std::set<std::string> array_warnings(const std::string& standard) {
  if (ndarray_version(standard) == "1.1.0") return {kNdarray11Warning};
  return {};
}

/// Replace, in the element at `p` of `type` (little-endian), every NaN by the NaN its inline form
/// reads as. A float's `.nan` reads as PyYAML's NaN, computed as -inf/inf, which has the sign bit
/// set; a complex number's "nan" is parsed by python's complex(), which gives a positive NaN.
/// Our reader does the same; an inline array keeps neither the sign nor the payload of a NaN.
void yaml_nans(std::uint8_t* p, const DType& type) {
  auto fix = [p](std::size_t at, std::size_t size, bool negative) {
    std::uint64_t bits = 0;
    for (std::size_t k = 0; k < size; ++k) bits |= std::uint64_t{p[at + k]} << (8 * k);
    const bool nan = size == 4 ? std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                               : std::isnan(std::bit_cast<double>(bits));
    if (!nan) return;
    bits = size == 4 ? 0x7fc00000u : 0x7ff8000000000000u;
    if (negative) bits |= std::uint64_t{1} << (8 * size - 1);
    for (std::size_t k = 0; k < size; ++k) p[at + k] = static_cast<std::uint8_t>(bits >> (8 * k));
  };
  switch (type.kind()) {
    case DTypeKind::kFloat32:
      return fix(0, 4, true);
    case DTypeKind::kFloat64:
      return fix(0, 8, true);
    case DTypeKind::kComplex64:
      fix(0, 4, false);
      return fix(4, 4, false);
    case DTypeKind::kComplex128:
      fix(0, 8, false);
      return fix(8, 8, false);
    case DTypeKind::kStructured:
      for (const Field& f : type.fields()) {
        for (std::uint64_t n = 0; n < f.count(); ++n) {
          yaml_nans(p + f.offset + n * f.dtype.itemsize(), f.dtype);
        }
      }
      return;
    default:
      return;
  }
}

/// Record array `path` (elements `le`, little-endian, C order) in `want`. Give `le_type` when
/// the elements may hold NaNs, for the MD5 of the inline form.
void expect_array(Want& want, const std::string& path, const Bytes& le,
                  const std::vector<std::uint64_t>& shape, const std::string& dtype,
                  const std::optional<DType>& le_type = {}) {
  want.md5[path] = md5_hex(le);
  Bytes inline_le = le;
  if (le_type) {
    for (std::size_t at = 0; at < inline_le.size(); at += le_type->itemsize()) {
      yaml_nans(inline_le.data() + at, *le_type);
    }
  }
  want.inline_md5[path] = md5_hex(inline_le);
  want.shape[path] = shape;
  if (!dtype.empty()) want.dtype[path] = dtype;
}

MaskWant mask_of(const std::vector<std::uint8_t>& flags) {
  std::uint64_t count = 0;
  for (std::uint8_t f : flags) count += f;
  return {md5_hex(flags), count};
}

/// Add, under `key` of `root`, an ndarray of `stored_type` in a new block of `blocks`.
NodePtr add_array(const NodePtr& root, const std::string& key, Blocks& blocks, Bytes stored,
                  const DType& stored_type, const std::vector<std::uint64_t>& shape,
                  const std::string& codec, const std::string& standard) {
  NDArrayNodeSpec spec;
  spec.dtype = stored_type;
  spec.shape = shape;
  spec.source = blocks.add(std::move(stored), codec);
  spec.version = ndarray_version(standard);
  NodePtr node = asdfcore::ndarray::make_ndarray_node(spec);
  root->set(key, node);
  return node;
}

// -- The datatype matrix --

void add_matrix(const fs::path& dir, std::vector<Case>& cases) {
  for (const std::string& standard : kStandards) {
    // float16 exists from ndarray-1.1.0 (ASDF Standard 1.6.0) on.
    for (const Variant& v : variants(standard == "1.6.0")) {
      for (ByteOrder order : orders_of(v)) {
        for (const std::string& codec : kCodecs) {
          Case c;
          c.standard = standard;
          c.name = standard + " " + v.label + " " + order_label(order) + " " +
                   (codec.empty() ? "uncompressed" : codec);
          c.path = (dir / ("matrix-" + standard + "-" + v.label + "-" + order_label(order) + "-" +
                           (codec.empty() ? "none" : codec) + ".asdf"))
                       .string();
          const Bytes le = le_elements(v.type, product(v.shape));
          const DType stored_type = v.type.with_byte_order(order);
          NodePtr root = Node::make_mapping();
          Blocks blocks;
          add_array(root, "array", blocks, stored_in(le, v.type, order), stored_type, v.shape,
                    codec, standard);
          write_file(c.path, root, blocks, standard);
          expect_array(c.want, "/array", le, v.shape, stored_type.numpy_str(), v.type);
          c.want.warnings = array_warnings(standard);
          if (v.type.kind() == DTypeKind::kFloat16) {
            // python asdf 2.14 has no float16 in its datatype table (ndarray-1.1.0 added it),
            // so it cannot read the file at all.
            c.want.error = "ValueError: Unknown datatype float16";
          }
          cases.push_back(std::move(c));
        }
      }
    }
  }
}

/// A file with one array of every datatype `keep` accepts, in every byte order (float16 left out:
/// python cannot read it), each in its own block, the codecs taking turns. Input of the rewrite
/// cases.
Case all_types_file(const fs::path& path, const std::string& standard, const std::string& name,
                    const std::function<bool(const Variant&)>& keep) {
  Case c{.name = standard + " " + name, .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  NodePtr arrays = Node::make_mapping();
  root->set("arrays", arrays);
  Blocks blocks;
  std::size_t turn = 0;
  for (const Variant& v : variants(false)) {
    if (!keep(v)) continue;
    // Elements from 5 on for int64 and uint64: no value beyond python's integer literal range,
    // so that the inline form stays valid too.
    const bool wide = v.type.kind() == DTypeKind::kInt64 || v.type.kind() == DTypeKind::kUInt64;
    for (ByteOrder order : orders_of(v)) {
      const std::string key = v.label + "_" + order_label(order);
      const Bytes le = le_elements(v.type, product(v.shape), wide ? 5 : 0);
      const DType stored_type = v.type.with_byte_order(order);
      add_array(arrays, key, blocks, stored_in(le, v.type, order), stored_type, v.shape,
                kCodecs[turn++ % kCodecs.size()], standard);
      expect_array(c.want, "/arrays/" + key, le, v.shape, stored_type.numpy_str(), v.type);
    }
  }
  write_file(c.path, root, blocks, standard);
  c.want.warnings = array_warnings(standard);
  return c;
}

// -- Views --

struct View {
  std::string key;
  std::vector<std::uint64_t> shape;
  std::int64_t offset = 0;            ///< In elements.
  std::vector<std::int64_t> strides;  ///< In elements; empty: none written.
};

/// Views of a 6 x 8 array: rows, columns, a transpose, and three with a negative stride.
const std::vector<View> kViews = {
    {"whole", {6, 8}, 0, {}},
    {"odd_rows", {3, 8}, 8, {16, 1}},
    {"every_third_column", {6, 3}, 1, {8, 3}},
    {"transposed", {8, 6}, 0, {1, 8}},
    {"diagonal_backwards", {6}, 45, {-9}},
    {"rows_upside_down", {6, 8}, 40, {-8, 1}},
    {"last_row_backwards", {8}, 47, {-1}},
};

Case views_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " views", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  struct Base {
    std::string key;
    DType le_type;
    ByteOrder order;
    std::string codec;
  };
  const std::vector<Base> bases = {
      {"f8", DType::numeric(DTypeKind::kFloat64, ByteOrder::kLittle), ByteOrder::kLittle, ""},
      {"i4", DType::numeric(DTypeKind::kInt32, ByteOrder::kLittle), ByteOrder::kBig, "zlib"},
      {"rec", flat_record_type(), ByteOrder::kBig, "lz4"},
  };
  for (const Base& base : bases) {
    const Bytes le = le_elements(base.le_type, 48, 20);
    const std::int64_t source = blocks.add(stored_in(le, base.le_type, base.order), base.codec);
    const DType stored_type = base.le_type.with_byte_order(base.order);
    const auto itemsize = static_cast<std::int64_t>(base.le_type.itemsize());
    NodePtr group = Node::make_mapping();
    root->set(base.key, group);
    for (const View& v : kViews) {
      NDArrayNodeSpec spec;
      spec.dtype = stored_type;
      spec.shape = v.shape;
      spec.source = source;
      spec.offset = static_cast<std::uint64_t>(v.offset * itemsize);
      for (std::int64_t s : v.strides) spec.strides.push_back(s * itemsize);
      spec.version = ndarray_version(standard);
      group->set(v.key, asdfcore::ndarray::make_ndarray_node(spec));
      std::vector<std::int64_t> strides = spec.strides;
      if (strides.empty()) strides = {8 * itemsize, itemsize};
      expect_array(c.want, "/" + base.key + "/" + v.key,
                   gather(le, base.le_type.itemsize(), v.offset * itemsize, v.shape, strides),
                   v.shape, stored_type.numpy_str(), base.le_type);
    }
  }
  write_file(c.path, root, blocks, standard);
  c.want.warnings = array_warnings(standard);
  return c;
}

// -- Masks --

Case masks_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " masks", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  const ByteOrder le = ByteOrder::kLittle;

  // An integer value mask: -999 marks elements 2, 5 and 11.
  {
    Bytes data;
    std::vector<std::uint8_t> flags;
    for (std::int32_t i = 0; i < 12; ++i) {
      const bool missing = i == 2 || i == 5 || i == 11;
      put_le<std::uint32_t>(data, static_cast<std::uint32_t>(missing ? -999 : i * 7 - 20));
      flags.push_back(static_cast<std::uint8_t>(missing ? 1 : 0));
    }
    NodePtr node = add_array(root, "value_mask", blocks, data,
                             DType::numeric(DTypeKind::kInt32, le), {12}, "", standard);
    node->set("mask", Node::make_int(-999));
    expect_array(c.want, "/value_mask", data, {12}, "<i4");
    c.want.masks["/value_mask"] = mask_of(flags);
  }
  // A NaN mask on big-endian float64: it marks the NaNs.
  {
    Bytes le_data;
    std::vector<std::uint8_t> flags;
    for (int i = 0; i < 6; ++i) {
      const bool nan = i == 1 || i == 4;
      put_le<std::uint64_t>(le_data, std::bit_cast<std::uint64_t>(
                                         nan ? std::numeric_limits<double>::quiet_NaN() : i * 0.5));
      flags.push_back(static_cast<std::uint8_t>(nan ? 1 : 0));
    }
    const DType t = DType::numeric(DTypeKind::kFloat64, le);
    NodePtr node = add_array(root, "nan_mask", blocks, stored_in(le_data, t, ByteOrder::kBig),
                             t.with_byte_order(ByteOrder::kBig), {2, 3}, "zlib", standard);
    node->set("mask", Node::make_float(std::numeric_limits<double>::quiet_NaN()));
    expect_array(c.want, "/nan_mask", le_data, {2, 3}, ">f8", t);
    c.want.masks["/nan_mask"] = mask_of(flags);
  }
  // A float value mask: numpy's isclose (rtol 1e-5) also takes 1.5000001 (float32).
  {
    Bytes data;
    const std::array<float, 5> values{1.5f, 2.0f, 1.5000001f, 3.0f, -1.5f};
    for (float v : values) put_le<std::uint32_t>(data, std::bit_cast<std::uint32_t>(v));
    NodePtr node = add_array(root, "float_mask", blocks, data,
                             DType::numeric(DTypeKind::kFloat32, le), {5}, "", standard);
    node->set("mask", Node::make_float(1.5));
    expect_array(c.want, "/float_mask", data, {5}, "<f4");
    c.want.masks["/float_mask"] = mask_of({1, 0, 1, 0, 0});
  }
  // A complex value mask (a core/complex scalar): exact equality for complex numbers.
  {
    Bytes data;
    const std::array<std::complex<double>, 4> values{{{1, 2}, {0, 0}, {1, 2}, {3, -1}}};
    for (const auto& v : values) {
      put_le<std::uint64_t>(data, std::bit_cast<std::uint64_t>(v.real()));
      put_le<std::uint64_t>(data, std::bit_cast<std::uint64_t>(v.imag()));
    }
    NodePtr node = add_array(root, "complex_mask", blocks, data,
                             DType::numeric(DTypeKind::kComplex128, le), {4}, "bzp2", standard);
    NodePtr mask = Node::make_string(asdfcore::extension::format_complex({1, 2}));
    mask->set_tag(asdf_tag("core/complex-1.0.0"));
    node->set("mask", mask);
    expect_array(c.want, "/complex_mask", data, {4}, "<c16");
    c.want.masks["/complex_mask"] = mask_of({1, 0, 1, 0});
  }
  // An ndarray mask: a bool8 array of the same shape in its own block.
  {
    const DType t = DType::numeric(DTypeKind::kUInt16, le);
    const Bytes le_data = le_elements(t, 12, 3);
    std::vector<std::uint8_t> flags;
    for (int i = 0; i < 12; ++i) flags.push_back(static_cast<std::uint8_t>(i % 5 == 0 ? 1 : 0));
    NodePtr node = add_array(root, "array_mask", blocks, stored_in(le_data, t, ByteOrder::kBig),
                             t.with_byte_order(ByteOrder::kBig), {3, 4}, "lz4", standard);
    NDArrayNodeSpec spec;
    spec.dtype = DType::numeric(DTypeKind::kBool8);
    spec.shape = {3, 4};
    spec.source = blocks.add(flags, "lz4");
    spec.version = ndarray_version(standard);
    node->set("mask", asdfcore::ndarray::make_ndarray_node(spec));
    expect_array(c.want, "/array_mask", le_data, {3, 4}, ">u2");
    c.want.masks["/array_mask"] = mask_of(flags);
    // python asdf 2.14 applies a mask only when it is an NDArrayType; the ndarray-1.1.0 class is
    // a versioned sibling, not a subclass, so it silently reads the array without its mask.
    if (ndarray_version(standard) == "1.1.0") c.want.python_drops_mask.insert("/array_mask");
  }
  write_file(c.path, root, blocks, standard);
  c.want.warnings = array_warnings(standard);
  return c;
}

// -- Inline arrays --

NodePtr seq(std::vector<NodePtr> items) {
  NodePtr s = Node::make_sequence();
  for (auto& item : items) s->push_back(std::move(item));
  return s;
}

NodePtr complex_node(std::complex<double> v) {
  NodePtr n = Node::make_string(asdfcore::extension::format_complex(v));
  n->set_tag(asdf_tag("core/complex-1.0.0"));
  return n;
}

Bytes le_int64s(std::initializer_list<std::int64_t> values) {
  Bytes out;
  for (std::int64_t v : values) put_le<std::uint64_t>(out, static_cast<std::uint64_t>(v));
  return out;
}

Bytes le_ucs4(std::initializer_list<std::u32string> strings, std::size_t length) {
  Bytes out;
  for (const std::u32string& s : strings) {
    for (std::size_t k = 0; k < length; ++k) put_le<std::uint32_t>(out, k < s.size() ? s[k] : 0);
  }
  return out;
}

Case inline_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " inline arrays", .standard = standard, .path = path.string()};
  Want& w = c.want;
  const std::string tag = asdf_tag("core/ndarray-" + ndarray_version(standard));
  NodePtr root = Node::make_mapping();
  auto tagged = [&](NodePtr n) {
    n->set_tag(tag);
    return n;
  };
  auto with_data = [&](NodePtr data, NodePtr datatype) {
    NodePtr n = tagged(Node::make_mapping());
    n->set("data", std::move(data));
    if (datatype) n->set("datatype", std::move(datatype));
    return n;
  };
  auto ints = [](std::initializer_list<std::int64_t> values) {
    NodePtr s = Node::make_sequence();
    for (std::int64_t v : values) s->push_back(Node::make_int(v));
    return s;
  };

  // A bare list of lists of integers: int64.
  root->set("implicit_int", tagged(seq({ints({1, 2, 3}), ints({-4, 5, 6})})));
  expect_array(w, "/implicit_int", le_int64s({1, 2, 3, -4, 5, 6}), {2, 3}, "<i8");
  // Integers and floats: float64.
  root->set("implicit_float",
            tagged(seq({Node::make_int(1), Node::make_float(2.5), Node::make_int(-3)})));
  {
    Bytes le;
    for (double v : {1.0, 2.5, -3.0}) put_le<std::uint64_t>(le, std::bit_cast<std::uint64_t>(v));
    expect_array(w, "/implicit_float", le, {3}, "<f8");
  }
  // Booleans: bool.
  root->set("implicit_bool",
            tagged(seq({Node::make_bool(true), Node::make_bool(false), Node::make_bool(true)})));
  expect_array(w, "/implicit_bool", {1, 0, 1}, {3}, "|b1");
  // Strings: UCS-4 as long as the longest.
  root->set("implicit_string", tagged(seq({Node::make_string("abc"), Node::make_string("de"),
                                           Node::make_string("\xc3\xbcn\xc3\xaf")})));
  expect_array(w, "/implicit_string", le_ucs4({U"abc", U"de", U"\u00fcn\u00ef"}, 3), {3}, "<U3");
  // core/complex scalars: complex128.
  root->set("implicit_complex", tagged(seq({complex_node({1, 2}), complex_node({3, -4})})));
  {
    Bytes le;
    for (double v : {1.0, 2.0, 3.0, -4.0}) {
      put_le<std::uint64_t>(le, std::bit_cast<std::uint64_t>(v));
    }
    expect_array(w, "/implicit_complex", le, {2}, "<c16");
  }
  // A null without a datatype: python makes a masked array of dtype object (we read int64).
  root->set("implicit_null",
            tagged(seq({Node::make_int(1), Node::make_null(), Node::make_int(3)})));
  w.ours_only_md5["/implicit_null"] = md5_hex(le_int64s({1, 0, 3}));
  w.python_unchecked.insert("/implicit_null");
  w.masks["/implicit_null"] = mask_of({0, 1, 0});

  // `data` with a datatype (and a shape): that datatype, in the machine's byte order.
  {
    NodePtr n = with_data(seq({ints({1, 2}), ints({3, 4})}), Node::make_string("int16"));
    NodePtr shape = ints({2, 2});
    shape->collection_style = asdfcore::tree::CollectionStyle::kFlow;
    n->set("shape", shape);
    root->set("explicit_int16", n);
    Bytes le;
    for (int v : {1, 2, 3, 4}) put_le(le, static_cast<std::uint16_t>(v));
    expect_array(w, "/explicit_int16", le, {2, 2}, "<i2");
  }
  {
    root->set("explicit_float32",
              with_data(seq({Node::make_float(0.1), Node::make_float(1e30), Node::make_int(-2)}),
                        Node::make_string("float32")));
    Bytes le;
    for (float v : {0.1f, 1e30f, -2.0f}) put_le<std::uint32_t>(le, std::bit_cast<std::uint32_t>(v));
    expect_array(w, "/explicit_float32", le, {3}, "<f4");
  }
  {
    root->set("explicit_ascii", with_data(seq({Node::make_string("ab"), Node::make_string("cde")}),
                                          seq({Node::make_string("ascii"), Node::make_int(4)})));
    expect_array(w, "/explicit_ascii", {'a', 'b', 0, 0, 'c', 'd', 'e', 0}, {2}, "|S4");
  }
  {
    // A null with a datatype: that type, the null a masked 0.
    root->set("explicit_null",
              with_data(seq({Node::make_int(1), Node::make_null(), Node::make_int(3)}),
                        Node::make_string("int32")));
    Bytes le;
    for (std::uint32_t v : {1u, 0u, 3u}) put_le<std::uint32_t>(le, v);
    expect_array(w, "/explicit_null", le, {3}, "<i4");
    w.masks["/explicit_null"] = mask_of({0, 1, 0});
  }
  {
    // A flat record type.
    NodePtr field_n = Node::make_mapping();
    field_n->set("name", Node::make_string("n"));
    field_n->set("datatype", Node::make_string("int16"));
    NodePtr field_s = Node::make_mapping();
    field_s->set("name", Node::make_string("s"));
    field_s->set("datatype", seq({Node::make_string("ascii"), Node::make_int(2)}));
    root->set("explicit_record", with_data(seq({seq({Node::make_int(1), Node::make_string("ab")}),
                                                seq({Node::make_int(-2), Node::make_string("c")})}),
                                           seq({field_n, field_s})));
    expect_array(w, "/explicit_record", {1, 0, 'a', 'b', 0xfe, 0xff, 'c', 0}, {2}, "|V4");
  }
  write_file(c.path, root, Blocks{}, standard);
  w.warnings = array_warnings(standard);
  w.python_more = [](const json& r) {
    CHECK(r.at("arrays").at("/implicit_null").at("dtype") == "|O");
  };
  return c;
}

// -- A streamed array --

Case streamed_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " streamed", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  const DType i2 = DType::numeric(DTypeKind::kInt16, ByteOrder::kLittle);
  const Bytes small = le_elements(i2, 10);
  add_array(root, "small", blocks, small, i2, {10}, "zlib", standard);
  expect_array(c.want, "/small", small, {10}, "<i2");

  // Last block, streamed: shape ['*', 4] and source -1; python counts the rows (5).
  const DType f4 = DType::numeric(DTypeKind::kFloat32, ByteOrder::kBig);
  const Bytes le = le_elements(f4.with_byte_order(ByteOrder::kLittle), 20, 10);
  NDArrayNodeSpec spec;
  spec.dtype = f4;
  spec.shape = {0, 4};  // the first dimension is written as '*'
  spec.streamed = true;
  blocks.add(stored_in(le, f4.with_byte_order(ByteOrder::kLittle), ByteOrder::kBig), "", true);
  spec.source = std::int64_t{-1};
  spec.version = ndarray_version(standard);
  root->set("streamed", asdfcore::ndarray::make_ndarray_node(spec));
  expect_array(c.want, "/streamed", le, {5, 4}, ">f4");
  write_file(c.path, root, blocks, standard);
  c.want.warnings = array_warnings(standard);
  return c;
}

// -- Exploded form --

/// Explode the file of `input` into `dir`; python must read the same arrays from the tree file.
Case exploded(const Case& input, const fs::path& dir) {
  fs::create_directories(dir);
  Case c = input;
  c.name = input.name + ", exploded";
  c.path = (dir / "exploded.asdf").string();
  const auto written = asdfcore::explode(input.path, c.path);
  REQUIRE(written.size() >= 2);
  // A streamed array becomes an ordinary one: its '*' is resolved, shapes stay the same.
  return c;
}

/// Write `input` with every array inline; python must read the same values.
Case inlined(const Case& input, const fs::path& path) {
  Case c = input;
  c.name = input.name + ", inlined";
  c.path = path.string();
  asdfcore::inline_arrays(input.path, c.path);
  // Inline data is read in the machine's byte order; do not compare numpy's dtype.str.
  c.want.dtype.clear();
  c.want.md5 = c.want.inline_md5;
  return c;
}

// -- Big integers, complex scalars, an unknown tag, anchors --

/// Return a core/integer node as python asdf writes it: sign, string and a uint32 words array.
NodePtr big_integer(const std::string& decimal, std::vector<std::uint32_t> words, Blocks& blocks,
                    const std::string& standard, Want& want, const std::string& path) {
  NodePtr n = Node::make_mapping();
  n->set_tag(asdf_tag("core/integer-1.0.0"));
  n->set("sign", Node::make_string(decimal.front() == '-' ? "-" : "+"));
  n->set("string", Node::make_string(decimal));
  Bytes le;
  for (std::uint32_t word : words) put_le<std::uint32_t>(le, word);
  want.ours_only_md5[path + "/words"] = md5_hex(le);
  NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(DTypeKind::kUInt32, ByteOrder::kLittle);
  spec.shape = {words.size()};
  spec.source = blocks.add(le, "");
  spec.version = ndarray_version(standard);
  n->set("words", asdfcore::ndarray::make_ndarray_node(spec));
  return n;
}

Case integers_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " integers", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  // 2**70, -(2**65), 2**96 - 1.
  root->set("big",
            big_integer("1180591620717411303424", {0, 0, 64}, blocks, standard, c.want, "/big"));
  root->set("negative",
            big_integer("-36893488147419103232", {0, 0, 2}, blocks, standard, c.want, "/negative"));
  root->set("all_ones",
            big_integer("79228162514264337593543950335", {0xffffffffu, 0xffffffffu, 0xffffffffu},
                        blocks, standard, c.want, "/all_ones"));
  NodePtr plain = Node::make_mapping();
  plain->set("max", Node::make_int(std::numeric_limits<std::int64_t>::max()));
  plain->set("python_min", Node::make_int(-std::numeric_limits<std::int64_t>::max() + 1));
  plain->set("zero", Node::make_int(0));
  const std::int64_t two31 = std::int64_t{1} << 31;
  plain->set("list", seq({Node::make_int(two31), Node::make_int(-two31),
                          Node::make_int((std::int64_t{1} << 53) + 1)}));
  root->set("plain", plain);
  write_file(c.path, root, blocks, standard);
  c.want.warnings = array_warnings(standard);
  c.want.python_more = [](const json& r) {
    CHECK(reported(r, "values", "/big") == "1180591620717411303424");
    CHECK(reported(r, "values", "/negative") == "-36893488147419103232");
    CHECK(reported(r, "values", "/all_ones") == "79228162514264337593543950335");
    CHECK(reported(r, "ints", "/plain/max") == "9223372036854775807");
    CHECK(reported(r, "ints", "/plain/python_min") == "-9223372036854775806");
    CHECK(reported(r, "ints", "/plain/zero") == "0");
    CHECK(reported(r, "ints", "/plain/list/0") == "2147483648");
    CHECK(reported(r, "ints", "/plain/list/1") == "-2147483648");
    CHECK(reported(r, "ints", "/plain/list/2") == "9007199254740993");
  };
  return c;
}

/// int64's two lowest values: python 2.14 reads them but warns (its floor is -(2**63 - 2)).
Case int64_min_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " int64 minimum", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  root->set("min", Node::make_int(std::numeric_limits<std::int64_t>::min()));
  root->set("min_plus_one", Node::make_int(std::numeric_limits<std::int64_t>::min() + 1));
  write_file(c.path, root, Blocks{}, standard);
  for (const char* v : {"-9223372036854775808", "-9223372036854775807"}) {
    c.want.warnings.insert(std::string("AsdfWarning: Invalid integer literal value ") + v +
                           " detected while reading file. The value has been read safely, but "
                           "the file should be fixed.");
  }
  c.want.python_more = [](const json& r) {
    CHECK(reported(r, "ints", "/min") == "-9223372036854775808");
    CHECK(reported(r, "ints", "/min_plus_one") == "-9223372036854775807");
  };
  return c;
}

Case complex_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " complex scalars", .standard = standard, .path = path.string()};
  const std::vector<std::complex<double>> values{
      {1, 2}, {-1.5, -0.0}, {0.1, 1e-300}, {1e300, -2.5e-8}, {0, 1}, {-3, 0}, {1.0 / 3, 2e22}};
  NodePtr root = Node::make_mapping();
  NodePtr list = Node::make_sequence();
  for (const auto& v : values) list->push_back(complex_node(v));
  root->set("list", list);
  NodePtr nested = Node::make_mapping();
  nested->set("z", complex_node({-7.25, 0.5}));
  root->set("nested", nested);
  write_file(c.path, root, Blocks{}, standard);
  c.want.python_more = [values](const json& r) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string p = "/list/" + std::to_string(i);
      INFO(p);
      CHECK(r.at("values").contains(p));
      if (!r.at("values").contains(p)) continue;
      CHECK(r.at("values").at(p).at(0).get<double>() == values[i].real());
      CHECK(r.at("values").at(p).at(1).get<double>() == values[i].imag());
    }
    CHECK(reported(r, "values", "/nested/z") == json::array({-7.25, 0.5}));
  };
  return c;
}

Case unknown_tag_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " unknown tag", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  NodePtr custom = Node::make_mapping();
  custom->set_tag(kUnknownTag);
  custom->set("x", Node::make_int(1));
  custom->set("name", Node::make_string("hello"));
  const DType t = DType::numeric(DTypeKind::kFloat64, ByteOrder::kLittle);
  const Bytes le = le_elements(t, 6, 12);
  add_array(custom, "data", blocks, le, t, {6}, "zlib", standard);
  root->set("custom", custom);
  write_file(c.path, root, blocks, standard);
  expect_array(c.want, "/custom/data", le, {6}, "<f8");
  c.want.warnings = array_warnings(standard);
  c.want.warnings.insert("AsdfConversionWarning: " + kUnknownTag +
                         " is not recognized, converting to raw Python data structure");
  c.want.python_more = [](const json& r) {
    CHECK(r.at("tags") == json{{"/custom", kUnknownTag}});
    CHECK(reported(r, "ints", "/custom/x") == "1");
  };
  return c;
}

/// Whether python reached all of `paths` as one object.
bool same_object(const json& r, const std::set<std::string>& paths) {
  for (const auto& group : r.at("shared")) {
    const auto g = group.get<std::set<std::string>>();
    if (std::includes(g.begin(), g.end(), paths.begin(), paths.end())) return true;
  }
  return false;
}

Case anchors_file(const fs::path& path, const std::string& standard) {
  Case c{.name = standard + " anchors", .standard = standard, .path = path.string()};
  NodePtr root = Node::make_mapping();
  Blocks blocks;
  NodePtr shared_map = Node::make_mapping();
  shared_map->set("x", Node::make_int(1));
  shared_map->set("list", seq({Node::make_int(1), Node::make_string("two")}));
  root->set("a", shared_map);
  root->set("b", shared_map);
  NodePtr shared_list = seq({Node::make_float(0.5), Node::make_string("s")});
  root->set("c", shared_list);
  root->set("d", seq({shared_list, shared_map}));
  // One ndarray node reached twice.
  const DType t = DType::numeric(DTypeKind::kUInt32, ByteOrder::kBig);
  const Bytes le = le_elements(t.with_byte_order(ByteOrder::kLittle), 5);
  NodePtr array = add_array(root, "e", blocks,
                            stored_in(le, t.with_byte_order(ByteOrder::kLittle), ByteOrder::kBig),
                            t, {5}, "", standard);
  root->set("f", array);
  write_file(c.path, root, blocks, standard);
  expect_array(c.want, "/e", le, {5}, ">u4");
  expect_array(c.want, "/f", le, {5}, ">u4");
  c.want.warnings = array_warnings(standard);
  c.want.python_more = [](const json& r) {
    CHECK(same_object(r, {"/a", "/b", "/d/1"}));
    CHECK(same_object(r, {"/a/list", "/b/list"}));
    CHECK(same_object(r, {"/c", "/d/0"}));
    CHECK(same_object(r, {"/e", "/f"}));
    CHECK_FALSE(same_object(r, {"/a", "/c"}));
  };
  return c;
}

/// Write every file of the matrix into `dir` and return the cases.
std::vector<Case> all_cases(const fs::path& dir) {
  std::vector<Case> cases;
  add_matrix(dir, cases);
  for (const std::string& s : kStandards) {
    const fs::path sub = dir / ("extra-" + s);
    fs::create_directories(sub);
    const Case all = all_types_file(sub / "all_types.asdf", s, "all datatypes",
                                    [](const Variant&) { return true; });
    // python asdf 2.14 cannot read inline records that hold records (inline_data_asarray turns
    // only the innermost lists into tuples): inline those apart and expect its refusal.
    const Case no_nested =
        all_types_file(sub / "no_nested_records.asdf", s, "all datatypes but nested records",
                       [](const Variant& v) { return v.label != "record"; });
    const Case nested = all_types_file(sub / "nested_records.asdf", s, "nested records",
                                       [](const Variant& v) { return v.label == "record"; });
    const Case views = views_file(sub / "views.asdf", s);
    const Case masks = masks_file(sub / "masks.asdf", s);
    const Case streamed = streamed_file(sub / "streamed.asdf", s);
    for (const Case& c : {all, views, masks, streamed}) cases.push_back(c);
    cases.push_back(inline_file(sub / "inline.asdf", s));
    cases.push_back(inlined(no_nested, sub / "no_nested_records_inline.asdf"));
    Case nested_inline = inlined(nested, sub / "nested_records_inline.asdf");
    nested_inline.want.error = "ValueError: data can not be converted to structured array";
    cases.push_back(nested_inline);
    cases.push_back(inlined(views, sub / "views_inline.asdf"));
    cases.push_back(inlined(masks, sub / "masks_inline.asdf"));
    cases.push_back(exploded(all, sub / "exploded_all"));
    cases.push_back(exploded(views, sub / "exploded_views"));
    cases.push_back(exploded(masks, sub / "exploded_masks"));
    cases.push_back(exploded(streamed, sub / "exploded_streamed"));
    cases.push_back(integers_file(sub / "integers.asdf", s));
    cases.push_back(int64_min_file(sub / "int64_min.asdf", s));
    cases.push_back(complex_file(sub / "complex.asdf", s));
    cases.push_back(unknown_tag_file(sub / "unknown_tag.asdf", s));
    cases.push_back(anchors_file(sub / "anchors.asdf", s));
  }
  return cases;
}

// ---- Checks ----

json python_read(const std::vector<std::string>& files) {
  std::vector<std::string> argv{fitsasdf::test::reference_python(),
                                (fitsasdf::test::scripts_dir() / "asdf_arrays.py").string()};
  argv.insert(argv.end(), files.begin(), files.end());
  const fitsasdf::test::RunResult r = fitsasdf::test::run(argv);
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  json report;
  REQUIRE_NOTHROW(report = json::parse(r.out));
  return report;
}

void check_python(const Case& c, const json& r) {
  INFO("case: " << c.name << " (" << c.path << ")");
  INFO("python: " << r.dump().substr(0, 3000));
  const auto warnings = r.at("warnings").get<std::set<std::string>>();
  CHECK(warnings == c.want.warnings);
  if (!c.want.error.empty()) {
    CHECK(r.value("error", "") == c.want.error);
    return;
  }
  CHECK_FALSE(r.contains("error"));
  if (r.contains("error")) return;
  CHECK(r.at("version") == c.standard);
  std::set<std::string> got_paths;
  for (const auto& [p, a] : r.at("arrays").items()) got_paths.insert(p);
  std::set<std::string> want_paths = c.want.python_unchecked;
  for (const auto& [p, md5] : c.want.md5) want_paths.insert(p);
  CHECK(got_paths == want_paths);
  for (const auto& [p, md5] : c.want.md5) {
    if (!r.at("arrays").contains(p)) continue;
    INFO("array " << p);
    const json& a = r.at("arrays").at(p);
    CHECK(a["md5"] == md5);
    CHECK(a["shape"].get<std::vector<std::uint64_t>>() == c.want.shape.at(p));
    if (c.want.dtype.count(p)) CHECK(a["dtype"] == c.want.dtype.at(p));
  }
  std::set<std::string> got_masks;
  for (const auto& [p, m] : r.at("masks").items()) got_masks.insert(p);
  std::set<std::string> want_masks;
  for (const auto& [p, m] : c.want.masks) {
    if (!c.want.python_drops_mask.count(p)) want_masks.insert(p);
  }
  CHECK(got_masks == want_masks);
  for (const auto& [p, m] : c.want.masks) {
    if (!r.at("masks").contains(p) || c.want.python_drops_mask.count(p)) continue;
    INFO("mask of " << p);
    CHECK(r.at("masks").at(p).at("md5") == m.md5);
    CHECK(r.at("masks").at(p).at("count") == m.count);
  }
  if (c.want.python_more) c.want.python_more(r);
}

void check_ours(const Case& c) {
  INFO("case: " << c.name << " (" << c.path << ")");
  std::optional<asdfcore::AsdfFile> file;
  CHECK_NOTHROW(file.emplace(asdfcore::AsdfFile::open(c.path)));
  if (!file) return;
  CHECK(file->asdf_standard() == c.standard);
  CHECK(file->warnings().empty());
  std::map<std::string, std::string> md5s = c.want.md5;
  md5s.insert(c.want.ours_only_md5.begin(), c.want.ours_only_md5.end());
  for (const auto& [p, md5] : md5s) {
    INFO("array " << p);
    const NodePtr node =
        asdfcore::tree::find_by_pointer(file->tree(), asdfcore::tree::parse_json_pointer(p));
    CHECK(node);
    if (!node) continue;
    std::optional<asdfcore::ndarray::NDArray> a;
    CHECK_NOTHROW(a.emplace(file->array(*node, p)));
    if (!a) continue;
    CHECK(a->md5_le() == md5);
    if (c.want.shape.count(p)) CHECK(a->shape() == c.want.shape.at(p));
    if (c.want.dtype.count(p)) CHECK(a->dtype().numpy_str() == c.want.dtype.at(p));
    const auto mask = c.want.masks.find(p);
    CHECK(a->has_mask() == (mask != c.want.masks.end()));
    if (mask != c.want.masks.end()) {
      CHECK(md5_hex(a->mask_c_order()) == mask->second.md5);
      CHECK(a->masked_count() == mask->second.count);
    }
  }
}

}  // namespace

TEST_CASE("python asdf 2.14 reads every tree we write, with validation on", "[interop][matrix]") {
  fitsasdf::test::TempDir dir;
  const std::vector<Case> cases = all_cases(dir.path());
  REQUIRE(cases.size() > 250);
  std::vector<std::string> paths;
  for (const Case& c : cases) paths.push_back(c.path);
  const json report = python_read(paths);
  for (const Case& c : cases) {
    REQUIRE(report.contains(c.path));
    check_python(c, report[c.path]);
  }
}

TEST_CASE("our reader reads every file of the python matrix back", "[interop][matrix]") {
  fitsasdf::test::TempDir dir;
  for (const Case& c : all_cases(dir.path())) check_ours(c);
}
