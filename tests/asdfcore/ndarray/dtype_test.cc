// DType: every ASDF datatype read from tree nodes as python asdf reads it, the numpy spellings
// (dtype.str, dtype.name, str(dtype), dtype.descr) the corpus oracle records, writing back to
// nodes, byte-swap plans, float16 conversion, and the errors for bad datatypes. Expected numpy
// strings were taken from numpy 1.24 (/usr/bin/python3) and the oracle's structured.asdf record.
#include "asdfcore/ndarray/dtype.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/tree/node.h"
#include "support/catch.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::Field;
using asdfcore::ndarray::SwapRun;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

NodePtr str(const std::string& s) { return Node::make_string(s); }
NodePtr num(std::int64_t v) { return Node::make_int(v); }

NodePtr seq(std::initializer_list<NodePtr> items) {
  NodePtr n = Node::make_sequence();
  for (const NodePtr& item : items) n->push_back(item);
  return n;
}

NodePtr map(std::initializer_list<std::pair<std::string, NodePtr>> entries) {
  NodePtr n = Node::make_mapping();
  for (const auto& [key, value] : entries) n->set(key, value);
  return n;
}

DType parse(const NodePtr& node, ByteOrder order = ByteOrder::kLittle) {
  return DType::from_node(*node, order, "/a/datatype");
}

/// Expect `from_node` to fail with a malformed error whose tree path is `path`.
void expect_malformed(const NodePtr& node, const std::string& path, const std::string& words) {
  try {
    parse(node);
    FAIL("no error for a bad datatype");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kMalformed);
    CHECK(e.context().tree_path == path);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(words));
  }
}

/// The structured datatype of asdf-reference/1.6.0/structured.asdf.
NodePtr reference_structured() {
  return seq(
      {map({{"byteorder", str("big")}, {"datatype", str("uint8")}, {"name", str("a")}}),
       map({{"byteorder", str("big")},
            {"datatype", seq({str("ascii"), num(3)})},
            {"name", str("b")}}),
       map({{"byteorder", str("little")}, {"datatype", str("float32")}, {"name", str("c")}})});
}

/// The nested example of the ndarray schema, plus a big-endian unnamed field.
NodePtr nested_structured() {
  return seq({map({{"name", str("coordinate")},
                   {"datatype", seq({map({{"name", str("ra")}, {"datatype", str("float64")}}),
                                     map({{"name", str("dec")},
                                          {"datatype", str("float64")},
                                          {"byteorder", str("big")}})})}}),
              map({{"name", str("kernel")},
                   {"datatype", str("float32")},
                   {"shape", seq({num(3), num(3)})}}),
              map({{"datatype", str("int16")}, {"byteorder", str("big")}})});
}

}  // namespace

TEST_CASE("numeric datatypes map to numpy's names", "[dtype]") {
  struct Row {
    const char* asdf;
    ByteOrder order;
    const char* numpy_str;
    const char* name;
    const char* to_string;
    std::uint64_t itemsize;
  };
  const std::vector<Row> rows = {
      {"int8", ByteOrder::kBig, "|i1", "int8", "int8", 1},
      {"uint8", ByteOrder::kLittle, "|u1", "uint8", "uint8", 1},
      {"int16", ByteOrder::kLittle, "<i2", "int16", "int16", 2},
      {"uint16", ByteOrder::kBig, ">u2", "uint16", ">u2", 2},
      {"int32", ByteOrder::kBig, ">i4", "int32", ">i4", 4},
      {"uint32", ByteOrder::kLittle, "<u4", "uint32", "uint32", 4},
      {"int64", ByteOrder::kLittle, "<i8", "int64", "int64", 8},
      {"uint64", ByteOrder::kBig, ">u8", "uint64", ">u8", 8},
      {"float16", ByteOrder::kLittle, "<f2", "float16", "float16", 2},
      {"float16", ByteOrder::kBig, ">f2", "float16", ">f2", 2},
      {"float32", ByteOrder::kLittle, "<f4", "float32", "float32", 4},
      {"float64", ByteOrder::kLittle, "<f8", "float64", "float64", 8},
      {"float64", ByteOrder::kBig, ">f8", "float64", ">f8", 8},
      {"complex64", ByteOrder::kLittle, "<c8", "complex64", "complex64", 8},
      {"complex128", ByteOrder::kLittle, "<c16", "complex128", "complex128", 16},
      {"complex128", ByteOrder::kBig, ">c16", "complex128", ">c16", 16},
      {"bool8", ByteOrder::kBig, "|b1", "bool", "bool", 1},
  };
  for (const Row& row : rows) {
    INFO(row.asdf << " " << row.numpy_str);
    const DType d = parse(str(row.asdf), row.order);
    CHECK(d.numpy_str() == row.numpy_str);
    CHECK(d.name() == row.name);
    CHECK(d.to_string() == row.to_string);
    CHECK(d.itemsize() == row.itemsize);
    CHECK(d.is_numeric());
    CHECK(d.descr() == std::string("[('', '") + row.numpy_str + "')]");
    // One-byte kinds have no byte order, as numpy's '|'.
    CHECK((d.byte_order() == ByteOrder::kNotApplicable) == (row.itemsize == 1));
    // Writing back gives the ASDF name, and reading that again gives the same type.
    const NodePtr back = d.to_node();
    REQUIRE(back->is_string());
    CHECK(back->as_string() == row.asdf);
    CHECK(parse(back, row.order) == d);
  }
}

