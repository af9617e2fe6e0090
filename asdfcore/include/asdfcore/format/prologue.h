#pragma once
/// \file
/// Everything before the first block: the `#ASDF` header line, comment lines (among them
/// `#ASDF_STANDARD`), and the position of the YAML tree.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace asdfcore::format {

/// The parsed text part at the start of an ASDF file. Offsets are bytes from the file start.
struct Prologue {
  std::string file_format_version;  ///< From `#ASDF x.y.z`.
  std::string asdf_standard;        ///< From `#ASDF_STANDARD x.y.z`; "1.0.0" when absent.
  bool asdf_standard_declared = false;  ///< True when the `#ASDF_STANDARD` line is present.
  std::vector<std::string> comments;    ///< Every `#` line after the header, without the `#`.
  std::optional<std::uint64_t> tree_offset;  ///< Start of the tree (`%YAML`), if any.
  std::uint64_t tree_size = 0;  ///< Bytes of the tree, through the `...` line and its newline.
  std::uint64_t end = 0;        ///< First byte after the tree (or the comments); blocks follow.
};

/// Return the offset just past the end of a YAML document in `text`, searched from `from`: a
/// line holding exactly `...` (LF or CRLF), or `...` at the end of `text`; nullopt when none.
std::optional<std::size_t> find_tree_end(std::string_view text, std::size_t from);

/// Parse the prologue of `file`; `name` is used in errors. Throws `Error`: not-asdf (no `#ASDF`
/// header; an HDF5 file, named as the seismic format), unsupported-version (a major version
/// other than 1, or a legacy draft layout), malformed (a tree with no `...` end marker, garbage
/// after the header).
Prologue parse_prologue(std::span<const std::uint8_t> file, const std::string& name);

}  // namespace asdfcore::format
