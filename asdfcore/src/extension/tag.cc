#include "asdfcore/extension/tag.h"

#include <charconv>

namespace asdfcore::extension {

TagParts split_tag(std::string_view tag) {
  const std::size_t dash = tag.rfind('-');
  if (dash != std::string_view::npos && dash + 1 < tag.size()) {
    const std::string_view version = tag.substr(dash + 1);
    if (Version::parse(version)) return {std::string(tag.substr(0, dash)), std::string(version)};
  }
  return {std::string(tag), ""};
}

std::optional<Version> Version::parse(std::string_view text) {
  Version v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  std::size_t i = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  if (p == end) return std::nullopt;
  while (p != end) {
    if (i == 3) return std::nullopt;
    const auto [next, ec] = std::from_chars(p, end, *parts[i]);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
    ++i;
    if (p != end) {
      if (*p != '.') return std::nullopt;
      ++p;
      if (p == end) return std::nullopt;
    }
  }
  return v;
}

}  // namespace asdfcore::extension
