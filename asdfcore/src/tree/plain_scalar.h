#pragma once
// Private to asdfcore: the question the YAML writer asks of every string it writes.
#include <string_view>

namespace asdfcore::tree {

/// True when PyYAML's SafeLoader reads the plain scalar `text` back as the untagged string
/// `text`: when `resolve_plain_scalar(text)` would give that string (no implicit type, merge
/// or value key matches), found without building it.
bool plain_scalar_is_string(std::string_view text);

}  // namespace asdfcore::tree
