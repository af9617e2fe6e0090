#include "asdfcore/format/block_index.h"

#include <yaml.h>

#include <charconv>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace asdfcore::format {
namespace {

/// Owns a libyaml parser and the event it last produced.
class EventReader {
 public:
  explicit EventReader(std::string_view text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      // libyaml asserts on a null input pointer, which an empty string_view may hold (an index
      // header on the file's last line, with nothing after it).
      const char* input = text.data() != nullptr ? text.data() : "";
      yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(input),
                                   text.size());
    }
  }
  ~EventReader() {
    if (has_event_) yaml_event_delete(&event_);
    if (ok_) yaml_parser_delete(&parser_);
  }
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  /// Advance to the next event; false on a YAML error.
  bool next() {
    if (has_event_) yaml_event_delete(&event_);
    has_event_ = ok_ && yaml_parser_parse(&parser_, &event_) != 0;
    return has_event_;
  }
  const yaml_event_t& event() const { return event_; }

 private:
  yaml_parser_t parser_{};
  yaml_event_t event_{};
  bool ok_ = false;
  bool has_event_ = false;
};

/// The index as asdf writers lay it out ("%YAML 1.1", "---", one "- N" line an offset, "...",
/// each line ending in "\n"), read without a YAML parser: a python-written file of 5,000 blocks
/// spent 4% of its opening in libyaml here. nullopt when the text is laid out any other way;
/// the caller then hands it to libyaml, which gives the same list for this layout.
std::optional<std::vector<std::uint64_t>> parse_plain_offsets(std::string_view yaml) {
  constexpr std::string_view kStart = "%YAML 1.1\n---\n";
  constexpr std::string_view kEnd = "...\n";
  if (!yaml.starts_with(kStart) || !yaml.ends_with(kEnd)) return std::nullopt;
  std::string_view lines = yaml.substr(kStart.size(), yaml.size() - kStart.size() - kEnd.size());
  std::vector<std::uint64_t> out;
  while (!lines.empty()) {
    const std::size_t newline = lines.find('\n');
    if (newline == std::string_view::npos || !lines.starts_with("- ")) return std::nullopt;
    const char* begin = lines.data() + 2;
    const char* end = lines.data() + newline;
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
    out.push_back(value);
    lines.remove_prefix(newline + 1);
  }
  return out;
}

/// Parse the YAML list of offsets; false when it is anything else.
bool parse_offsets(std::string_view yaml, std::vector<std::uint64_t>& out) {
  if (auto plain = parse_plain_offsets(yaml)) {
    out = std::move(*plain);
    return true;
  }
  EventReader reader(yaml);
  auto expect = [&reader](yaml_event_type_t type) {
    return reader.next() && reader.event().type == type;
  };
  if (!expect(YAML_STREAM_START_EVENT) || !expect(YAML_DOCUMENT_START_EVENT) ||
      !expect(YAML_SEQUENCE_START_EVENT)) {
    return false;
  }
  while (true) {
    if (!reader.next()) return false;
    const yaml_event_t& ev = reader.event();
    if (ev.type == YAML_SEQUENCE_END_EVENT) break;
    if (ev.type != YAML_SCALAR_EVENT || ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
      return false;
    }
    const char* begin = reinterpret_cast<const char*>(ev.data.scalar.value);
    const char* end = begin + ev.data.scalar.length;
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || begin == end) return false;
    out.push_back(value);
  }
  return expect(YAML_DOCUMENT_END_EVENT) && expect(YAML_STREAM_END_EVENT);
}

}  // namespace

std::optional<BlockIndex> find_block_index(std::span<const std::uint8_t> file,
                                           std::uint64_t search_from) {
  std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  if (search_from >= text.size()) return std::nullopt;
  const std::string_view header = kBlockIndexHeader;
  const std::size_t at = text.rfind(header);
  if (at == std::string_view::npos || at < search_from) return std::nullopt;
  // The header must stand on its own line.
  const std::size_t after = at + header.size();
  const bool own_line = after == text.size() || text[after] == '\n' ||
                        (text[after] == '\r' && after + 1 < text.size() && text[after + 1] == '\n');
  if (!own_line) return std::nullopt;

  BlockIndex index;
  index.offset = at;
  const std::size_t newline = text.find('\n', at);
  std::string_view yaml = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
  while (!yaml.empty() && yaml.back() == '\0') yaml.remove_suffix(1);
  index.parsed = parse_offsets(yaml, index.entries);
  if (!index.parsed) index.entries.clear();
  return index;
}

std::string encode_block_index(std::span<const std::uint64_t> offsets) {
  // An empty list is written in flow style: "---" alone would read back as null, not a list.
  std::string out = std::string(kBlockIndexHeader) + (offsets.empty() ? "\n%YAML 1.1\n--- []\n"
                                                                      : "\n%YAML 1.1\n---\n");
  for (std::uint64_t offset : offsets) out += "- " + std::to_string(offset) + "\n";
  out += "...\n";
  return out;
}

}  // namespace asdfcore::format
