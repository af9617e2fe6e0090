// Block index cases found by fuzzing (tests/fuzz/block_index_fuzzer.cc); the reproducers are in
// tests/fuzz/regressions/block_index/.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/format/block_index.h"
#include "support/catch.h"

namespace {

std::span<const std::uint8_t> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

TEST_CASE("an empty block index reads back as an empty list", "[block_index][error]") {
  // The writer used to write "---" with no items, which YAML reads as null: unparsable.
  const std::string text = asdfcore::format::encode_block_index(std::vector<std::uint64_t>{});
  const auto index = asdfcore::format::find_block_index(bytes_of(text), 0);
  REQUIRE(index);
  CHECK(index->parsed);
  CHECK(index->entries.empty());
  const auto written = asdfcore::format::find_block_index(
      bytes_of("#ASDF BLOCK INDEX\n%YAML 1.1\n--- []\n...\n"), 0);
  REQUIRE(written);
  CHECK(written->parsed);
}

TEST_CASE("an index header on the file's last line, with nothing after it, is unparsable",
          "[block_index][error]") {
  // The empty rest of the file reached libyaml as a null pointer, and libyaml aborted.
  const std::string text = std::string(" 981\n- 2689\n\0", 13) + "#ASDF BLOCK INDEX";
  const auto index = asdfcore::format::find_block_index(bytes_of(text), 0);
  REQUIRE(index);
  CHECK_FALSE(index->parsed);
  CHECK(index->offset == 13);
}

TEST_CASE("the block index reads the same whether asdf's own layout or any other YAML spells it",
          "[block_index]") {
  // asdf writers' layout is read without libyaml; every other spelling goes through libyaml.
  // Both must give the same list, and both must refuse the same broken entries.
  const auto read = [](const std::string& yaml) {
    return asdfcore::format::find_block_index(bytes_of("#ASDF BLOCK INDEX\n" + yaml), 0);
  };
  const std::vector<std::uint64_t> expected{461, 2689, 18446744073709551615ULL};
  for (const std::string yaml : {
           "%YAML 1.1\n---\n- 461\n- 2689\n- 18446744073709551615\n...\n",   // asdf's layout
           "%YAML 1.1\n---\n[461, 2689, 18446744073709551615]\n...\n",        // flow
           "%YAML 1.1\n---\n- 461  # first\n- 2689\n- 18446744073709551615\n...\n",
           "%YAML 1.1\r\n---\r\n- 461\r\n- 2689\r\n- 18446744073709551615\r\n...\r\n",
           "---\n- 461\n- 2689\n- 18446744073709551615\n",                     // no directive
           "%YAML 1.1\n---\n- 461\n- 2689\n- 18446744073709551615\n...\n\n",   // blank line after
       }) {
    CAPTURE(yaml);
    const auto index = read(yaml);
    REQUIRE(index);
    CHECK(index->parsed);
    CHECK(index->entries == expected);
  }
  for (const std::string yaml : {
           "%YAML 1.1\n---\n- 461\n- 2689x\n...\n",
           "%YAML 1.1\n---\n- 461\n- -2689\n...\n",
           "%YAML 1.1\n---\n- 461\n- 18446744073709551616\n...\n",  // over 64 bits
           "%YAML 1.1\n---\n- 461\n- \n...\n",
           "%YAML 1.1\n---\n- 461\n- '2689'\n...\n",                 // not a plain scalar
           "%YAML 1.1\n---\n- 461\n-2689\n...\n",
       }) {
    CAPTURE(yaml);
    const auto index = read(yaml);
    REQUIRE(index);
    CHECK_FALSE(index->parsed);
    CHECK(index->entries.empty());
  }
}
