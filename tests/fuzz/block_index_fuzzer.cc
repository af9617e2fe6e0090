// Fuzz target: the block index parser (and the block header parser, which reads the same kind
// of untrusted tail of a file). The first byte chooses where the search starts; a parsed index
// must come back unchanged through encode_block_index.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> file(data + 1, size - 1);
  const std::uint64_t from = file.size() * data[0] / 255;
  try {
    const auto index = asdfcore::format::find_block_index(file, from);
    if (index && index->parsed) {
      const std::string text = asdfcore::format::encode_block_index(index->entries);
      const auto again = asdfcore::format::find_block_index(
          std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), 0);
      if (!again || !again->parsed || again->entries != index->entries || again->offset != 0) {
        __builtin_trap();  // the writer's index does not read back as the same offsets
      }
    }
  } catch (const asdfcore::Error&) {
  }
  try {
    (void)asdfcore::format::parse_block_header(file, from);
  } catch (const asdfcore::Error&) {
  }
  return 0;
}
