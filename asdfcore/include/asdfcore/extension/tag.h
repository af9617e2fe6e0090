#pragma once
/// \file
/// Tag URIs: "tag:stsci.edu:asdf/core/ndarray-1.0.0" = a name and a version.

#include <optional>
#include <string>
#include <string_view>

namespace asdfcore::extension {

/// A tag split at its last "-" followed by a version.
struct TagParts {
  std::string name;     ///< "tag:stsci.edu:asdf/core/ndarray"
  std::string version;  ///< "1.0.0"; empty when the tag carries no version
};

/// Split `tag` into name and version ("x-1.2.3" -> "x", "1.2.3").
TagParts split_tag(std::string_view tag);

/// A semantic version, compared numerically part by part.
struct Version {
  int major = 0;  ///< The first number.
  int minor = 0;  ///< The second number.
  int patch = 0;  ///< The third number.
  /// Parse "1.2.3" (missing parts are 0); nothing when it is not a version.
  static std::optional<Version> parse(std::string_view text);
  /// Compare major, then minor, then patch.
  auto operator<=>(const Version&) const = default;
};

}  // namespace asdfcore::extension
