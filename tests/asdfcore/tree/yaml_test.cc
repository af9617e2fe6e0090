// Reading and writing YAML trees: round trips of each feature, the layout python asdf writes,
// and every tree of the shared corpus.
#include "asdfcore/tree/yaml.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "asdfcore/tree/node.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::CollectionStyle;
using asdfcore::tree::deep_equal;
using asdfcore::tree::emit_yaml;
using asdfcore::tree::kOmapTag;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
using asdfcore::tree::parse_yaml;
using asdfcore::tree::ScalarStyle;
using asdfcore::tree::YamlWriteOptions;

NodePtr parse(const std::string& text) { return parse_yaml(text).root; }

// Parse, write, parse again: the second tree must equal the first.
NodePtr round_trip(const NodePtr& tree, const YamlWriteOptions& options = {}) {
  const std::string text = emit_yaml(*tree, options);
  INFO(text);
  NodePtr back = parse(text);
  CHECK(deep_equal(*tree, *back));
  return back;
}

// The body of a written document: the lines between "--- " and the closing "...".
std::string body(const std::string& text) {
  const auto start = text.find("---");
  const auto end = text.rfind("\n...");
  return text.substr(start, end - start + 1);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The tree text of a corpus file: a .yaml file as it is, an .asdf file's tree through the
// container layer.
std::string tree_text(const fs::path& path) {
  if (path.extension() == ".yaml") return read_file(path);
  const auto container = asdfcore::format::Container::open(path.string());
  return std::string(container.tree_text());
}

std::vector<fs::path> corpus_trees() {
  std::vector<fs::path> paths;
  for (const char* folder : {"asdf-reference", "asdf-pyasdf"}) {
    const fs::path root = fitsasdf::test::corpus_dir() / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension();
      if (ext == ".yaml" || ext == ".asdf") paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool is_ndarray(const Node& node) {
  return node.is_mapping() && node.tag().find("/core/ndarray-") != std::string::npos;
}

// Copy `node` with every ndarray reduced to its tag: an X.yaml file holds the array data inline
// (`data: [...]`) where X.asdf points at a block (`source: 0`, `byteorder`), so the two trees
// agree everywhere except inside ndarrays. What the arrays hold is the ndarray layer's business.
NodePtr without_array_content(const NodePtr& node) {
  if (node->is_sequence()) {
    NodePtr out = Node::make_sequence();
    out->set_tag(node->tag());
    for (const auto& item : node->items()) out->push_back(without_array_content(item));
    return out;
  }
  if (node->is_mapping()) {
    NodePtr out = Node::make_mapping();
    out->set_tag(node->tag());
    if (is_ndarray(*node)) return out;
    for (const auto& [k, v] : node->entries()) {
      out->entries().emplace_back(without_array_content(k), without_array_content(v));
    }
    return out;
  }
  return node;
}

std::size_t count_ndarrays(const Node& node) {
  std::size_t n = is_ndarray(node) ? 1 : 0;
  if (node.is_sequence()) {
    for (const auto& item : node.items()) n += count_ndarrays(*item);
  } else if (node.is_mapping()) {
    for (const auto& [k, v] : node.entries()) n += count_ndarrays(*k) + count_ndarrays(*v);
  }
  return n;
}

}  // namespace

TEST_CASE("nested mappings and sequences parse with their styles", "[yaml]") {
  const NodePtr root = parse(
      "a:\n"
      "  b: [1, 2.5, three]\n"
      "  c: {d: true, e: null}\n"
      "list:\n"
      "- x\n"
      "- - nested\n"
      "  - 'quoted'\n"
      "- {}\n"
      "- []\n");
  REQUIRE(root->is_mapping());
  CHECK(root->collection_style == CollectionStyle::kBlock);
  const NodePtr b = root->get("a")->get("b");
  REQUIRE(b->is_sequence());
  CHECK(b->collection_style == CollectionStyle::kFlow);
  CHECK(b->items()[0]->as_int() == 1);
  CHECK(b->items()[1]->as_double() == 2.5);
  CHECK(b->items()[2]->as_string() == "three");
  CHECK(b->items()[2]->scalar_style == ScalarStyle::kPlain);
  CHECK(root->get("a")->get("c")->get("d")->as_bool());
  CHECK(root->get("a")->get("c")->get("e")->is_null());
  const NodePtr list = root->get("list");
  REQUIRE(list->size() == 4);
  CHECK(list->items()[1]->items()[1]->as_string() == "quoted");
  CHECK(list->items()[1]->items()[1]->scalar_style == ScalarStyle::kSingleQuoted);
  CHECK(list->items()[2]->is_mapping());
  CHECK(list->items()[3]->is_sequence());
  round_trip(root);
}

TEST_CASE("an empty text or document reads as null", "[yaml]") {
  CHECK(parse("")->is_null());
  CHECK(parse("# only a comment\n")->is_null());
  CHECK(parse("--- \n...\n")->is_null());
}

TEST_CASE("%TAG handles resolve to full tag URIs and are reported", "[yaml]") {
  const auto doc = parse_yaml(
      "%YAML 1.1\n"
      "%TAG ! tag:stsci.edu:asdf/\n"
      "%TAG !ex! tag:example.org:\n"
      "--- !core/asdf-1.1.0\n"
      "data: !core/ndarray-1.0.0 {source: 0, shape: [8]}\n"
      "thing: !ex!thing-1.0 7\n"
      "...\n");
  REQUIRE(doc.tag_handles.size() == 2);
  CHECK(doc.tag_handles[0] == std::pair<std::string, std::string>{"!", "tag:stsci.edu:asdf/"});
  CHECK(doc.tag_handles[1] == std::pair<std::string, std::string>{"!ex!", "tag:example.org:"});
  CHECK(doc.root->tag() == "tag:stsci.edu:asdf/core/asdf-1.1.0");
  CHECK(doc.root->get("data")->tag() == "tag:stsci.edu:asdf/core/ndarray-1.0.0");
  // A scalar with an unknown tag is the string of its text, keeping the tag (as python asdf).
  const NodePtr thing = doc.root->get("thing");
  CHECK(thing->kind() == NodeKind::kString);
  CHECK(thing->as_string() == "7");
  CHECK(thing->tag() == "tag:example.org:thing-1.0");

  const std::string text = emit_yaml(*doc.root);
  CHECK(text.find("--- !core/asdf-1.1.0\n") != std::string::npos);
  CHECK(text.find("data: !core/ndarray-1.0.0 {source: 0, shape: [8]}") != std::string::npos);
  CHECK(text.find("!<tag:example.org:thing-1.0> 7") != std::string::npos);
  round_trip(doc.root);

  YamlWriteOptions options;
  options.tag_handles.emplace_back("!ex!", "tag:example.org:");
  const std::string shortened = emit_yaml(*doc.root, options);
  CHECK(shortened.find("%TAG !ex! tag:example.org:\n") != std::string::npos);
  CHECK(shortened.find("thing: !ex!thing-1.0 7") != std::string::npos);
  round_trip(doc.root, options);
}

TEST_CASE("verbatim tags are kept on scalars and collections", "[yaml]") {
  const NodePtr root = parse(
      "a: !<tag:example.org:unit-1.0> m\n"
      "b: !<tag:example.org:list-1.0> [1, 2]\n"
      "c: !local {x: 1}\n");
  CHECK(root->get("a")->tag() == "tag:example.org:unit-1.0");
  CHECK(root->get("a")->as_string() == "m");
  CHECK(root->get("b")->tag() == "tag:example.org:list-1.0");
  CHECK(root->get("b")->items()[1]->as_int() == 2);
  CHECK(root->get("c")->tag() == "!local");
  round_trip(root);
}

TEST_CASE("standard tags decide the kind and are not kept", "[yaml]") {
  const NodePtr root = parse(
      "str: !!str 12\n"
      "int: !!int \"0x1F\"\n"
      "signed: !!int \"+12\"\n"
      "negative: !!int \"-12\"\n"
      "float: !!float \"1e3\"\n"
      "bool: !!bool \"Yes\"\n"
      "'null': !!null \"anything\"\n"
      "ts: !!timestamp \"2001-1-1\"\n"
      "map: !!map {a: 1}\n"
      "seq: !!seq [1]\n"
      "nonspecific: ! 12\n"
      "quoted: '12'\n");
  CHECK(root->get("str")->as_string() == "12");
  CHECK(root->get("str")->tag().empty());
  CHECK(root->get("int")->as_int() == 31);
  CHECK(root->get("signed")->as_int() == 12);
  CHECK(root->get("negative")->as_int() == -12);
  CHECK(root->get("float")->as_double() == 1000.0);
  CHECK(root->get("bool")->as_bool());
  CHECK(root->get("null")->is_null());
  CHECK(root->get("ts")->kind() == NodeKind::kTimestamp);
  CHECK(root->get("map")->is_mapping());
  CHECK(root->get("map")->tag().empty());
  CHECK(root->get("seq")->tag().empty());
  // The non-specific tag makes a scalar a string (YAML and pure-Python PyYAML; see yaml.h).
  CHECK(root->get("nonspecific")->as_string() == "12");
  CHECK(root->get("quoted")->as_string() == "12");
  const NodePtr back = round_trip(root);
  // "2001-1-1" is a timestamp only with the explicit tag, so it is written with it.
  CHECK(emit_yaml(*root).find("ts: !!timestamp 2001-1-1") != std::string::npos);
}

TEST_CASE("anchors and aliases become one shared node, written back as id001", "[yaml]") {
  const auto doc = parse_yaml(
      "a: &x {abc: 123}\n"
      "b: *x\n"
      "c: &s scalar\n"
      "d: *s\n"
      "e: [&y [1], *y, *y]\n");
  const NodePtr& root = doc.root;
  CHECK(root->get("a") == root->get("b"));
  CHECK(root->get("c") == root->get("d"));
  const auto& e = root->get("e")->items();
  CHECK(e[0] == e[1]);
  CHECK(e[1] == e[2]);

  const std::string text = emit_yaml(*root);
  CHECK(text.find("a: &id001 {abc: 123}\nb: *id001\n") != std::string::npos);
  CHECK(text.find("e: [&id002 [1], *id002, *id002]\n") != std::string::npos);  // Read style.
  CHECK(text.find("c: scalar\nd: scalar\n") != std::string::npos);  // Scalars are not anchored.
  const NodePtr back = round_trip(root);
  CHECK(back->get("a") == back->get("b"));
}

TEST_CASE("a tree built with a shared collection is written with an anchor", "[yaml]") {
  NodePtr shared = Node::make_mapping();
  shared->set("k", Node::make_int(1));
  NodePtr root = Node::make_mapping();
  root->set("first", shared);
  NodePtr list = Node::make_sequence();
  list->push_back(shared);
  root->set("second", list);
  const std::string text = emit_yaml(*root);
  CHECK(body(text) == "---\nfirst: &id001 {k: 1}\nsecond:\n- *id001\n");
}

namespace {

/// The error emit_yaml gives for the cyclic tree `root`; fails the test when it writes one.
Error cycle_error(const NodePtr& root) {
  try {
    (void)emit_yaml(*root);
  } catch (const Error& e) {
    return e;
  }
  FAIL("a cyclic tree was written");
  return Error(ErrorCode::kIo, "");
}

}  // namespace

TEST_CASE("a cyclic tree cannot be written", "[yaml]") {
  NodePtr root = Node::make_mapping();
  NodePtr inner = Node::make_sequence();
  root->set("inner", inner);
  inner->push_back(root);
  const Error e = cycle_error(root);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(e.context().tree_path == "/inner/0");
  inner->items().clear();  // Break the cycle so the nodes are freed.
}

TEST_CASE("a cycle below the root cannot be written either", "[yaml]") {
  // Only collections with more than one owner are tracked; a cycle always passes one.
  NodePtr root = Node::make_mapping();
  NodePtr a = Node::make_sequence();
  NodePtr b = Node::make_sequence();
  root->set("x", a);
  a->push_back(b);
  b->push_back(a);
  a.reset();  // the tree holds the only references now
  b.reset();
  const Error e = cycle_error(root);
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(e.context().tree_path == "/x/0/0");
  root->get("x")->items().front()->items().clear();  // Break the cycle so the nodes are freed.
}

TEST_CASE("!!omap reads as an ordered mapping tagged omap and writes back as !!omap", "[yaml]") {
  const NodePtr root = parse(
      "o: !!omap\n"
      "- z: 1\n"
      "- a: 2\n"
      "- m: [3]\n");
  const NodePtr o = root->get("o");
  REQUIRE(o->is_mapping());
  CHECK(o->tag() == kOmapTag);
  REQUIRE(o->size() == 3);
  CHECK(o->entries()[0].first->as_string() == "z");
  CHECK(o->entries()[1].first->as_string() == "a");
  CHECK(o->entries()[2].second->items()[0]->as_int() == 3);
  const std::string text = emit_yaml(*root);
  CHECK(body(text) == "---\no: !!omap\n- z: 1\n- a: 2\n- m: [3]\n");
  round_trip(root);
  // The flow form reads the same.
  CHECK(deep_equal(*o, *parse("!!omap [z: 1, a: 2, m: [3]]")));
}

TEST_CASE("!!omap pairs tagged !!omap themselves read as pairs, as PyYAML reads them", "[yaml]") {
  // python asdf 2.14 writes an astropy table's OrderedDict `meta` this way.
  const NodePtr root = parse("meta: !!omap\n- !!omap\n  survey: test\n- band: r\n");
  const NodePtr meta = root->get("meta");
  REQUIRE(meta->is_mapping());
  CHECK(meta->tag() == kOmapTag);
  REQUIRE(meta->size() == 2);
  CHECK(meta->entries()[0].first->as_string() == "survey");
  CHECK(meta->entries()[0].second->as_string() == "test");
  CHECK(meta->entries()[1].first->as_string() == "band");
  // Elsewhere a mapping cannot be an !!omap (PyYAML: "expected a sequence").
  CHECK_THROWS_AS(parse("meta: !!omap\n  survey: test\n"), asdfcore::Error);
}

TEST_CASE("!!binary reads as bytes and writes back as base64", "[yaml]") {
  const NodePtr root = parse("b: !!binary aGVsbG8=\nmulti: !!binary |\n  aGVs\n  bG8=\n");
  REQUIRE(root->get("b")->kind() == NodeKind::kBinary);
  const std::vector<std::uint8_t> hello{'h', 'e', 'l', 'l', 'o'};
  CHECK(root->get("b")->as_binary() == hello);
  CHECK(root->get("multi")->as_binary() == hello);
  CHECK(emit_yaml(*root).find("b: !!binary |\n  aGVsbG8=\n") != std::string::npos);
  round_trip(root);

  std::vector<std::uint8_t> all(300);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i);
  NodePtr seq = Node::make_sequence();
  seq->push_back(Node::make_binary(all));
  seq->push_back(Node::make_binary({}));
  round_trip(seq);
}

TEST_CASE("mapping keys may be of any kind", "[yaml]") {
  const NodePtr root = parse("{1: int, true: bool, null: none, 1.5: float, [1, 2]: seq, x: str}");
  const auto& entries = root->entries();
  REQUIRE(entries.size() == 6);
  CHECK(entries[0].first->as_int() == 1);
  CHECK(entries[1].first->as_bool());
  CHECK(entries[2].first->is_null());
  CHECK(entries[3].first->as_double() == 1.5);
  CHECK(entries[4].first->is_sequence());
  CHECK(entries[5].first->as_string() == "x");
  round_trip(root);
}

TEST_CASE("a duplicate key keeps its first place and its last value", "[yaml]") {
  const NodePtr root = parse("{b: 1, a: 2, b: 3}");
  REQUIRE(root->size() == 2);
  CHECK(root->entries()[0].first->as_string() == "b");
  CHECK(root->entries()[0].second->as_int() == 3);
  CHECK(root->entries()[1].first->as_string() == "a");
}

TEST_CASE("<< merge keys merge mappings as PyYAML does", "[yaml]") {
  // Results from PyYAML 6.0 safe_load.
  const NodePtr root = parse(
      "a: &a {x: 1, y: 2}\n"
      "b: {<<: *a, y: 3, z: 4}\n"
      "c: {<<: [{x: 1, y: 0}, {y: 2, q: 5}], z: 4}\n"
      "d: {'<<': quoted}\n"
      "e: <<\n"
      "f: {=: 1}\n");
  const NodePtr b = root->get("b");
  REQUIRE(b->size() == 3);  // {'x': 1, 'y': 3, 'z': 4}
  CHECK(b->entries()[0].first->as_string() == "x");
  CHECK(b->get("x")->as_int() == 1);
  CHECK(b->get("y")->as_int() == 3);
  CHECK(b->get("z")->as_int() == 4);
  const NodePtr c = root->get("c");
  REQUIRE(c->size() == 4);  // {'y': 0, 'q': 5, 'x': 1, 'z': 4}
  CHECK(c->entries()[0].first->as_string() == "y");
  CHECK(c->entries()[0].second->as_int() == 0);
  CHECK(c->entries()[1].first->as_string() == "q");
  CHECK(c->entries()[2].first->as_string() == "x");
  CHECK(c->entries()[3].first->as_string() == "z");
  CHECK(root->get("d")->get("<<")->as_string() == "quoted");  // A quoted key is no merge.
  CHECK(root->get("e")->tag() == "tag:yaml.org,2002:merge");  // As python asdf's loader.
  CHECK(root->get("f")->get("=")->as_int() == 1);             // A `=` key is the string "=".
  CHECK_THROWS_AS(parse("{<<: 1}"), Error);
  CHECK_THROWS_AS(parse("{<<: [1]}"), Error);
}

TEST_CASE("unicode reads, BMP text is written as is, beyond-BMP escaped", "[yaml]") {
  const std::string text =
      "bmp: \"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\"\n"
      "spp: \"\xf0\x9f\x98\x80\"\n"
      "\xc3\xa9t\xc3\xa9: escaped \\u00e9\n";
  const NodePtr root = parse(text);
  CHECK(root->get("bmp")->as_string() == "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
  CHECK(root->get("spp")->as_string() == "\xf0\x9f\x98\x80");
  CHECK(root->get("\xc3\xa9t\xc3\xa9")->as_string() == "escaped \\u00e9");
  CHECK(root->get("bmp")->scalar_style == ScalarStyle::kDoubleQuoted);
  round_trip(root);
  // Written afresh, BMP characters stay as they are; libyaml (and so PyYAML's CSafeDumper, see
  // the corpus file unicode_spp.yaml) counts characters beyond U+FFFF as non-printable and
  // escapes them in double quotes.
  NodePtr fresh = Node::make_mapping();
  fresh->set("bmp", Node::make_string("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"));
  fresh->set("spp", Node::make_string("\xf0\x9f\x98\x80"));
  const std::string written = emit_yaml(*fresh);
  CHECK(body(written) == "--- {bmp: caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac, spp: \"\\U0001F600\"}\n");
  round_trip(fresh);
  NodePtr odd = Node::make_sequence();
  odd->push_back(Node::make_string(std::string("nul\0byte", 8)));
  odd->push_back(Node::make_string("line1\nline2\n"));
  odd->push_back(Node::make_string(" leading and trailing "));
  odd->push_back(Node::make_string("# not a comment"));
  odd->push_back(Node::make_string("key: value"));
  odd->push_back(Node::make_string("\xe2\x80\xa8 line separator"));
  round_trip(odd);
}

TEST_CASE("CRLF line ends read like LF", "[yaml]") {
  const NodePtr crlf = parse("a: 1\r\nb:\r\n- x\r\n- 'two\r\n  lines'\r\nc: |\r\n  text\r\n");
  const NodePtr lf = parse("a: 1\nb:\n- x\n- 'two\n  lines'\nc: |\n  text\n");
  CHECK(deep_equal(*crlf, *lf));
  CHECK(crlf->get("b")->items()[1]->as_string() == "two lines");
  CHECK(crlf->get("c")->as_string() == "text\n");
}

TEST_CASE("emit_yaml writes the document the way python asdf does", "[yaml]") {
  NodePtr root = Node::make_mapping();
  root->set_tag("tag:stsci.edu:asdf/core/asdf-1.1.0");
  NodePtr lib = Node::make_mapping();
  lib->set_tag("tag:stsci.edu:asdf/core/software-1.0.0");
  lib->set("name", Node::make_string("fitsasdf"));
  lib->set("version", Node::make_string("0.1.0"));
  root->set("asdf_library", lib);
  NodePtr arr = Node::make_mapping();
  arr->set_tag("tag:stsci.edu:asdf/core/ndarray-1.0.0");
  arr->set("source", Node::make_int(0));
  arr->set("datatype", Node::make_string("float64"));
  arr->set("byteorder", Node::make_string("little"));
  NodePtr shape = Node::make_sequence();
  shape->push_back(Node::make_int(2));
  shape->push_back(Node::make_int(3));
  arr->set("shape", shape);
  NodePtr meta = Node::make_mapping();
  meta->set("data", arr);
  meta->set("scale", Node::make_float(1e-5));
  meta->set("big", Node::make_integer_text("123456789012345678901234567890"));
  meta->set("flag", Node::make_bool(false));
  meta->set("nothing", Node::make_null());
  meta->set("when", Node::make_timestamp("2001-12-14 21:59:43.10 -5"));
  meta->set("inf", Node::make_float(-std::numeric_limits<double>::infinity()));
  root->set("meta", meta);
  const std::string expected =
      "%YAML 1.1\n"
      "%TAG ! tag:stsci.edu:asdf/\n"
      "--- !core/asdf-1.1.0\n"
      "asdf_library: !core/software-1.0.0 {name: fitsasdf, version: 0.1.0}\n"
      "meta:\n"
      "  data: !core/ndarray-1.0.0\n"
      "    source: 0\n"
      "    datatype: float64\n"
      "    byteorder: little\n"
      "    shape: [2, 3]\n"
      "  scale: 1.0e-05\n"
      "  big: 123456789012345678901234567890\n"
      "  flag: false\n"
      "  nothing: null\n"
      "  when: 2001-12-14 21:59:43.10 -5\n"
      "  inf: -.inf\n"
      "...\n";
  CHECK(emit_yaml(*root) == expected);
  round_trip(root);
}

TEST_CASE("collection styles: flow for scalars only, block otherwise, explicit wins", "[yaml]") {
  NodePtr root = Node::make_mapping();
  NodePtr flat = Node::make_sequence();
  flat->push_back(Node::make_int(1));
  flat->push_back(Node::make_string("a"));
  root->set("flat", flat);
  NodePtr forced_block = Node::make_sequence();
  forced_block->push_back(Node::make_int(1));
  forced_block->collection_style = CollectionStyle::kBlock;
  root->set("block", forced_block);
  NodePtr forced_flow = Node::make_mapping();
  forced_flow->set("inner", Node::make_sequence());
  forced_flow->collection_style = CollectionStyle::kFlow;
  root->set("flow", forced_flow);
  NodePtr styled = Node::make_sequence();
  NodePtr literal = Node::make_string("text\n");
  literal->scalar_style = ScalarStyle::kLiteral;
  styled->push_back(literal);
  root->set("styled", styled);
  CHECK(body(emit_yaml(*root)) ==
        "---\n"
        "flat: [1, a]\n"
        "block:\n"
        "- 1\n"
        "flow: {inner: []}\n"
        "styled:\n"
        "- |\n"
        "  text\n");
  round_trip(root);
}

TEST_CASE("styles read from a file are written back", "[yaml]") {
  const std::string text =
      "%YAML 1.1\n"
      "---\n"
      "a: 'single'\n"
      "b: \"double\"\n"
      "c: |\n"
      "  literal\n"
      "d:\n"
      "  e: 1\n"
      "f: [1, 2]\n"
      "g:\n"
      "- 1\n"
      "...\n";
  CHECK(emit_yaml(*parse(text), YamlWriteOptions{.tag_handles = {}}) == text);
}

TEST_CASE("timestamps are written plain, and invalid ones are refused", "[yaml]") {
  NodePtr seq = Node::make_sequence();
  seq->push_back(Node::make_timestamp("2001-12-14t21:59:43.10-05:00"));
  seq->push_back(Node::make_timestamp("2001-12-14"));
  // In a flow collection a time cannot be plain (it holds ':'), so it is quoted and tagged,
  // as PyYAML's SafeDumper writes it.
  CHECK(body(emit_yaml(*seq)) == "--- [!!timestamp '2001-12-14t21:59:43.10-05:00', 2001-12-14]\n");
  round_trip(seq);
  seq->collection_style = CollectionStyle::kBlock;
  CHECK(body(emit_yaml(*seq)) == "---\n- 2001-12-14t21:59:43.10-05:00\n- 2001-12-14\n");
  round_trip(seq);
  NodePtr bad = Node::make_sequence();
  bad->push_back(Node::make_timestamp("yesterday"));
  CHECK_THROWS_AS(emit_yaml(*bad), Error);
}

TEST_CASE("tag handles and width come from the options", "[yaml]") {
  NodePtr root = Node::make_sequence();
  for (int i = 0; i < 30; ++i) root->push_back(Node::make_int(1000 + i));
  YamlWriteOptions narrow;
  narrow.width = 40;
  narrow.tag_handles.clear();
  const std::string text = emit_yaml(*root, narrow);
  CHECK(text.find("%TAG") == std::string::npos);
  // libyaml breaks a line at the first chance after passing the width.
  std::istringstream lines(text);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) CHECK(line.size() <= 40 + 6);
  CHECK(count > 6);
  round_trip(root, narrow);
}

TEST_CASE("every corpus tree parses, and writes back to an equal tree", "[yaml]") {
  const auto paths = corpus_trees();
  REQUIRE(paths.size() > 50);
  for (const auto& path : paths) {
    INFO(path.string());
    const std::string text = tree_text(path);
    if (text.empty()) continue;  // An .asdf file holding only blocks (exploded0000.asdf).
    asdfcore::tree::YamlDocument doc;
    REQUIRE_NOTHROW(doc = parse_yaml(text, path.string()));
    REQUIRE(doc.root->is_mapping());
    CHECK(doc.root->tag().starts_with("tag:stsci.edu:asdf/core/asdf-"));
    const std::string written = emit_yaml(*doc.root);
    INFO(written);
    const NodePtr back = parse_yaml(written).root;
    CHECK(deep_equal(*doc.root, *back));
  }
}

TEST_CASE("each X.asdf tree equals its X.yaml companion outside array contents", "[yaml]") {
  const fs::path root = fitsasdf::test::corpus_dir() / "asdf-reference";
  std::size_t pairs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".yaml") continue;
    fs::path asdf = entry.path();
    asdf.replace_extension(".asdf");
    if (!fs::exists(asdf)) continue;
    INFO(entry.path().string());
    const NodePtr from_yaml = parse_yaml(tree_text(entry.path())).root;
    const NodePtr from_asdf = parse_yaml(tree_text(asdf)).root;
    CHECK(count_ndarrays(*from_yaml) == count_ndarrays(*from_asdf));
    CHECK(deep_equal(*without_array_content(from_yaml), *without_array_content(from_asdf)));
    ++pairs;
  }
  CHECK(pairs >= 7 * 14);
}

