#pragma once
// URI references as JSON Schema's `id` and `$ref` use them (RFC 3986 section 5.2).

#include <string>
#include <string_view>
#include <utility>

namespace asdfcore::schema::detail {

// Resolve `reference` against `base` (RFC 3986 5.2.2, with dot-segment removal). A reference
// with a scheme is returned as it is; an empty base returns the reference.
std::string resolve_uri(std::string_view base, std::string_view reference);

// Split "doc#fragment" into ("doc", "fragment"); the fragment is "" when there is none.
std::pair<std::string, std::string> split_fragment(std::string_view uri);

}  // namespace asdfcore::schema::detail
