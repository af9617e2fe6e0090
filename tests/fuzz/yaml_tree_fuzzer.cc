// Fuzz target: the YAML tree reader alone (tags, %TAG, anchors and aliases, merge keys, implicit
// scalar types, limits), then the writer and the schema validator (the installed schemas of
// every tag the tree names) on whatever the reader accepted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "asdfcore/error.h"
#include "asdfcore/schema/validator.h"
#include "asdfcore/tree/yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  asdfcore::tree::YamlReadOptions limits;
  limits.max_nodes = 1'000'000;
  limits.max_alias_expansion = 100'000;
  try {
    const asdfcore::tree::YamlDocument doc = asdfcore::tree::parse_yaml(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml", 0, limits);
    try {
      (void)asdfcore::tree::emit_yaml(*doc.root);
    } catch (const asdfcore::Error&) {
    }
    try {
      (void)asdfcore::schema::Validator::for_this_thread().validate_tree(*doc.root);
    } catch (const asdfcore::Error&) {
    }
  } catch (const asdfcore::Error&) {
  }
  return 0;
}