TEST_CASE("PyYAML with python asdf's loader reads our corpus trees as the originals",
          "[yaml][interop]") {
  // For each corpus .yaml file, write its tree with emit_yaml; python asdf's AsdfLoader must
  // read both texts to the same tagged tree (compared through a canonical JSON form).
  fitsasdf::test::TempDir dir;
  std::vector<std::string> args = {fitsasdf::test::reference_python(), "-c", R"(
import json, math, sys, yaml
from asdf import tagged, yamlutil
def canon(v):
    if isinstance(v, tagged.Tagged):
        return {"$tag": v._tag, "v": canon(v.data if hasattr(v, "data") else str(v))}
    if isinstance(v, dict):
        return {"$map": sorted([json.dumps(canon(k)), canon(x)] for k, x in v.items())}
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if isinstance(v, float):
        return {"$float": repr(v)}
    if isinstance(v, bytes):
        return {"$bytes": v.hex()}
    if isinstance(v, (bool, int, str)) or v is None:
        return v
    return {"$repr": repr(v)}
out = []
for a, b in zip(sys.argv[1::2], sys.argv[2::2]):
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        ta = canon(yaml.load(fa, Loader=yamlutil.AsdfLoader))
        tb = canon(yaml.load(fb, Loader=yamlutil.AsdfLoader))
    out.append([a, ta == tb])
print(json.dumps(out))
)"};
  std::size_t n = 0;
  for (const auto& path : corpus_trees()) {
    if (path.extension() != ".yaml") continue;
    const fs::path ours = dir / ("ours" + std::to_string(n++) + ".yaml");
    std::ofstream(ours, std::ios::binary) << emit_yaml(*parse_yaml(tree_text(path)).root);
    args.push_back(path.string());
    args.push_back(ours.string());
  }
  const auto result = fitsasdf::test::run(args);
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto json = nlohmann::json::parse(result.out);
  REQUIRE(json.size() == n);
  for (const auto& item : json) {
    INFO(item[0].get<std::string>());
    CHECK(item[1].get<bool>());
  }
}

TEST_CASE("collections tagged alike share one copy of the tag's text", "[yaml]") {
  const NodePtr root = parse(
      "- !<tag:example.org:thing-1.0.0> {a: 1}\n"
      "- !<tag:example.org:thing-1.0.0> [1]\n"
      "- !<tag:example.org:other-1.0.0> {b: 2}\n");
  const auto& items = root->items();
  CHECK(items[0]->tag() == "tag:example.org:thing-1.0.0");
  CHECK(&items[0]->tag() == &items[1]->tag());
  CHECK(items[2]->tag() == "tag:example.org:other-1.0.0");
  round_trip(root);
}