TEST_CASE("string datatypes", "[dtype]") {
  const DType s8 = parse(seq({str("ascii"), num(8)}));
  CHECK(s8.kind() == DTypeKind::kAscii);
  CHECK(s8.numpy_str() == "|S8");
  CHECK(s8.name() == "bytes64");
  CHECK(s8.to_string() == "|S8");
  CHECK(s8.itemsize() == 8);
  CHECK(s8.length() == 8);
  CHECK(s8.byte_order() == ByteOrder::kNotApplicable);

  const DType u4 = parse(seq({str("ucs4"), num(4)}), ByteOrder::kLittle);
  CHECK(u4.numpy_str() == "<U4");
  CHECK(u4.name() == "str128");
  CHECK(u4.itemsize() == 16);
  CHECK(parse(seq({str("ucs4"), num(4)}), ByteOrder::kBig).numpy_str() == ">U4");

  // Zero-length strings are allowed (the schema's minimum is 0).
  CHECK(parse(seq({str("ascii"), num(0)})).numpy_str() == "|S0");
  CHECK(parse(seq({str("ascii"), num(0)})).name() == "bytes");
  CHECK(parse(seq({str("ucs4"), num(0)})).name() == "str");

  const NodePtr back = u4.to_node();
  REQUIRE(back->is_sequence());
  REQUIRE(back->items().size() == 2);
  CHECK(back->items()[0]->as_string() == "ucs4");
  CHECK(back->items()[1]->as_int() == 4);
  CHECK(asdfcore::ndarray::asdf_byteorder_name(s8.byte_order()) == "big");
}

TEST_CASE("structured datatype of the reference file", "[dtype]") {
  // The top-level byteorder is big; each field gives its own.
  const DType d = parse(reference_structured(), ByteOrder::kBig);
  REQUIRE(d.is_structured());
  REQUIRE(d.fields().size() == 3);
  CHECK(d.itemsize() == 8);
  CHECK(d.fields()[0].offset == 0);
  CHECK(d.fields()[1].offset == 1);
  CHECK(d.fields()[2].offset == 4);
  CHECK(d.fields()[2].dtype.byte_order() == ByteOrder::kLittle);
  // The oracle's dtype, dtype_name and dtype_descr for this array.
  CHECK(d.numpy_str() == "|V8");
  CHECK(d.to_string() == "[('a', 'u1'), ('b', 'S3'), ('c', '<f4')]");
  CHECK(d.descr() == "[('a', '|u1'), ('b', '|S3'), ('c', '<f4')]");
  CHECK(d.name() == d.descr());
  const NodePtr descr =
      seq({seq({str("a"), str("|u1")}), seq({str("b"), str("|S3")}), seq({str("c"), str("<f4")})});
  CHECK(asdfcore::tree::deep_equal(*d.descr_node(), *descr));
}

TEST_CASE("nested structured datatype with sub-arrays and unnamed fields", "[dtype]") {
  const DType d = parse(nested_structured(), ByteOrder::kLittle);
  REQUIRE(d.fields().size() == 3);
  const Field& coordinate = d.fields()[0];
  CHECK(coordinate.dtype.is_structured());
  CHECK(coordinate.dtype.itemsize() == 16);
  CHECK(coordinate.dtype.fields()[0].dtype.numpy_str() == "<f8");  // inherited
  CHECK(coordinate.dtype.fields()[1].dtype.numpy_str() == ">f8");  // its own
  CHECK(d.fields()[1].shape == std::vector<std::uint64_t>{3, 3});
  CHECK(d.fields()[1].offset == 16);
  CHECK(d.fields()[1].size() == 36);
  CHECK(d.fields()[2].name.empty());
  CHECK(d.fields()[2].offset == 52);
  CHECK(d.itemsize() == 54);
  CHECK(d.numpy_str() == "|V54");
  CHECK(d.descr() ==
        "[('coordinate', [('ra', '<f8'), ('dec', '>f8')]), ('kernel', '<f4', (3, 3)), "
        "('f2', '>i2')]");
  CHECK(asdfcore::ndarray::effective_field_name(d, 2) == "f2");

  // A list of plain datatypes names its fields f0, f1, ...; nested lists inherit the order.
  const DType plain =
      parse(seq({str("int16"), seq({str("float32"), str("uint8")})}), ByteOrder::kBig);
  CHECK(plain.descr() == "[('f0', '>i2'), ('f1', [('f0', '>f4'), ('f1', '|u1')])]");
  CHECK(plain.itemsize() == 7);

  // A field shape of [2] prints as python's one-tuple.
  const DType one = parse(seq({map(
      {{"name", str("s")}, {"datatype", seq({str("ucs4"), num(3)})}, {"shape", seq({num(2)})}})}));
  CHECK(one.descr() == "[('s', '<U3', (2,))]");
  CHECK(one.itemsize() == 24);

  // An empty list is numpy's empty record.
  CHECK(parse(seq({})).numpy_str() == "|V0");
}

