#include "asdfcore/format/prologue.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"

namespace asdfcore::format {
namespace {

constexpr std::string_view kAsdfMagic = "#ASDF";
constexpr std::string_view kStandardComment = "ASDF_STANDARD";
constexpr std::string_view kHdf5Signature = "\x89HDF\r\n\x1a\n";

std::string_view as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// Return the line starting at `at` without its line ending, and move `at` past the ending.
std::string_view next_line(std::string_view text, std::size_t& at) {
  const std::size_t nl = text.find('\n', at);
  const std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
  std::string_view line = text.substr(at, stop - at);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  at = nl == std::string_view::npos ? text.size() : nl + 1;
  return line;
}

bool is_hdf5(std::string_view text) {
  // An HDF5 superblock sits at byte 0, 512, 1024, 2048, ... (the user block may precede it).
  for (std::size_t at = 0; at + kHdf5Signature.size() <= text.size() && at <= (1u << 20);
       at = at == 0 ? 512 : at * 2) {
    if (text.substr(at, kHdf5Signature.size()) == kHdf5Signature) return true;
  }
  return false;
}

/// Parse "x.y.z" (three numbers, then optional lower-case letters, digits and dots, as in
/// "1.0.0a1") and return the major number, or nothing when it is not a version. A file cut
/// inside its header line ("#ASDF 1", "#ASDF 1.0") is no version, as python asdf finds.
std::optional<int> major_version(std::string_view version) {
  const char* const end = version.data() + version.size();
  int major = 0;
  const auto [ptr, ec] = std::from_chars(version.data(), end, major);
  if (ec != std::errc() || ptr == version.data()) return std::nullopt;
  const char* p = ptr;
  for (int part = 0; part < 2; ++part) {  // ".minor" and ".patch"
    if (p == end || *p != '.' || p + 1 == end || !(p[1] >= '0' && p[1] <= '9')) {
      return std::nullopt;
    }
    ++p;
    while (p != end && *p >= '0' && *p <= '9') ++p;
  }
  for (; p != end; ++p) {
    if (!(*p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z'))) return std::nullopt;
  }
  return major;
}

}  // namespace

std::optional<std::size_t> find_tree_end(std::string_view text, std::size_t from) {
  std::size_t at = from;
  while (true) {
    const std::size_t nl = text.find("\n...", at);
    if (nl == std::string_view::npos) return std::nullopt;
    const std::size_t after = nl + 4;
    if (after == text.size()) return after;
    if (text[after] == '\n') return after + 1;
    if (text[after] == '\r' && after + 1 < text.size() && text[after + 1] == '\n') return after + 2;
    at = nl + 1;
  }
}


Prologue parse_prologue(std::span<const std::uint8_t> file, const std::string& name) {
  const std::string_view text = as_text(file);
  const ErrorContext at_start{.file = name, .offset = 0};
  if (text.empty()) throw Error(ErrorCode::kNotAsdf, "the file is empty", at_start);
  if (is_hdf5(text)) {
    throw Error(ErrorCode::kNotAsdf,
                "this is an HDF5 file, most likely in the Adaptable Seismic Data Format (which "
                "shares the name ASDF); fitsasdf reads the Advanced Scientific Data Format only. "
                "Use pyasdf (seismic-data.org) for seismic ASDF files",
                at_start);
  }
  if (text.starts_with("SIMPLE  =")) {
    throw Error(ErrorCode::kNotAsdf,
                "this is a FITS file, not an ASDF file; convert it with `fitsasdf convert`",
                at_start);
  }
  if (text.starts_with("%ASDF ")) {
    throw Error(ErrorCode::kUnsupportedVersion,
                "this file uses the pre-1.0 draft layout (`%ASDF` header, \\211BLK blocks), "
                "which fitsasdf cannot read yet",
                at_start);
  }
  if (!text.starts_with(kAsdfMagic)) {
    throw Error(ErrorCode::kNotAsdf, "no `#ASDF` header line: this is not an ASDF file",
                at_start);
  }

  Prologue out;
  std::size_t at = 0;
  const std::string_view header = next_line(text, at);
  // The header is "#ASDF" and a version separated by blanks, and nothing else.
  std::string_view rest = header.substr(kAsdfMagic.size());
  const bool has_space = !rest.empty() && (rest.front() == ' ' || rest.front() == '\t');
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
  const auto major = major_version(rest);
  if (!has_space || !major || rest.find_first_of(" \t") != std::string_view::npos) {
    throw Error(ErrorCode::kNotAsdf,
                "the header line `" + std::string(header.substr(0, 40)) +
                    "` is not `#ASDF <version>`",
                at_start);
  }
  out.file_format_version = std::string(rest);
  if (*major != 1) {
    const std::string detail =
        *major == 0 ? "it is a pre-1.0 draft layout, which fitsasdf cannot read yet"
                    : "fitsasdf reads file format version 1.x";
    throw Error(ErrorCode::kUnsupportedVersion,
                "unsupported ASDF file format version " + out.file_format_version + ": " + detail,
                at_start);
  }

  // Comment lines, up to the tree or the first block.
  while (at < text.size() && text[at] == '#') {
    const std::string_view line = next_line(text, at).substr(1);
    if (line.starts_with(kStandardComment) &&
        (line.size() == kStandardComment.size() || line[kStandardComment.size()] == ' ')) {
      std::string_view version = line.substr(kStandardComment.size());
      while (!version.empty() && version.front() == ' ') version.remove_prefix(1);
      while (!version.empty() && version.back() == ' ') version.remove_suffix(1);
      out.asdf_standard = std::string(version);
      out.asdf_standard_declared = true;
    } else {
      out.comments.emplace_back(line);
    }
  }
  if (!out.asdf_standard_declared) out.asdf_standard = "1.0.0";

  const std::string_view body = text.substr(at);
  if (body.starts_with("%YAML") || body.starts_with("---")) {
    const auto end = find_tree_end(text, at);
    if (!end) {
      throw Error(ErrorCode::kMalformed,
                  "the YAML tree has no end marker (a line holding only `...`)",
                  ErrorContext{.file = name, .offset = at});
    }
    out.tree_offset = at;
    out.tree_size = *end - at;
    out.end = *end;
  } else if (body.empty() || starts_with_block_magic(file.subspan(at))) {
    out.end = at;
  } else {
    throw Error(ErrorCode::kMalformed,
                "garbage after the header: expected `%YAML`, a block, or the end of the file",
                ErrorContext{.file = name, .offset = at});
  }
  return out;
}

}  // namespace asdfcore::format
