// JSON Pointers and $ref resolution: same document, forward references, external files.
#include "asdfcore/tree/reference.h"

#include <fstream>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using namespace asdfcore::tree;
using fitsasdf::test::TempDir;
namespace fs = std::filesystem;

namespace {

NodePtr yaml(const std::string& text) { return parse_yaml(text).root; }

DocumentLoader file_loader() {
  return [](const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw Error(ErrorCode::kIo, "cannot open", ErrorContext{.file = path.string()});
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_yaml(text, path.string()).root;
  };
}

}  // namespace

TEST_CASE("JSON Pointer tokens are unescaped and percent-decoded", "[reference]") {
  CHECK(parse_json_pointer("").empty());
  CHECK(parse_json_pointer("#").empty());
  CHECK(parse_json_pointer("/a/b") == std::vector<std::string>{"a", "b"});
  CHECK(parse_json_pointer("#/a~1b/c~0d/0") == std::vector<std::string>{"a/b", "c~d", "0"});
  CHECK(parse_json_pointer("#/with%20space") == std::vector<std::string>{"with space"});
  CHECK(parse_json_pointer("/") == std::vector<std::string>{""});
  CHECK_THROWS_AS(parse_json_pointer("a/b"), Error);
}

TEST_CASE("find_by_pointer walks mappings and sequences", "[reference]") {
  const NodePtr root = yaml("%YAML 1.1\n---\na: [10, {b: 20}]\n...\n");
  const std::vector<std::string> path{"a", "1", "b"};
  REQUIRE(find_by_pointer(root, path));
  CHECK(find_by_pointer(root, path)->as_int() == 20);
  const std::vector<std::string> bad{"a", "7"};
  CHECK(find_by_pointer(root, bad) == nullptr);
  const std::vector<std::string> not_index{"a", "x"};
  CHECK(find_by_pointer(root, not_index) == nullptr);
}

TEST_CASE("references in the same document, forward and chained, resolve to shared nodes",
          "[reference]") {
  const NodePtr root = yaml(
      "%YAML 1.1\n---\n"
      "first: {$ref: '#/later'}\n"
      "chain: {$ref: '#/first'}\n"
      "later: {x: 1}\n"
      "...\n");
  const NodePtr out = resolve_references(root, "t.asdf", {}, file_loader());
  REQUIRE(out->get("first")->is_mapping());
  CHECK(out->get("first")->get("x")->as_int() == 1);
  CHECK(out->get("first") == out->get("later"));
  CHECK(out->get("chain") == out->get("later"));
  // The raw tree is left as it was.
  CHECK(is_reference(*root->get("first")));
}

TEST_CASE("resolving keeps aliases shared, tags and styles, and copies the containers",
          "[reference]") {
  const NodePtr root = yaml(
      "%YAML 1.1\n---\n"
      "a: &x !<tag:example.org:thing-1.0.0> {y: [1, 2]}\n"
      "b: *x\n"
      "c: {$ref: '#/a/y'}\n"
      "...\n");
  const NodePtr out = resolve_references(root, "t.asdf", {}, file_loader());
  CHECK(out->get("a") == out->get("b"));
  CHECK(out->get("a") != root->get("a"));  // a copy: changing it leaves the file's tree alone
  CHECK(out->get("a")->tag() == "tag:example.org:thing-1.0.0");
  CHECK(out->get("a")->collection_style == root->get("a")->collection_style);
  CHECK(out->get("c") == out->get("a")->get("y"));
  CHECK(out->get("a")->get("y")->items()[1]->as_int() == 2);
}

TEST_CASE("external references read another file in the same folder", "[reference]") {
  TempDir dir;
  std::ofstream(dir / "other.yaml") << "%YAML 1.1\n---\nvalues: [1, 2, 3]\nname: other\n...\n";
  const NodePtr root = yaml(
      "%YAML 1.1\n---\n"
      "v: {$ref: 'other.yaml#/values'}\n"
      "whole: {$ref: 'other.yaml'}\n"
      "uri: {$ref: 'file:" +
      (dir / "other.yaml").string() +
      "#/name'}\n"
      "...\n");
  ReferencePolicy policy;
  policy.base_dir = dir.path();
  const NodePtr out = resolve_references(root, (dir / "main.asdf").string(), policy, file_loader());
  CHECK(out->get("v")->items().size() == 3);
  CHECK(out->get("whole")->get("name")->as_string() == "other");
  CHECK(out->get("uri")->as_string() == "other");
}

TEST_CASE("has_references finds a reference at any depth, once past aliases", "[reference]") {
  CHECK_FALSE(has_references(yaml("%YAML 1.1\n---\na: [1, {b: 2}]\n...\n")));
  CHECK_FALSE(has_references(yaml("%YAML 1.1\n---\na: &x [{b: 2}]\nc: *x\nd: *x\n...\n")));
  CHECK_FALSE(has_references(yaml("%YAML 1.1\n---\n$ref: 12\n...\n")));  // not a string
  CHECK(has_references(yaml("%YAML 1.1\n---\n{$ref: '#/x'}\n...\n")));
  CHECK(has_references(yaml("%YAML 1.1\n---\na: [1, [{b: {$ref: 'o.asdf'}}]]\n...\n")));
  CHECK_FALSE(has_references(nullptr));
  // A tree built with a cycle ends too.
  NodePtr root = Node::make_mapping();
  NodePtr list = Node::make_sequence();
  root->set("list", list);
  list->push_back(root);
  CHECK_FALSE(has_references(root));
  list->items().clear();
}