TEST_CASE("structured datatypes write back as python asdf writes them", "[dtype]") {
  const DType d = parse(nested_structured(), ByteOrder::kLittle);
  const NodePtr node = d.to_node();
  REQUIRE(node->is_sequence());
  REQUIRE(node->items().size() == 3);
  const Node& kernel = *node->items()[1];
  CHECK(kernel.get("name")->as_string() == "kernel");
  CHECK(kernel.get("datatype")->as_string() == "float32");
  CHECK(kernel.get("byteorder")->as_string() == "little");
  REQUIRE(kernel.get("shape"));
  CHECK(kernel.get("shape")->items().size() == 2);
  // Unnamed fields get numpy's name; records are written with byteorder "big" ('|').
  CHECK(node->items()[2]->get("name")->as_string() == "f2");
  CHECK(node->items()[0]->get("byteorder")->as_string() == "big");
  // Reading the written node gives the same type, up to the names numpy made up.
  const DType again = parse(node, ByteOrder::kLittle);
  CHECK(again.descr() == d.descr());
  CHECK(again.itemsize() == d.itemsize());

  // Without byte orders (python asdf's inline arrays) only the top level leaves them out.
  const NodePtr inline_node = d.to_node(false);
  CHECK_FALSE(inline_node->items()[1]->get("byteorder"));
  CHECK(inline_node->items()[0]->get("datatype")->items()[0]->get("byteorder"));

  // The reference record round-trips exactly.
  const DType reference = parse(reference_structured(), ByteOrder::kBig);
  CHECK(parse(reference.to_node(), ByteOrder::kBig) == reference);
}

TEST_CASE("byte order changes and swap plans", "[dtype]") {
  const DType big = parse(str("float64"), ByteOrder::kBig);
  CHECK(big.with_byte_order(ByteOrder::kLittle).numpy_str() == "<f8");
  CHECK(big.swap_plan(ByteOrder::kLittle) == std::vector<SwapRun>{{0, 8, 1}});
  CHECK(big.swap_plan(ByteOrder::kBig).empty());
  CHECK(big.swap_plan(ByteOrder::kNotApplicable).empty());
  // Complex numbers swap each half; UCS-4 swaps each character; ASCII and bytes never.
  CHECK(parse(str("complex128"), ByteOrder::kBig).swap_plan(ByteOrder::kLittle) ==
        std::vector<SwapRun>{{0, 8, 2}});
  CHECK(parse(seq({str("ucs4"), num(3)}), ByteOrder::kBig).swap_plan(ByteOrder::kLittle) ==
        std::vector<SwapRun>{{0, 4, 3}});
  CHECK(parse(seq({str("ascii"), num(3)})).swap_plan(ByteOrder::kBig).empty());
  CHECK(parse(str("uint8")).swap_plan(ByteOrder::kBig).empty());

  // Records: only the fields whose order differs; runs of the same unit merge.
  const DType nested = parse(nested_structured(), ByteOrder::kLittle);
  CHECK(nested.swap_plan(ByteOrder::kLittle) == std::vector<SwapRun>{{8, 8, 1}, {52, 2, 1}});
  CHECK(nested.swap_plan(ByteOrder::kBig) == std::vector<SwapRun>{{0, 8, 1}, {16, 4, 9}});
  const DType all_big = nested.with_byte_order(ByteOrder::kBig);
  CHECK(all_big.descr() ==
        "[('coordinate', [('ra', '>f8'), ('dec', '>f8')]), ('kernel', '>f4', (3, 3)), "
        "('f2', '>i2')]");
  CHECK(all_big.swap_plan(ByteOrder::kBig).empty());

  // apply_swap_plan converts elements in place.
  std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const auto plan = parse(str("int32"), ByteOrder::kBig).swap_plan(ByteOrder::kLittle);
  asdfcore::ndarray::apply_swap_plan(bytes, 4, plan);
  CHECK(bytes == std::vector<std::uint8_t>{4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 16, 15, 14, 13});
}

