// $ref failures: missing targets, cycles, paths outside the allowed folder, network URIs.
#include <fstream>

#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using namespace asdfcore;
using namespace asdfcore::tree;
using fitsasdf::test::TempDir;
namespace fs = std::filesystem;

namespace {

NodePtr yaml(const std::string& body) {
  return parse_yaml("%YAML 1.1\n---\n" + body + "...\n").root;
}

DocumentLoader loader() {
  return [](const fs::path& path) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_yaml(text, path.string()).root;
  };
}

Error error_of(const NodePtr& root, const ReferencePolicy& policy = {}) {
  try {
    resolve_references(root, "t.asdf", policy, loader());
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error");
  return Error(ErrorCode::kIo, "");
}

}  // namespace

TEST_CASE("a $ref to a missing pointer names the reference's place", "[reference][error]") {
  const Error e = error_of(yaml("a: {b: {$ref: '#/nowhere/0'}}\n"));
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.context().tree_path == "/a/b");
  CHECK(e.message().find("#/nowhere/0") != std::string::npos);
}

TEST_CASE("a reference error names its place through sequences and escaped keys",
          "[reference][error]") {
  const Error e = error_of(yaml("list: [0, {'we/ird~': {x: {$ref: '#/list/1'}}}]\n"));
  CHECK(e.message().find("cycle") != std::string::npos);
  CHECK(e.context().tree_path == "/list/1/we~1ird~0/x");
  CHECK(error_of(yaml("{$ref: '#/missing'}\n")).context().tree_path == "/");
}

TEST_CASE("reference cycles are detected", "[reference][error]") {
  CHECK(error_of(yaml("a: {$ref: '#/b'}\nb: {$ref: '#/a'}\n")).code() == ErrorCode::kMalformed);
  CHECK(error_of(yaml("a: {$ref: '#/a'}\n")).message().find("cycle") != std::string::npos);
  // A reference to its own ancestor would make the tree infinite.
  CHECK(error_of(yaml("a: {inner: {$ref: '#/a'}}\n")).message().find("cycle") != std::string::npos);
}

TEST_CASE("external references may not leave the input's folder", "[reference][error]") {
  TempDir dir;
  fs::create_directory(dir / "in");
  std::ofstream(dir / "secret.yaml") << "%YAML 1.1\n---\nx: 1\n...\n";
  ReferencePolicy policy;
  policy.base_dir = dir / "in";
  const Error e = error_of(yaml("a: {$ref: '../secret.yaml#/x'}\n"), policy);
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK(e.message().find("leaves the folder") != std::string::npos);
  CHECK(error_of(yaml("a: {$ref: '/etc/passwd'}\n"), policy).code() == ErrorCode::kMalformed);
  // Allowed explicitly: it reads.
  policy.allowed_dirs.push_back(dir.path());
  const NodePtr out =
      resolve_references(yaml("a: {$ref: '../secret.yaml#/x'}\n"), "t.asdf", policy, loader());
  CHECK(out->get("a")->as_int() == 1);
}

TEST_CASE("network references are refused", "[reference][error]") {
  for (const char* uri : {"http://example.com/x.asdf#/a", "https://example.com/x", "ftp://h/x",
                          "file://otherhost/x.asdf"}) {
    const Error e = error_of(yaml(std::string("a: {$ref: '") + uri + "'}\n"));
    CHECK(e.code() == ErrorCode::kMalformed);
  }
}
