// libasdf's C API, ndarrays: reading whole arrays, tiles and elements with libasdf's
// conversions, the errors of each, and every numeric array of the corpus against the oracle.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "asdfcore/asdfcore.h"
#include "asdfcore/c_api/c_api_support.h"
#include "support/catch.h"
#include "support/oracle.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test::capi;
using fitsasdf::test::TempDir;

namespace {

/// Write `tree` to memory with asdfcore and open the bytes through the C API.
FilePtr open_tree(const asdfcore::Tree& tree, const asdfcore::WriteOptions& options = {}) {
  const std::vector<std::uint8_t> bytes = asdfcore::write_to_memory(tree, options);
  return FilePtr(asdf_open_mem(bytes.data(), bytes.size()));
}

NdarrayPtr get_ndarray(asdf_file_t* f, const char* path) {
  asdf_ndarray_t* a = nullptr;
  REQUIRE(asdf_get_ndarray(f, path, &a) == ASDF_VALUE_OK);
  return NdarrayPtr(a);
}

template <typename T>
std::vector<T> read_all(asdf_ndarray_t* a, asdf_scalar_datatype_t type,
                        asdf_ndarray_err_t expected = ASDF_NDARRAY_OK) {
  void* out = nullptr;
  CHECK(asdf_ndarray_read_all(a, type, &out) == expected);
  BufferPtr owner(out);
  const auto* p = static_cast<const T*>(out);
  return std::vector<T>(p, p + asdf_ndarray_size(a));
}

/// Turn a JSON Pointer into libasdf's path syntax.
std::string libasdf_path(const std::string& pointer) {
  std::string out;
  std::size_t i = 0;
  while (i < pointer.size()) {
    std::size_t next = pointer.find('/', i + 1);
    if (next == std::string::npos) next = pointer.size();
    std::string token = pointer.substr(i + 1, next - i - 1);
    std::string plain;
    for (std::size_t k = 0; k < token.size(); ++k) {
      if (token[k] == '~' && k + 1 < token.size()) {
        plain += token[k + 1] == '1' ? '/' : '~';
        ++k;
      } else {
        plain += token[k];
      }
    }
    out += '/';
    for (char c : plain) {
      if (std::string_view("/{}[].&*\\").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
    i = next;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

TEST_CASE("C API: ndarray fields, whole reads and libasdf's conversions", "[c_api]") {
  asdfcore::Tree tree;
  const std::vector<std::int16_t> i16 = {-300, -1, 0, 1, 127, 255, 256, 32767};
  tree["i16"] = asdfcore::Array::copy(std::span<const std::int16_t>(i16), {2, 4});
  const std::vector<double> f64 = {-1e300, -2.5, 0.0, 2.5, 1e300, NAN};
  tree["f64"] = asdfcore::Array::copy(std::span<const double>(f64), {6});
  const std::vector<std::complex<float>> c64 = {{1, 2}, {3, 4}};
  tree["c64"] = asdfcore::Array::copy(std::span<const std::complex<float>>(c64), {2});
  std::vector<std::uint8_t> flag_bytes = {1, 0, 1};
  tree["b8"] = asdfcore::Array::from_bytes(asdfcore::ndarray::DType::numeric(asdfcore::ndarray::DTypeKind::kBool8),
                                           {3}, flag_bytes, true);
  // Big-endian, zlib-compressed uint32.
  std::vector<std::uint8_t> be = {0, 0, 0, 1, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff};
  tree["be"] = asdfcore::Array::from_bytes(
      asdfcore::ndarray::DType::numeric(asdfcore::ndarray::DTypeKind::kUInt32, asdfcore::ndarray::ByteOrder::kBig),
      {3}, be, true).compression("zlib");
  FilePtr file = open_tree(tree);
  REQUIRE(file);
  asdf_file_t* f = file.get();

  NdarrayPtr a = get_ndarray(f, "i16");
  CHECK(a->ndim == 2);
  CHECK(a->shape[0] == 2);
  CHECK(a->shape[1] == 4);
  CHECK(a->datatype.type == ASDF_DATATYPE_INT16);
  CHECK(a->datatype.size == 2);
  CHECK(a->byteorder == ASDF_BYTEORDER_LITTLE);
  CHECK(asdf_ndarray_size(a.get()) == 8);
  CHECK(asdf_ndarray_nbytes(a.get()) == 16);
  CHECK(asdf_ndarray_storage(a.get()) == ASDF_ARRAY_STORAGE_INTERNAL);
  size_t size = 0;
  const void* raw = asdf_ndarray_data(a.get(), &size);
  REQUIRE(raw);
  CHECK(size == 16);
  CHECK(read_all<std::int16_t>(a.get(), ASDF_DATATYPE_SOURCE) == i16);
  CHECK(read_all<std::int32_t>(a.get(), ASDF_DATATYPE_INT32) ==
        std::vector<std::int32_t>(i16.begin(), i16.end()));
  // Narrowing clamps, flags overflow, and still writes every element.
  CHECK(read_all<std::int8_t>(a.get(), ASDF_DATATYPE_INT8, ASDF_NDARRAY_ERR_OVERFLOW) ==
        std::vector<std::int8_t>{-128, -1, 0, 1, 127, 127, 127, 127});
  CHECK(read_all<std::uint8_t>(a.get(), ASDF_DATATYPE_UINT8, ASDF_NDARRAY_ERR_OVERFLOW) ==
        std::vector<std::uint8_t>{0, 0, 0, 1, 127, 255, 255, 255});
  CHECK(read_all<float>(a.get(), ASDF_DATATYPE_FLOAT32)[0] == -300.0f);
  // A buffer of the caller's is used as it is.
  std::vector<double> mine(8);
  void* dst = mine.data();
  CHECK(asdf_ndarray_read_all(a.get(), ASDF_DATATYPE_FLOAT64, &dst) == ASDF_NDARRAY_OK);
  CHECK(dst == mine.data());
  CHECK(mine[7] == 32767.0);

  NdarrayPtr d = get_ndarray(f, "f64");
  const auto as_f32 = read_all<float>(d.get(), ASDF_DATATYPE_FLOAT32, ASDF_NDARRAY_ERR_OVERFLOW);
  CHECK(as_f32[0] == -std::numeric_limits<float>::infinity());
  CHECK(as_f32[1] == -2.5f);
  CHECK(as_f32[4] == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(as_f32[5]));
  const auto as_i32 = read_all<std::int32_t>(d.get(), ASDF_DATATYPE_INT32, ASDF_NDARRAY_ERR_OVERFLOW);
  CHECK(as_i32 == std::vector<std::int32_t>{INT32_MIN, -2, 0, 2, INT32_MAX, 0});
  const auto as_u16 = read_all<std::uint16_t>(d.get(), ASDF_DATATYPE_UINT16, ASDF_NDARRAY_ERR_OVERFLOW);
  CHECK(as_u16[0] == 0);
  CHECK(as_u16[3] == 2);

  // Complex arrays: their own type only; bool8 converts to numbers.
  NdarrayPtr c = get_ndarray(f, "c64");
  CHECK(c->datatype.type == ASDF_DATATYPE_COMPLEX64);
  CHECK(read_all<std::complex<float>>(c.get(), ASDF_DATATYPE_SOURCE) == c64);
  void* none = nullptr;
  CHECK(asdf_ndarray_read_all(c.get(), ASDF_DATATYPE_FLOAT64, &none) == ASDF_NDARRAY_ERR_CONVERSION);
  CHECK(none == nullptr);
  CHECK(std::string(asdf_error(f)).find("complex64") != std::string::npos);
  NdarrayPtr b = get_ndarray(f, "b8");
  CHECK(b->datatype.type == ASDF_DATATYPE_BOOL8);
  CHECK(read_all<double>(b.get(), ASDF_DATATYPE_FLOAT64) == std::vector<double>{1, 0, 1});
  CHECK(asdf_ndarray_read_all(a.get(), ASDF_DATATYPE_BOOL8, &none) == ASDF_NDARRAY_ERR_CONVERSION);

  // Big-endian and compressed: swapped to the machine's order.
  NdarrayPtr e = get_ndarray(f, "be");
  CHECK(e->byteorder == ASDF_BYTEORDER_BIG);
  CHECK(read_all<std::uint32_t>(e.get(), ASDF_DATATYPE_SOURCE) ==
        std::vector<std::uint32_t>{1, 256, 0xffffffffu});
  CHECK(read_all<std::int64_t>(e.get(), ASDF_DATATYPE_INT64) ==
        std::vector<std::int64_t>{1, 256, 0xffffffffll});

  // Bad arguments.
  CHECK(asdf_ndarray_read_all(nullptr, ASDF_DATATYPE_SOURCE, &none) == ASDF_NDARRAY_ERR_INVAL);
  CHECK(asdf_ndarray_read_all(a.get(), ASDF_DATATYPE_SOURCE, nullptr) == ASDF_NDARRAY_ERR_INVAL);
  CHECK(asdf_ndarray_read_all(a.get(), static_cast<asdf_scalar_datatype_t>(31), &none) ==
        ASDF_NDARRAY_ERR_INVAL);
  asdf_ndarray_t* missing = nullptr;
  CHECK(asdf_get_ndarray(f, "nope", &missing) == ASDF_VALUE_ERR_NOT_FOUND);
  CHECK(asdf_get_ndarray(f, "", &missing) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(missing == nullptr);
  CHECK(asdf_is_ndarray(f, "i16"));
  CHECK_FALSE(asdf_is_ndarray(f, "asdf_library"));
  ValuePtr v(asdf_get_value(f, "i16"));
  CHECK(asdf_value_get_type(v.get()) == ASDF_VALUE_EXTENSION);
  CHECK(asdf_value_is_mapping(v.get()));
  CHECK(std::string(asdf_value_tag(v.get())).find("core/ndarray-") != std::string::npos);
  CHECK(asdf_ndarray_size(nullptr) == 0);
  asdf_ndarray_destroy(nullptr);
}

TEST_CASE("C API: tiles and single elements agree with the whole array", "[c_api]") {
  std::vector<std::uint16_t> cube(2 * 5 * 7);
  for (std::size_t i = 0; i < cube.size(); ++i) cube[i] = static_cast<std::uint16_t>(i * 3);
  asdfcore::Tree tree;
  auto whole = asdfcore::Array::copy(std::span<const std::uint16_t>(cube), {2, 5, 7});
  tree["cube"] = whole;
  // A strided view: every other column of plane 1 (shares the cube's block).
  tree["view"] = whole.view_of(70, {5, 4}, {14, 4});
  FilePtr file = open_tree(tree);
  REQUIRE(file);
  NdarrayPtr a = get_ndarray(file.get(), "cube");
  const std::uint64_t origin[] = {1, 2, 3}, shape[] = {1, 2, 3};
  void* out = nullptr;
  REQUIRE(asdf_ndarray_read_tile_ndim(a.get(), origin, shape, ASDF_DATATYPE_FLOAT64, &out) == ASDF_NDARRAY_OK);
  BufferPtr tile(out);
  const auto* t = static_cast<const double*>(out);
  for (std::uint64_t y = 0; y < 2; ++y) {
    for (std::uint64_t x = 0; x < 3; ++x) {
      CHECK(t[y * 3 + x] == cube[1 * 35 + (2 + y) * 7 + (3 + x)]);
    }
  }
  // The 2-D tile of plane 1.
  const std::uint64_t plane[] = {1};
  out = nullptr;
  REQUIRE(asdf_ndarray_read_tile_2d(a.get(), 3, 2, 3, 2, plane, ASDF_DATATYPE_SOURCE, &out) == ASDF_NDARRAY_OK);
  BufferPtr tile2(out);
  CHECK(static_cast<const std::uint16_t*>(out)[4] == cube[35 + 3 * 7 + 4]);
  // Single elements, converted.
  const std::uint64_t at[] = {1, 4, 6};
  asdf_ndarray_err_t err = ASDF_NDARRAY_ERR_INVAL;
  CHECK(asdf_ndarray_read_uint16_at(a.get(), at, &err) == cube.back());
  CHECK(err == ASDF_NDARRAY_OK);
  CHECK(asdf_ndarray_read_float64_at(a.get(), at, &err) == cube.back());
  CHECK(asdf_ndarray_read_int8_at(a.get(), at, &err) == 127);
  CHECK(err == ASDF_NDARRAY_ERR_OVERFLOW);
  std::int32_t one = 0;
  CHECK(asdf_ndarray_read_at(a.get(), at, ASDF_DATATYPE_INT32, &one) == ASDF_NDARRAY_OK);
  CHECK(one == cube.back());
  // Out of bounds, wrong arguments.
  const std::uint64_t past[] = {1, 5, 0};
  CHECK(asdf_ndarray_read_uint16_at(a.get(), past, &err) == 0);
  CHECK(err == ASDF_NDARRAY_ERR_OUT_OF_BOUNDS);
  CHECK(asdf_ndarray_read_uint16_at(a.get(), nullptr, &err) == 0);
  CHECK(err == ASDF_NDARRAY_ERR_INVAL);
  const std::uint64_t big_shape[] = {1, 4, 3};
  out = nullptr;
  CHECK(asdf_ndarray_read_tile_ndim(a.get(), origin, big_shape, ASDF_DATATYPE_SOURCE, &out) ==
        ASDF_NDARRAY_ERR_OUT_OF_BOUNDS);
  CHECK(out == nullptr);
  CHECK(asdf_ndarray_read_tile_ndim(a.get(), nullptr, shape, ASDF_DATATYPE_SOURCE, &out) ==
        ASDF_NDARRAY_ERR_INVAL);
  CHECK(asdf_ndarray_read_tile_2d(a.get(), 0, 0, 8, 1, plane, ASDF_DATATYPE_SOURCE, &out) ==
        ASDF_NDARRAY_ERR_OUT_OF_BOUNDS);

  // The strided view reads through its strides.
  NdarrayPtr view = get_ndarray(file.get(), "view");
  REQUIRE(view->strides != nullptr);
  CHECK(view->strides[0] == 14);
  const auto values = read_all<std::uint16_t>(view.get(), ASDF_DATATYPE_SOURCE);
  for (std::uint64_t y = 0; y < 5; ++y) {
    for (std::uint64_t x = 0; x < 4; ++x) CHECK(values[y * 4 + x] == cube[35 + y * 7 + 2 * x]);
  }
  size_t size = 0;
  REQUIRE(asdf_ndarray_data(view.get(), &size) != nullptr);
  CHECK(size == 40);

  // A 1-D array has no 2-D tiles.
  asdfcore::Tree flat;
  flat["v"] = asdfcore::Array::copy(std::span<const std::uint16_t>(cube), {70});
  FilePtr flat_file = open_tree(flat);
  NdarrayPtr v = get_ndarray(flat_file.get(), "v");
  CHECK(asdf_ndarray_read_tile_2d(v.get(), 0, 0, 1, 1, nullptr, ASDF_DATATYPE_SOURCE, &out) ==
        ASDF_NDARRAY_ERR_OUT_OF_BOUNDS);
}

TEST_CASE("C API: an unreadable block is an error with a message, not a crash", "[c_api]") {
  std::vector<float> values(4096, 1.5f);
  asdfcore::Tree tree;
  tree["x"] = asdfcore::Array::copy(std::span<const float>(values), {64, 64}).compression("zlib");
  std::vector<std::uint8_t> bytes = asdfcore::write_to_memory(tree);
  // Damage the compressed stream in the middle of the block.
  const std::string text(bytes.begin(), bytes.end());
  const std::size_t block = text.find("\xd3" "BLK");
  REQUIRE(block != std::string::npos);
  for (std::size_t i = block + 70; i < block + 90; ++i) bytes[i] ^= 0x5a;
  FilePtr file(asdf_open_mem(bytes.data(), bytes.size()));
  REQUIRE(file);
  // The block is decoded when the ndarray is made (its decoded size is checked then).
  asdf_ndarray_t* a = nullptr;
  CHECK(asdf_get_ndarray(file.get(), "x", &a) == ASDF_VALUE_ERR_PARSE_FAILURE);
  CHECK(a == nullptr);
  REQUIRE(asdf_error(file.get()) != nullptr);
  INFO(asdf_error(file.get()));
  CHECK(asdf_error_code(file.get()) == ASDF_ERR_COMPRESSION_FAILED);
  CHECK(std::string(asdf_error(file.get())).find("block 0") != std::string::npos);
  ValuePtr v(asdf_get_value(file.get(), "x"));
  CHECK(asdf_value_as_ndarray(v.get(), &a) == ASDF_VALUE_ERR_PARSE_FAILURE);
}

TEST_CASE("C API: every array of the corpus reads as python asdf reads it", "[c_api][corpus]") {
  const nlohmann::json oracle = fitsasdf::test::load_corpus_oracle();
  int files = 0, arrays = 0, converted = 0;
  for (const auto& [name, rec] : oracle["files"].items()) {
    if (rec.value("format", "") != "asdf" || !rec.contains("raw") || !rec["raw"].value("ok", false)) continue;
    const std::string path = (fitsasdf::test::corpus_dir() / name).string();
    FilePtr file(asdf_open_file(path.c_str(), "r"));
    INFO(name << ": " << (asdf_error(nullptr) ? asdf_error(nullptr) : ""));
    REQUIRE(file);
    ++files;
    for (const auto& want : rec["raw"]["arrays"]) {
      if (want.contains("error") || !want.contains("md5")) continue;
      const std::string where = libasdf_path(want["path"].get<std::string>());
      INFO(name << " " << want["path"] << " as " << where);
      asdf_ndarray_t* raw_nd = nullptr;
      REQUIRE(asdf_get_ndarray(file.get(), where.c_str(), &raw_nd) == ASDF_VALUE_OK);
      NdarrayPtr nd(raw_nd);
      void* out = nullptr;
      const asdf_ndarray_err_t err = asdf_ndarray_read_all(nd.get(), ASDF_DATATYPE_SOURCE, &out);
      INFO("read_all: " << err << " " << (asdf_error(file.get()) ? asdf_error(file.get()) : ""));
      REQUIRE(err == ASDF_NDARRAY_OK);
      BufferPtr owner(out);
      std::uint64_t item = nd->datatype.size;
      CHECK(md5_hex(out, asdf_ndarray_size(nd.get()) * item) == want["md5"].get<std::string>());
      ++arrays;
      // Tiles and elements of arrays that convert agree with the whole, read as doubles.
      const auto t = nd->datatype.type;
      if (t == ASDF_DATATYPE_COMPLEX64 || t == ASDF_DATATYPE_COMPLEX128 || t >= ASDF_DATATYPE_ASCII ||
          nd->ndim == 0 || asdf_ndarray_size(nd.get()) == 0) {
        continue;
      }
      void* whole_out = nullptr;
      const auto whole_err = asdf_ndarray_read_all(nd.get(), ASDF_DATATYPE_FLOAT64, &whole_out);
      REQUIRE((whole_err == ASDF_NDARRAY_OK || whole_err == ASDF_NDARRAY_ERR_OVERFLOW));
      BufferPtr whole_owner(whole_out);
      const auto* whole = static_cast<const double*>(whole_out);
      std::vector<std::uint64_t> origin(nd->ndim), shape(nd->ndim), strides(nd->ndim, 1);
      for (std::uint32_t d = nd->ndim; d-- > 0;) {
        origin[d] = nd->shape[d] / 3;
        shape[d] = std::max<std::uint64_t>(1, (nd->shape[d] - origin[d]) / 2);
        if (d + 1 < nd->ndim) strides[d] = strides[d + 1] * nd->shape[d + 1];
      }
      void* tile_out = nullptr;
      REQUIRE(asdf_ndarray_read_tile_ndim(nd.get(), origin.data(), shape.data(), ASDF_DATATYPE_FLOAT64,
                                          &tile_out) == whole_err);
      BufferPtr tile_owner(tile_out);
      const auto* tile = static_cast<const double*>(tile_out);
      std::uint64_t count = 1;
      for (auto s : shape) count *= s;
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t rest = i, flat = 0;
        for (std::uint32_t d = nd->ndim; d-- > 0;) {
          flat += (origin[d] + rest % shape[d]) * strides[d];
          rest /= shape[d];
        }
        const bool same = tile[i] == whole[flat] || (std::isnan(tile[i]) && std::isnan(whole[flat]));
        CHECK(same);
        if (!same) break;
      }
      asdf_ndarray_err_t at_err = ASDF_NDARRAY_ERR_INVAL;
      const double first = asdf_ndarray_read_float64_at(nd.get(), origin.data(), &at_err);
      CHECK((first == tile[0] || (std::isnan(first) && std::isnan(tile[0]))));
      ++converted;
    }
  }
  CHECK(files >= 20);
  CHECK(arrays >= 50);
  CHECK(converted >= 30);
  WARN("C API corpus: " << files << " files, " << arrays << " arrays, " << converted << " tiled");
}