TEST_CASE("float16 conversions", "[dtype]") {
  using asdfcore::ndarray::double_to_float16;
  using asdfcore::ndarray::float16_to_double;
  // Bits from numpy: np.array([1, -2.5, 65504, 1e-7, inf], '<f2').view('<u2').
  CHECK(double_to_float16(1.0) == 15360);
  CHECK(double_to_float16(-2.5) == 49408);
  CHECK(double_to_float16(65504.0) == 31743);
  CHECK(double_to_float16(1e-7) == 2);
  CHECK(double_to_float16(INFINITY) == 31744);
  CHECK(double_to_float16(65520.0) == 0x7c00);  // rounds up to infinity
  CHECK(double_to_float16(65519.0) == 0x7bff);
  CHECK(double_to_float16(std::ldexp(1.0, -25)) == 0);  // a tie, to even
  CHECK(double_to_float16(-0.0) == 0x8000);
  CHECK(double_to_float16(1.0 + std::ldexp(1.0, -11)) == 15360);  // tie to even
  CHECK(double_to_float16(1.0 + 3 * std::ldexp(1.0, -11)) == 15362);
  CHECK(std::isnan(float16_to_double(double_to_float16(NAN))));
  for (std::uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    REQUIRE(double_to_float16(float16_to_double(b)) == b);
  }
  CHECK(float16_to_double(2) == std::ldexp(1.0, -23));
}

TEST_CASE("bad datatypes are errors", "[dtype][error]") {
  expect_malformed(str("float128"), "/a/datatype", "unknown datatype 'float128'");
  expect_malformed(str("int"), "/a/datatype", "unknown datatype");
  expect_malformed(str("ascii"), "/a/datatype", "needs a length");
  expect_malformed(seq({str("ascii")}), "/a/datatype", "[ascii, N]");
  expect_malformed(seq({str("ucs4"), str("x")}), "/a/datatype", "[ucs4, N]");
  expect_malformed(seq({str("ascii"), num(3), num(4)}), "/a/datatype", "[ascii, N]");
  expect_malformed(seq({str("ascii"), num(-1)}), "/a/datatype/1", "non-negative");
  expect_malformed(seq({str("ucs4"), num(std::int64_t{1} << 30)}), "/a/datatype/1", "at most");
  expect_malformed(seq({str("ascii"), Node::make_integer_text("123456789012345678901234")}),
                   "/a/datatype/1", "non-negative");
  expect_malformed(num(5), "/a/datatype", "found 5");
  expect_malformed(map({{"datatype", str("int8")}}), "/a/datatype", "found a mapping");
  expect_malformed(seq({str("int8"), map({{"name", str("x")}})}), "/a/datatype/1", "no `datatype`");
  expect_malformed(seq({str("int8"), str("int9")}), "/a/datatype/1", "unknown datatype 'int9'");
  expect_malformed(seq({map({{"datatype", str("int8")}, {"byteorder", str("middle")}})}),
                   "/a/datatype/0/byteorder", "'big' or 'little'");
  expect_malformed(seq({map({{"datatype", str("int8")}, {"shape", seq({num(-2)})}})}),
                   "/a/datatype/0/shape/0", "non-negative");
  expect_malformed(seq({map({{"datatype", str("int8")}, {"name", num(3)}})}), "/a/datatype/0/name",
                   "must be a string");
  expect_malformed(seq({map({{"name", str("x")}, {"datatype", str("int8")}}),
                        map({{"name", str("x")}, {"datatype", str("int16")}})}),
                   "/a/datatype", "'x' occurs more than once");
  // numpy names an unnamed second field f1, which clashes with an explicit f1.
  expect_malformed(seq({map({{"name", str("f1")}, {"datatype", str("int8")}}), str("int8")}),
                   "/a/datatype", "'f1' occurs more than once");
  // A record whose size exceeds numpy's limit.
  expect_malformed(
      seq({map({{"datatype", str("float64")}, {"shape", seq({num(1 << 20), num(1 << 20)})}})}),
      "/a/datatype", "larger than");
  // Nested errors name the nested path.
  expect_malformed(seq({map({{"name", str("n")}, {"datatype", seq({str("bogus")})}})}),
                   "/a/datatype/0/datatype/0", "unknown datatype 'bogus'");

  CHECK_THROWS_AS(asdfcore::ndarray::parse_byteorder(*str("Big"), "/b"), Error);
  CHECK_THROWS_AS(DType::numeric(DTypeKind::kAscii), Error);
  CHECK_THROWS_AS(DType::ascii(std::uint64_t{1} << 40), Error);
}
