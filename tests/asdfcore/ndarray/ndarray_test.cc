// NDArray: ndarray nodes built by hand (no YAML reader) against an in-memory BlockProvider.
// Shapes, offsets, strides (negative too), views sharing a block, streamed '*', inline data
// and its type inference, masks, byte-order conversion and md5 of known values, and the errors.
// Expected md5s are numpy's: md5(np.ascontiguousarray(a.astype(a.dtype.newbyteorder('<')))),
// computed once with /usr/bin/python3 (numpy 1.24) or taken from the corpus oracle (noted).
#include "asdfcore/ndarray/ndarray.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/node.h"
#include "support/catch.h"
#include "support/paths.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::io::Buffer;
using asdfcore::ndarray::BlockProvider;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::MaskKind;
using asdfcore::ndarray::NDArray;
using asdfcore::ndarray::SourceKind;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
using Bytes = std::vector<std::uint8_t>;
using Catch::Matchers::Contains;

constexpr char kComplexTag[] = "tag:stsci.edu:asdf/core/complex-1.0.0";

/// Blocks held in memory; negative indices count from the end.
class MemoryBlocks : public BlockProvider {
 public:
  std::vector<Bytes> blocks;
  std::map<std::string, Bytes> files;

  Buffer block(std::int64_t index) const override {
    const auto n = static_cast<std::int64_t>(blocks.size());
    const std::int64_t i = index < 0 ? n + index : index;
    if (i < 0 || i >= n) throw Error(ErrorCode::kMalformed, "no such block");
    return Buffer(nullptr, blocks[static_cast<std::size_t>(i)]);
  }
  std::uint64_t block_count() const override { return blocks.size(); }
  Buffer external(const std::string& uri) const override {
    const auto it = files.find(uri);
    if (it == files.end()) throw Error(ErrorCode::kIo, "cannot open " + uri);
    return Buffer(nullptr, it->second);
  }
};

NodePtr str(const std::string& s) { return Node::make_string(s); }
NodePtr num(std::int64_t v) { return Node::make_int(v); }
NodePtr real(double v) { return Node::make_float(v); }
NodePtr boolean(bool v) { return Node::make_bool(v); }
NodePtr null() { return Node::make_null(); }
NodePtr cplx(const std::string& text) {
  NodePtr n = Node::make_string(text);
  n->set_tag(kComplexTag);
  return n;
}

NodePtr seq(std::initializer_list<NodePtr> items) {
  NodePtr n = Node::make_sequence();
  for (const NodePtr& item : items) n->push_back(item);
  return n;
}

NodePtr ints(std::initializer_list<std::int64_t> values) {
  NodePtr n = Node::make_sequence();
  for (std::int64_t v : values) n->push_back(num(v));
  return n;
}

NodePtr map(std::initializer_list<std::pair<std::string, NodePtr>> entries) {
  NodePtr n = Node::make_mapping();
  for (const auto& [key, value] : entries) n->set(key, value);
  return n;
}

/// An ndarray node over a block.
NodePtr block_node(std::int64_t source, const std::string& datatype, const std::string& order,
                   NodePtr shape) {
  return map({{"source", num(source)},
              {"datatype", str(datatype)},
              {"byteorder", str(order)},
              {"shape", std::move(shape)}});
}

template <typename T>
Bytes to_bytes(const std::vector<T>& values, bool big_endian = false) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  if (big_endian == (std::endian::native == std::endian::little)) {
    for (std::size_t i = 0; i < out.size(); i += sizeof(T)) {
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(i),
                   out.begin() + static_cast<std::ptrdiff_t>(i + sizeof(T)));
    }
  }
  return out;
}

