// YAML reader cases found by fuzzing (tests/fuzz/); the reproducers are in
// tests/fuzz/regressions/.
#include <string_view>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"
#include "support/catch.h"

TEST_CASE("an empty view with no data pointer is an empty document", "[yaml][error]") {
  // libyaml asserts on a null input pointer; the reader must not hand it one.
  const auto doc = asdfcore::tree::parse_yaml(std::string_view());
  REQUIRE(doc.root);
  CHECK(doc.root->kind() == asdfcore::tree::NodeKind::kNull);
}