template <typename T>
std::vector<T> from_bytes(const Bytes& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::vector<std::int64_t> arange(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

NDArray read(const NodePtr& node, const MemoryBlocks& blocks) {
  return NDArray::from_node(*node, blocks, "/arr");
}

/// Expect reading `node` to fail with `code` at `path`, the message containing `words`.
void expect_error(const NodePtr& node, const MemoryBlocks& blocks, ErrorCode code,
                  const std::string& path, const std::string& words) {
  try {
    read(node, blocks);
    FAIL("no error");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(e.context().tree_path == path);
    CHECK_THAT(e.message(), Contains(words));
  }
}

/// The little-endian int64 values 0..7: the block of asdf-reference shared.asdf.
MemoryBlocks arange_blocks() {
  MemoryBlocks blocks;
  blocks.blocks.push_back(to_bytes(arange(8)));
  return blocks;
}

}  // namespace

TEST_CASE("a whole block as a 1-d array", "[ndarray]") {
  const MemoryBlocks blocks = arange_blocks();
  const NDArray a = read(block_node(0, "int64", "little", ints({8})), blocks);
  CHECK(a.dtype().numpy_str() == "<i8");
  CHECK(a.shape() == std::vector<std::uint64_t>{8});
  CHECK(a.strides() == std::vector<std::int64_t>{8});
  CHECK_FALSE(a.has_explicit_strides());
  CHECK(a.offset() == 0);
  CHECK(a.size() == 8);
  CHECK(a.nbytes() == 64);
  CHECK(a.source().kind == SourceKind::kBlock);
  CHECK(a.source().block == 0);
  CHECK(a.source().describe() == "block 0");
  CHECK_FALSE(a.is_inline());
  CHECK_FALSE(a.has_mask());
  CHECK(a.is_c_contiguous());
  // The oracle's md5 of /data in asdf-reference/1.6.0/shared.asdf.
  CHECK(a.md5_le() == "35594cae5fb11be3ea419c26bc4cfbee");
  CHECK(from_bytes<std::int64_t>(a.to_c_order(ByteOrder::kLittle)) == arange(8));
  // Zero copy: the view points into the block.
  const auto view = a.contiguous_view();
  REQUIRE(view);
  CHECK(view->data() == blocks.blocks[0].data());
  CHECK(view->size() == 64);
}

TEST_CASE("views sharing one block: offset and strides", "[ndarray]") {
  const MemoryBlocks blocks = arange_blocks();
  // shared.asdf's /subset: every second element from the second on.
  NodePtr node = block_node(0, "int64", "little", ints({4}));
  node->set("offset", num(8));
  node->set("strides", ints({16}));
  const NDArray subset = read(node, blocks);
  CHECK(subset.offset() == 8);
  CHECK(subset.strides() == std::vector<std::int64_t>{16});
  CHECK(subset.has_explicit_strides());
  CHECK_FALSE(subset.is_c_contiguous());
  CHECK_FALSE(subset.contiguous_view());
  CHECK(from_bytes<std::int64_t>(subset.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int64_t>{1, 3, 5, 7});
  CHECK(subset.md5_le() == "8c906d78c69e1f5485275960bc2bb089");  // oracle, shared.asdf /subset

  // A contiguous slice in the middle is still zero-copy.
  NodePtr middle = block_node(0, "int64", "little", ints({2, 2}));
  middle->set("offset", num(16));
  const NDArray m = read(middle, blocks);
  const auto view = m.contiguous_view();
  REQUIRE(view);
  CHECK(view->data() == blocks.blocks[0].data() + 16);
  CHECK(from_bytes<std::int64_t>(m.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int64_t>{2, 3, 4, 5});

  // Both views are independent of each other and of the block owner's lifetime rules.
  CHECK(subset.data().data() == m.data().data());
}

TEST_CASE("negative and transposed strides", "[ndarray]") {
  const MemoryBlocks blocks = arange_blocks();
  NodePtr reversed = block_node(0, "int64", "little", ints({4}));
  reversed->set("offset", num(24));
  reversed->set("strides", ints({-8}));
  const NDArray r = read(reversed, blocks);
  CHECK(from_bytes<std::int64_t>(r.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int64_t>{3, 2, 1, 0});
  CHECK(r.md5_le() == "3375e4816089477eb31e066738f532bb");

  // Fortran order: np.ndarray((2, 3), '<i8', arange(6), 0, (8, 16)) = [[0, 2, 4], [1, 3, 5]].
  NodePtr fortran = block_node(0, "int64", "little", ints({2, 3}));
  fortran->set("strides", ints({8, 16}));
  const NDArray f = read(fortran, blocks);
  CHECK(from_bytes<std::int64_t>(f.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int64_t>{0, 2, 4, 1, 3, 5});
  CHECK(f.md5_le() == "d4e3beb6056cd5464f2e99d3e26df609");

  // Big-endian, both strides negative: [[11, 9, 7], [5, 3, 1]] of arange(12, '>i4').
  MemoryBlocks big;
  big.blocks.push_back(
      to_bytes(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, true));
  NodePtr both = block_node(0, "int32", "big", ints({2, 3}));
  both->set("offset", num(44));
  both->set("strides", ints({-24, -8}));
  const NDArray b = read(both, big);
  CHECK(b.dtype().numpy_str() == ">i4");
  CHECK(from_bytes<std::int32_t>(b.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int32_t>{11, 9, 7, 5, 3, 1});
  CHECK(b.md5_le() == "bfd9977f94e139c7ef1e3e8900d34670");
}

TEST_CASE("negative source indices and external files", "[ndarray]") {
  MemoryBlocks blocks = arange_blocks();
  blocks.blocks.push_back(to_bytes(std::vector<std::int64_t>{42}));
  const NDArray last = read(block_node(-1, "int64", "little", ints({1})), blocks);
  CHECK(last.source().index == -1);
  CHECK(last.source().block == 1);
  CHECK(last.source().describe() == "block -1 (= 1)");
  CHECK(from_bytes<std::int64_t>(last.to_c_order(ByteOrder::kLittle)) ==
        std::vector<std::int64_t>{42});
  CHECK(read(block_node(-2, "int64", "little", ints({8})), blocks).source().block == 0);

  blocks.files["exploded0000.asdf"] = to_bytes(arange(8));
  NodePtr external = block_node(0, "int64", "little", ints({8}));
  external->set("source", str("exploded0000.asdf"));
  const NDArray e = read(external, blocks);
  CHECK(e.source().kind == SourceKind::kExternal);
  CHECK(e.source().uri == "exploded0000.asdf");
  CHECK(e.md5_le() == "35594cae5fb11be3ea419c26bc4cfbee");
}

TEST_CASE("streamed arrays take their first dimension from the block", "[ndarray]") {
  // asdf-reference stream.asdf: 8 rows of 8 float64, row i holding i.
  std::vector<double> values;
  for (int row = 0; row < 8; ++row) values.insert(values.end(), 8, static_cast<double>(row));
  MemoryBlocks blocks;
  blocks.blocks.push_back(to_bytes(values));
  NodePtr node = block_node(-1, "float64", "little", seq({str("*"), num(8)}));
  const NDArray a = read(node, blocks);
  CHECK(a.is_streamed());
  CHECK(a.shape() == std::vector<std::uint64_t>{8, 8});
  CHECK(a.md5_le() == "b46d6b1d62b99e7b8504ec541f0918f9");  // oracle, stream.asdf

  // A partial last row is left out, as python asdf does.
  blocks.blocks[0].resize(blocks.blocks[0].size() + 20);
  CHECK(read(node, blocks).shape() == std::vector<std::uint64_t>{8, 8});
  // An empty stream has no rows.
  blocks.blocks[0].clear();
  CHECK(read(node, blocks).shape() == std::vector<std::uint64_t>{0, 8});
  CHECK(read(node, blocks).md5_le() == "d41d8cd98f00b204e9800998ecf8427e");
}

TEST_CASE("byte order conversion", "[ndarray]") {
  // asdf-reference endian.asdf: arange(42) as '>i4' and '<i4' have the same md5 (oracle).
  std::vector<std::int32_t> values(42);
  for (int i = 0; i < 42; ++i) values[static_cast<std::size_t>(i)] = i;
  MemoryBlocks blocks;
  blocks.blocks.push_back(to_bytes(values, true));
  blocks.blocks.push_back(to_bytes(values, false));
  const NDArray big = read(block_node(0, "int32", "big", ints({42})), blocks);
  const NDArray little = read(block_node(1, "int32", "little", ints({42})), blocks);
  CHECK(big.md5_le() == "4c3454ca9838e72876822e53b4d7e1be");
  CHECK(little.md5_le() == "4c3454ca9838e72876822e53b4d7e1be");
  CHECK(big.to_c_order(ByteOrder::kLittle) == blocks.blocks[1]);
  CHECK(little.to_c_order(ByteOrder::kBig) == blocks.blocks[0]);
  CHECK(big.to_c_order(ByteOrder::kNotApplicable) == blocks.blocks[0]);
  // The zero-copy view keeps the stored order.
  CHECK(big.contiguous_view()->data() == blocks.blocks[0].data());

  // float16 and complex64, big-endian (bytes from numpy's tobytes()).
  MemoryBlocks more;
  more.blocks.push_back({0x3c, 0x00, 0xc1, 0x00, 0x7b, 0xff, 0x00, 0x02, 0x7c, 0x00});
  more.blocks.push_back({0x3f, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0xc0, 0x60, 0x00, 0x00,
                         0x3e, 0x80, 0x00, 0x00});
  const NDArray half = read(block_node(0, "float16", "big", ints({5})), more);
  CHECK(half.dtype().numpy_str() == ">f2");
  CHECK(half.md5_le() == "4b2b8578b8282e46b6759f0c5c1e41a3");
  const NDArray c8 = read(block_node(1, "complex64", "big", ints({2})), more);
  CHECK(c8.md5_le() == "64f80a08127d2c125efc96f43f06debc");
  const auto pairs = from_bytes<float>(c8.to_c_order(ByteOrder::kLittle));
  CHECK(pairs == std::vector<float>{1.0f, 2.0f, -3.5f, 0.25f});
}

TEST_CASE("strings and records convert field by field", "[ndarray]") {
  // '>U2' ['ab', 'Æʩ']: every character swapped; ASCII never changes.
  MemoryBlocks blocks;
  blocks.blocks.push_back({0, 0, 0, 0x61, 0, 0, 0, 0x62, 0, 0, 0, 0xc6, 0, 0, 0x02, 0xa9});
  NodePtr ucs4 = block_node(0, "int8", "big", ints({2}));
  ucs4->set("datatype", seq({str("ucs4"), num(2)}));
  const NDArray u = read(ucs4, blocks);
  CHECK(u.dtype().numpy_str() == ">U2");
  CHECK(u.md5_le() == "dce702388fceeee566f8390b9ac852ea");
  CHECK(u.to_c_order(ByteOrder::kLittle) ==
        Bytes{0x61, 0, 0, 0, 0x62, 0, 0, 0, 0xc6, 0, 0, 0, 0xa9, 0x02, 0, 0});

  NodePtr ascii = block_node(0, "int8", "big", ints({2}));
  ascii->set("datatype", seq({str("ascii"), num(8)}));
  const NDArray s = read(ascii, blocks);
  CHECK(s.dtype().numpy_str() == "|S8");
  CHECK(s.to_c_order(ByteOrder::kLittle) == blocks.blocks[0]);

  // [('a', 'u1'), ('b', 'S3'), ('c', '>f4'), ('d', '>i2', (2, 2))], two records (numpy bytes).
  MemoryBlocks records;
  records.blocks.push_back({0x01, 0x61, 0x62, 0x00, 0x3f, 0xc0, 0x00, 0x00, 0x00, 0x01, 0x00,
                            0x02, 0x00, 0x03, 0x00, 0x04, 0x02, 0x63, 0x64, 0x65, 0xc0, 0x00,
                            0x00, 0x00, 0x00, 0x05, 0x00, 0x06, 0x00, 0x07, 0x00, 0x08});
  NodePtr rec = block_node(0, "int8", "big", ints({2}));
  rec->set("datatype",
           seq({map({{"name", str("a")}, {"datatype", str("uint8")}}),
                map({{"name", str("b")}, {"datatype", seq({str("ascii"), num(3)})}}),
                map({{"name", str("c")}, {"datatype", str("float32")}}),
                map({{"name", str("d")}, {"datatype", str("int16")}, {"shape", ints({2, 2})}})}));
  const NDArray r = read(rec, records);
  CHECK(r.dtype().numpy_str() == "|V16");
  CHECK(r.md5_le() == "0734f3c59e61683215fec361dbd88fbb");
  const Bytes le = r.to_c_order(ByteOrder::kLittle);
  CHECK(Bytes(le.begin(), le.begin() + 16) == Bytes{0x01, 0x61, 0x62, 0x00, 0x00, 0x00, 0xc0, 0x3f,
                                                    0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04,
                                                    0x00});

  // Nested: [('coord', [('ra', '>f8'), ('dec', '<f8')]), ('k', '>u2')].
  MemoryBlocks nested;
  nested.blocks.push_back({0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,    0x40, 0, 0x07,
                           0x40, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x40, 0, 0x08});
  NodePtr nest = block_node(0, "int8", "big", ints({2}));
  nest->set("datatype",
            seq({map({{"name", str("coord")},
                      {"datatype", seq({map({{"name", str("ra")}, {"datatype", str("float64")}}),
                                        map({{"name", str("dec")},
                                             {"datatype", str("float64")},
                                             {"byteorder", str("little")}})})}}),
                 map({{"name", str("k")}, {"datatype", str("uint16")}})}));
  const NDArray n = read(nest, nested);
  CHECK(n.dtype().descr() == "[('coord', [('ra', '>f8'), ('dec', '<f8')]), ('k', '>u2')]");
  CHECK(n.md5_le() == "2298e979dae2984cc26210c21c214de3");
}

TEST_CASE("inline data and type inference", "[ndarray]") {
  const MemoryBlocks none;
  SECTION("integers, nested lists give the shape") {
    const NDArray a = read(seq({ints({1, 2, 3}), ints({4, 5, 6})}), none);
    CHECK(a.is_inline());
    CHECK(a.source().describe() == "inline data");
    CHECK(a.dtype().numpy_str() == "<i8");
    CHECK(a.shape() == std::vector<std::uint64_t>{2, 3});
    CHECK(a.strides() == std::vector<std::int64_t>{24, 8});
    CHECK(a.md5_le() == "61b3f07003e940708930a261ff3db900");
  }
  SECTION("ints and floats make float64; bools alone bool8; bools with ints int64") {
    const NDArray f = read(seq({num(1), real(2.5), num(-3)}), none);
    CHECK(f.dtype().numpy_str() == "<f8");
    CHECK(f.md5_le() == "2bcd5ba589cd025fe8960312ffa72343");
    const NDArray b = read(seq({boolean(true), boolean(false), boolean(true)}), none);
    CHECK(b.dtype().numpy_str() == "|b1");
    CHECK(b.md5_le() == "01e9802fd906341a2b769125c562d95c");
    CHECK(read(seq({boolean(true), num(2)}), none).dtype().numpy_str() == "<i8");
    // Beyond int64: uint64 alone, float64 mixed with signed integers (numpy's promotion).
    CHECK(read(seq({Node::make_integer_text("9223372036854775808")}), none).dtype().numpy_str() ==
          "<u8");
    CHECK(read(seq({num(1), Node::make_integer_text("9223372036854775808")}), none)
              .dtype()
              .numpy_str() == "<f8");
  }
  SECTION("strings are ucs4 of the longest; numbers among strings become text") {
    const NDArray s = read(seq({str("a"), str("bcd"), str("\xc3\x86\xca\xa9")}), none);
    CHECK(s.dtype().numpy_str() == "<U3");
    CHECK(s.md5_le() == "f284e69452d8b5c79e259d0a84bf104e");
    // np.array([1, 'ab', 2.5, True]) is '<U32' ['1', 'ab', '2.5', 'True'].
    const NDArray m = read(seq({num(1), str("ab"), real(2.5), boolean(true)}), none);
    CHECK(m.dtype().numpy_str() == "<U32");
    CHECK(m.md5_le() == "29e89879124de6c8c5d2c63517d510ff");
  }
  SECTION("complex numbers") {
    const NDArray c =
        read(seq({cplx("0j"), cplx("(1-2j)"), cplx("(nan+infj)"), num(3), cplx("-j")}), none);
    CHECK(c.dtype().numpy_str() == "<c16");
    CHECK(c.md5_le() == "70e0915d4b659b18ec476e3acfe0b71e");
    const auto parts = from_bytes<double>(c.to_c_order(ByteOrder::kLittle));
    CHECK(parts[2] == 1.0);
    CHECK(parts[3] == -2.0);
    CHECK(std::isnan(parts[4]));
    CHECK(std::isinf(parts[5]));
    CHECK(parts[9] == -1.0);
  }
  SECTION("empty lists") {
    const NDArray e = read(seq({}), none);
    CHECK(e.dtype().numpy_str() == "<f8");
    CHECK(e.shape() == std::vector<std::uint64_t>{0});
    CHECK(e.to_c_order(ByteOrder::kLittle).empty());
    CHECK(read(seq({seq({}), seq({})}), none).shape() == std::vector<std::uint64_t>{2, 0});
  }
  SECTION("explicit datatype and shape in a mapping") {
    NodePtr node = map({{"data", seq({num(1), num(2)})},
                        {"datatype", str("int16")},
                        {"shape", ints({2})},
                        {"byteorder", str("big")}});  // ignored for inline data
    const NDArray a = read(node, none);
    CHECK(a.dtype().numpy_str() == "<i2");
    CHECK(a.to_c_order(ByteOrder::kLittle) == Bytes{1, 0, 2, 0});
    node->set("shape", seq({str("*")}));
    CHECK(read(node, none).shape() == std::vector<std::uint64_t>{2});
  }
  SECTION("a string datatype of length 0 is as long as the longest value, as in numpy") {
    // python asdf 2.14: [ascii, 0] with [abc, d] reads as |S3, [ucs4, 0] with ['', ''] as <U1,
    // numbers take their text. Fuzz finding 10: elements of 0 bytes were written through a
    // null pointer (memset of 0 bytes, undefined behaviour seen by UBSan).
    const auto typed = [](NodePtr data, NodePtr datatype) {
      return map({{"data", std::move(data)}, {"datatype", std::move(datatype)}});
    };
    const NDArray a = read(typed(seq({str("abc"), str("d")}), seq({str("ascii"), num(0)})), none);
    CHECK(a.dtype().numpy_str() == "|S3");
    CHECK(a.to_c_order(ByteOrder::kLittle) == Bytes{'a', 'b', 'c', 'd', 0, 0});
    const NDArray e = read(typed(seq({str(""), str("")}), seq({str("ucs4"), num(0)})), none);
    CHECK(e.dtype().numpy_str() == "<U1");
    CHECK(e.to_c_order(ByteOrder::kLittle) == Bytes(8, 0));
    const NDArray n = read(typed(seq({num(12), num(3456)}), seq({str("ucs4"), num(0)})), none);
    CHECK(n.dtype().numpy_str() == "<U4");
    const NDArray u =
        read(typed(seq({str("\xc3\xa9"), str("ab")}), seq({str("ucs4"), num(0)})), none);
    CHECK(u.dtype().numpy_str() == "<U2");
  }
  SECTION("asdf-reference float.yaml: PyYAML's .nan has its sign bit set") {
    const double yaml_nan = std::bit_cast<double>(std::uint64_t{0xfff8000000000000});
    const auto values = [&] {
      return seq({real(0.0), real(-0.0), real(yaml_nan), real(INFINITY), real(-INFINITY),
                  real(-3.4028234663852886e+38), real(3.4028234663852886e+38),
                  real(1.1920928955078125e-07), real(5.960464477539063e-08),
                  real(1.1754943508222875e-38)});
    };
    const NDArray f4 = read(map({{"data", values()}, {"datatype", str("float32")}}), none);
    CHECK(f4.md5_le() == "681d8a4a91834cea886a6d004c98f333");  // oracle, float.yaml <f4
    const NodePtr f8_values = seq({real(0.0), real(-0.0), real(yaml_nan), real(INFINITY),
                                   real(-INFINITY), real(-1.7976931348623157e+308),
                                   real(1.7976931348623157e+308), real(2.220446049250313e-16),
                                   real(1.1102230246251565e-16), real(2.2250738585072014e-308)});
    const NDArray f8 = read(map({{"data", f8_values}, {"datatype", str("float64")}}), none);
    CHECK(f8.md5_le() == "7496e85bc32be7c17c470d6637db72ec");  // oracle, float.yaml <f8
  }
  SECTION("asdf-reference unicode_bmp.yaml") {
    NodePtr node = map({{"data", seq({str(""), str("\xc3\x86\xca\xa9")})},
                        {"datatype", seq({str("ucs4"), num(2)})},
                        {"shape", ints({2})}});
    CHECK(read(node, none).md5_le() == "495336e6d7102ef3638fdcaa4d4b71f5");  // oracle
  }
  SECTION("asdf-reference structured.yaml: records of a structured datatype") {
    NodePtr node =
        map({{"data", seq({seq({num(1), str("a"), real(3.299999952316284)}),
                           seq({num(2), str("b"), real(6.599999904632568)})})},
             {"datatype", seq({map({{"datatype", str("uint8")}, {"name", str("a")}}),
                               map({{"datatype", seq({str("ascii"), num(3)})}, {"name", str("b")}}),
                               map({{"datatype", str("float32")}, {"name", str("c")}})})},
             {"shape", ints({2})}});
    const NDArray r = read(node, none);
    CHECK(r.shape() == std::vector<std::uint64_t>{2});
    CHECK(r.dtype().numpy_str() == "|V8");
    CHECK(r.md5_le() == "3a3e8e97d786194aea0eac00f0a3092d");  // oracle, structured.yaml
  }
  SECTION("records with sub-arrays and nested records") {
    NodePtr node =
        map({{"data", seq({seq({seq({real(1.0), real(2.0)}), num(7)}),
                           seq({seq({real(3.0), real(4.0)}), num(8)})})},
             {"datatype", seq({map({{"name", str("coord")},
                                    {"datatype", seq({map({{"name", str("ra")},
                                                           {"datatype", str("float64")},
                                                           {"byteorder", str("big")}}),
                                                      map({{"name", str("dec")},
                                                           {"datatype", str("float64")}})})}}),
                               map({{"name", str("k")},
                                    {"datatype", str("uint16")},
                                    {"byteorder", str("big")}})})}});
    // The same records as the block test above, so the same md5.
    CHECK(read(node, none).md5_le() == "2298e979dae2984cc26210c21c214de3");

    NodePtr sub =
        map({{"data", seq({seq({num(1), ints({1, 2, 3})}), seq({num(2), ints({4, 5, 6})})})},
             {"datatype",
              seq({str("uint8"), map({{"datatype", str("int16")}, {"shape", ints({3})}})})}});
    const NDArray s = read(sub, none);
    CHECK(s.shape() == std::vector<std::uint64_t>{2});
    CHECK(s.to_c_order(ByteOrder::kLittle) == Bytes{1, 1, 0, 2, 0, 3, 0, 2, 4, 0, 5, 0, 6, 0});
  }
  SECTION("asdf-reference complex.yaml: python's complex text") {
    // The 100 `!core/complex-1.0.0` values of each array, cut from the file's text.
    const std::filesystem::path file =
        fitsasdf::test::corpus_dir() / "asdf-reference" / "1.6.0" / "complex.yaml";
    std::ifstream in(file);
    REQUIRE(in);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto values_of = [&text](const std::string& key) {
      const std::size_t start = text.find("data: [", text.find(key + ":"));
      const std::size_t end = text.find("]\n  datatype:", start);
      const std::string marker = "!core/complex-1.0.0 ";
      NodePtr data = Node::make_sequence();
      for (std::size_t pos = text.find(marker, start); pos < end; pos = text.find(marker, pos)) {
        pos += marker.size();
        std::size_t stop = pos;
        while (stop < end && text[stop] != ',' && text[stop] != '\n') ++stop;
        data->push_back(cplx(text.substr(pos, stop - pos)));
      }
      return data;
    };
    const NodePtr c16 = values_of("datatype<c16");
    const NodePtr c8 = values_of("datatype<c8");
    REQUIRE(c16->size() == 100);
    REQUIRE(c8->size() == 100);
    CHECK(read(map({{"data", c16}, {"datatype", str("complex128")}}), none).md5_le() ==
          "d96e53623263f4bc55862072c4e3aaa9");  // oracle, complex.yaml <c16
    CHECK(read(map({{"data", c8}, {"datatype", str("complex64")}}), none).md5_le() ==
          "5bc6dac55f054140789f3422233caf10");  // oracle, complex.yaml <c8
    CHECK(read(c16, none).dtype().numpy_str() == "<c16");
  }
  SECTION("values converted to an explicit datatype") {
    const auto convert = [&](NodePtr data, const NodePtr& datatype) {
      return read(map({{"data", std::move(data)}, {"datatype", datatype}}), none)
          .to_c_order(ByteOrder::kLittle);
    };
    CHECK(convert(seq({real(1.9), real(-1.9), boolean(true)}), str("int8")) == Bytes{1, 0xff, 1});
    CHECK(convert(seq({num(0), real(2.0), cplx("1j")}), str("bool8")) == Bytes{0, 1, 1});
    CHECK(convert(seq({str("7")}), str("uint8")) == Bytes{7});
    CHECK(convert(seq({num(12), str("abcdef")}), seq({str("ascii"), num(4)})) ==
          Bytes{'1', '2', 0, 0, 'a', 'b', 'c', 'd'});
    CHECK(convert(seq({real(1.5)}), str("float16")) == Bytes{0x00, 0x3e});
  }
}

TEST_CASE("masks", "[ndarray]") {
  SECTION("inline nulls are masked zeros") {
    const MemoryBlocks none;
    const NDArray a = read(seq({num(1), null(), num(3)}), none);
    CHECK(a.dtype().numpy_str() == "<i8");
    CHECK(a.has_mask());
    CHECK(a.mask().kind == MaskKind::kNone);
    CHECK(a.mask_c_order() == Bytes{0, 1, 0});
    CHECK(a.masked_count() == 1);
    CHECK(a.md5_le() == "fecf2b02c37be18cb5835be8cf6cbdba");  // np.array([1, 0, 3])
    const NDArray b = read(seq({ints({1, 2}), seq({null(), real(4.5)})}), none);
    CHECK(b.dtype().numpy_str() == "<f8");
    CHECK(b.mask_c_order() == Bytes{0, 0, 1, 0});
  }
  SECTION("a value marks missing elements") {
    MemoryBlocks blocks;
    blocks.blocks.push_back(to_bytes(std::vector<double>{1.0, -999.0, 3.0, -999.000001}));
    NodePtr node = block_node(0, "float64", "little", ints({4}));
    node->set("mask", num(-999));
    const NDArray a = read(node, blocks);
    CHECK(a.mask().kind == MaskKind::kValue);
    CHECK(std::get<std::int64_t>(a.mask().value) == -999);
    // Floats compare as numpy.ma.masked_values does (isclose).
    CHECK(a.mask_c_order() == Bytes{0, 1, 0, 1});
    CHECK(a.masked_count() == 2);

    node->set("mask", real(NAN));
    blocks.blocks[0] = to_bytes(std::vector<double>{NAN, 1.0, NAN});
    node->set("shape", ints({3}));
    CHECK(read(node, blocks).mask_c_order() == Bytes{1, 0, 1});

    // Integers compare exactly; big-endian data is read in its order.
    MemoryBlocks ints_block;
    ints_block.blocks.push_back(to_bytes(std::vector<std::int32_t>{5, -1, 5, 6}, true));
    NodePtr inode = block_node(0, "int32", "big", ints({4}));
    inode->set("mask", num(5));
    CHECK(read(inode, ints_block).mask_c_order() == Bytes{1, 0, 1, 0});
    inode->set("mask", real(5.5));
    CHECK(read(inode, ints_block).masked_count() == 0);

    // A complex mask value.
    MemoryBlocks c;
    c.blocks.push_back(to_bytes(std::vector<double>{1.0, 2.0, 0.0, 0.0}));
    NodePtr cnode = block_node(0, "complex128", "little", ints({2}));
    cnode->set("mask", cplx("1+2j"));
    const NDArray ca = read(cnode, c);
    CHECK(std::get<std::complex<double>>(ca.mask().value) == std::complex<double>(1.0, 2.0));
    CHECK(ca.mask_c_order() == Bytes{1, 0});
  }
  SECTION("another ndarray as the mask") {
    MemoryBlocks blocks = arange_blocks();
    blocks.blocks.push_back({0, 1, 1, 0, 0, 0, 0, 1});
    NodePtr node = block_node(0, "int64", "little", ints({2, 4}));
    node->set("mask", block_node(1, "bool8", "little", ints({2, 4})));
    const NDArray a = read(node, blocks);
    CHECK(a.mask().kind == MaskKind::kArray);
    REQUIRE(a.mask().array);
    CHECK(a.mask().array->dtype().numpy_str() == "|b1");
    CHECK(a.mask_c_order() == Bytes{0, 1, 1, 0, 0, 0, 0, 1});
    CHECK(a.masked_count() == 3);
    // One element covers the whole array; an inline mask works too.
    node->set("mask", seq({boolean(true)}));
    CHECK(read(node, blocks).masked_count() == 8);
    // Inline nulls and an explicit mask combine.
    NodePtr both = map({{"data", seq({num(1), null(), num(3)})}, {"mask", num(3)}});
    CHECK(read(both, blocks).mask_c_order() == Bytes{0, 1, 1});
  }
}

TEST_CASE("ndarray nodes for writing", "[ndarray]") {
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = DType::numeric(DTypeKind::kFloat64, ByteOrder::kBig);
  spec.shape = {4, 2};
  spec.source = std::int64_t{1};
  spec.offset = 48;
  spec.strides = {-16, 8};
  spec.version = "1.1.0";
  const NodePtr node = asdfcore::ndarray::make_ndarray_node(spec);
  CHECK(node->tag() == "tag:stsci.edu:asdf/core/ndarray-1.1.0");
  std::vector<std::string> keys;
  for (const auto& [key, value] : node->entries()) keys.push_back(key->as_string());
  CHECK(keys ==
        std::vector<std::string>{"source", "datatype", "byteorder", "shape", "offset", "strides"});
  CHECK(node->get("byteorder")->as_string() == "big");
  CHECK(node->get("datatype")->as_string() == "float64");
  CHECK(node->get("shape")->collection_style == asdfcore::tree::CollectionStyle::kFlow);

  // What we write reads back.
  MemoryBlocks blocks;
  blocks.blocks.emplace_back();
  blocks.blocks.push_back(Bytes(64));
  const NDArray back = read(node, blocks);
  CHECK(back.dtype() == spec.dtype);
  CHECK(back.shape() == spec.shape);
  CHECK(back.strides() == spec.strides);
  CHECK(back.offset() == 48);

  // Defaults: no offset or strides; '*' for a stream; records and bytes say "big".
  asdfcore::ndarray::NDArrayNodeSpec stream;
  stream.dtype = DType::ascii(4);
  stream.shape = {0, 3};
  stream.source = std::int64_t{-1};
  stream.streamed = true;
  const NodePtr s = asdfcore::ndarray::make_ndarray_node(stream);
  CHECK(s->tag() == "tag:stsci.edu:asdf/core/ndarray-1.0.0");
  CHECK_FALSE(s->get("offset"));
  CHECK_FALSE(s->get("strides"));
  CHECK(s->get("shape")->items()[0]->as_string() == "*");
  CHECK(s->get("byteorder")->as_string() == "big");

  stream.source = std::string("data0000.asdf");
  CHECK(asdfcore::ndarray::make_ndarray_node(stream)->get("source")->as_string() ==
        "data0000.asdf");
  stream.strides = {1};
  CHECK_THROWS_AS(asdfcore::ndarray::make_ndarray_node(stream), Error);
}

TEST_CASE("bad ndarray nodes are errors naming the path", "[ndarray][error]") {
  const MemoryBlocks blocks = arange_blocks();  // one block of 64 bytes

  SECTION("offset past the block") {
    NodePtr node = block_node(0, "int64", "little", ints({1}));
    node->set("offset", num(65));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr", "past the end of block 0");
    node->set("offset", num(64));  // no element fits at the very end
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr", "outside block 0");
    node->set("shape", ints({0}));  // an empty view there is fine, as in numpy
    CHECK(read(node, blocks).size() == 0);
    node->set("offset", num(-8));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/offset", "non-negative");
  }
  SECTION("shape larger than the block") {
    expect_error(block_node(0, "int64", "little", ints({9})), blocks, ErrorCode::kMalformed, "/arr",
                 "spans bytes [0, 72)");
    expect_error(block_node(0, "complex128", "little", ints({2, 3})), blocks, ErrorCode::kMalformed,
                 "/arr", "outside block 0");
  }
  SECTION("strides past the block") {
    NodePtr node = block_node(0, "int64", "little", ints({4}));
    node->set("strides", ints({24}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr", "fix offset, strides or shape");
    node->set("strides", ints({-8}));  // starts at 0 and walks backwards
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr", "spans bytes [-24, 8)");
    node->set("offset", num(24));
    CHECK(read(node, blocks).size() == 4);
    node->set("strides", ints({std::numeric_limits<std::int64_t>::min()}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr", "outside block 0");
    node->set("strides", ints({8, 8}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/strides", "one per dimension");
    node->set("strides", ints({0}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/strides/0", "non-zero");
  }
  SECTION("shape overflow") {
    expect_error(
        block_node(0, "int64", "little", ints({std::int64_t{1} << 40, std::int64_t{1} << 40})),
        blocks, ErrorCode::kMalformed, "/arr/shape", "larger than 2^63 bytes");
    expect_error(
        block_node(0, "int8", "little", ints({std::int64_t{1} << 32, std::int64_t{1} << 32, 0})),
        blocks, ErrorCode::kMalformed, "/arr/shape", "larger than 2^63 bytes");
    expect_error(block_node(0, "int64", "little", ints({-1})), blocks, ErrorCode::kMalformed,
                 "/arr/shape/0", "non-negative");
    expect_error(block_node(0, "int64", "little", seq({num(2), str("*")})), blocks,
                 ErrorCode::kMalformed, "/arr/shape/1", "'*' may only be the first");
    NodePtr deep = Node::make_sequence();
    for (int i = 0; i < 70; ++i) deep->push_back(num(1));
    expect_error(block_node(0, "int64", "little", deep), blocks, ErrorCode::kMalformed,
                 "/arr/shape", "dimensions");
  }
  SECTION("missing source and data, or both") {
    expect_error(map({{"datatype", str("int64")}, {"shape", ints({1})}}), blocks,
                 ErrorCode::kMalformed, "/arr", "neither `source` nor `data`");
    NodePtr both = block_node(0, "int64", "little", ints({1}));
    both->set("data", ints({1}));
    expect_error(both, blocks, ErrorCode::kMalformed, "/arr", "both `source` and `data`");
    expect_error(num(3), blocks, ErrorCode::kMalformed, "/arr", "mapping or a list");
    NodePtr no_order = block_node(0, "int64", "little", ints({1}));
    no_order->erase("byteorder");
    expect_error(no_order, blocks, ErrorCode::kMalformed, "/arr", "`byteorder`");
    NodePtr no_type = block_node(0, "int64", "little", ints({1}));
    no_type->erase("datatype");
    expect_error(no_type, blocks, ErrorCode::kMalformed, "/arr", "`datatype`");
    NodePtr no_shape = block_node(0, "int64", "little", ints({1}));
    no_shape->erase("shape");
    expect_error(no_shape, blocks, ErrorCode::kMalformed, "/arr", "`shape`");
    NodePtr bad_order = block_node(0, "int64", "middle", ints({1}));
    expect_error(bad_order, blocks, ErrorCode::kMalformed, "/arr/byteorder", "'big' or 'little'");
    NodePtr bad_type = block_node(0, "int65", "little", ints({1}));
    expect_error(bad_type, blocks, ErrorCode::kMalformed, "/arr/datatype", "unknown datatype");
  }
  SECTION("unknown block index") {
    expect_error(block_node(1, "int64", "little", ints({1})), blocks, ErrorCode::kMalformed,
                 "/arr/source", "source 1 names no block: the file has 1 block(s)");
    expect_error(block_node(-2, "int64", "little", ints({1})), blocks, ErrorCode::kMalformed,
                 "/arr/source", "source -2 names no block");
    NodePtr bad = block_node(0, "int64", "little", ints({1}));
    bad->set("source", real(1.0));
    expect_error(bad, blocks, ErrorCode::kMalformed, "/arr/source", "block index or a URI");
    // The provider's own errors get the path.
    bad->set("source", str("missing.asdf"));
    expect_error(bad, blocks, ErrorCode::kIo, "/arr/source", "cannot open missing.asdf");
  }
  SECTION("streams that cannot be resolved") {
    NodePtr node = block_node(0, "int64", "little", seq({str("*"), num(0)}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/shape", "cannot resolve '*'");
    node->set("shape", seq({str("*")}));
    node->set("strides", ints({-8}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/strides", "positive first stride");
  }
  SECTION("bad inline data") {
    expect_error(seq({ints({1, 2}), ints({3})}), blocks, ErrorCode::kMalformed, "/arr/1", "ragged");
    expect_error(seq({num(1), ints({2})}), blocks, ErrorCode::kMalformed, "/arr/1", "ragged");
    expect_error(seq({ints({1}), num(2)}), blocks, ErrorCode::kMalformed, "/arr/1", "ragged");
    expect_error(seq({num(1), map({{"a", num(1)}})}), blocks, ErrorCode::kMalformed, "/arr/1",
                 "found a mapping");
    expect_error(seq({num(1), cplx("1+")}), blocks, ErrorCode::kMalformed, "/arr/1",
                 "not a complex number");
    expect_error(map({{"data", seq({num(300)})}, {"datatype", str("uint8")}}), blocks,
                 ErrorCode::kMalformed, "/arr/data/0", "does not fit");
    expect_error(map({{"data", seq({cplx("1j")})}, {"datatype", str("float64")}}), blocks,
                 ErrorCode::kMalformed, "/arr/data/0", "complex64 or complex128");
    expect_error(map({{"data", seq({str("\xc3\xa9")})}, {"datatype", seq({str("ascii"), num(2)})}}),
                 blocks, ErrorCode::kMalformed, "/arr/data/0", "not ASCII");
    expect_error(map({{"data", ints({1, 2})}, {"shape", ints({3})}}), blocks, ErrorCode::kMalformed,
                 "/arr/shape", "does not match");
    expect_error(map({{"data", num(1)}}), blocks, ErrorCode::kMalformed, "/arr/data",
                 "must be a list");
    expect_error(map({{"data", seq({num(1), num(2)})},
                      {"datatype", seq({str("uint8"), str("uint8"), str("uint8")})}}),
                 blocks, ErrorCode::kMalformed, "/arr/data", "cannot be read as records");
    expect_error(seq({Node::make_integer_text("-99999999999999999999")}), blocks,
                 ErrorCode::kMalformed, "/arr/0", "fits neither");
    expect_error(map({{"data", seq({num(1)})}, {"datatype", seq({str("ucs4"), num(300000000)})}}),
                 blocks, ErrorCode::kLimit, "/arr/data", "limit for inline data");
  }
  SECTION("masks that do not fit") {
    NodePtr node = block_node(0, "int64", "little", ints({8}));
    node->set("mask", ints({1, 0}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/mask", "does not fit");
    node->set("mask", str("x"));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/mask", "must be a number");
    node->set("mask", seq({str("a")}));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/mask", "must be numeric");
    node->set("mask", block_node(3, "bool8", "little", ints({8})));
    expect_error(node, blocks, ErrorCode::kMalformed, "/arr/mask/source", "names no block");
  }
  SECTION("overlapping strides are copied only up to a limit") {
    NodePtr node = block_node(0, "int8", "little", ints({1000, 1000}));
    node->set("strides", ints({0 + 1, 0 + 1}));
    node->set("shape", ints({60, 5}));
    const NDArray a = read(node, blocks);
    CHECK(a.nbytes() == 300);
    CHECK(a.to_c_order(ByteOrder::kLittle).size() == 300);
    try {
      a.to_c_order(ByteOrder::kLittle, 100);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kLimit);
    }
  }
}
