#pragma once
/// \file
/// Tag converters: what a tagged node of the tree means. Converters are keyed by tag name and
/// hold the versions they know; a registry, built explicitly, finds the one for a tag.

#include <any>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/extension/tag.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::ndarray {
class BlockProvider;
}

namespace asdfcore::extension {

/// What a converter may need besides the node: the blocks of the file and the node's place.
struct ReadContext {
  const ndarray::BlockProvider* blocks = nullptr;  ///< The file's blocks; nullptr without a file.
  std::string path;  ///< JSON Pointer of the node.
};

/// Reads the nodes of one tag family into C++ values.
class Converter {
 public:
  virtual ~Converter() = default;
  /// Return the tag name without version ("tag:stsci.edu:asdf/core/complex").
  virtual std::string_view tag_name() const noexcept = 0;
  /// Return the versions this converter reads, oldest first.
  virtual std::span<const std::string_view> versions() const noexcept = 0;
  /// Build the C++ value of `node` (e.g. std::complex<double> for core/complex, NDArray for
  /// core/ndarray). Throws `Error` (malformed) when the node does not have the tag's shape.
  virtual std::any read(const tree::Node& node, const ReadContext& context) const = 0;
};

/// The result of looking a tag up.
struct ConverterMatch {
  const Converter* converter = nullptr;  ///< nullptr: the tag is unknown (kept verbatim).
  bool exact = false;         ///< The tag's version is one the converter lists.
  std::string used_version;   ///< The version whose rules apply (the nearest known one).
};

/// Converters by tag name; the first one added for a name wins.
class ConverterRegistry {
 public:
  /// Return a registry with the core converters: core/asdf, software, history_entry,
  /// extension_metadata, complex, integer, ndarray, externalarray, constant, table, column.
  static ConverterRegistry with_builtins();
  /// Add `converter`.
  void add(std::shared_ptr<const Converter> converter);
  /// Find the converter for `tag`. A known name with an unknown version matches the nearest
  /// known version (`exact == false`): the caller reports it as a warning.
  ConverterMatch find(std::string_view tag) const;

 private:
  std::vector<std::shared_ptr<const Converter>> converters_;
};

/// Walk `root` and return one warning per tagged node whose tag version is not known to
/// `registry` ("tag at /a/b: not a known version; read as X-1.1.0"). Unknown tags are
/// kept as they are and not reported. Throws `Error` (malformed) for a known tag written
/// without a version ("!core/ndarray").
std::vector<std::string> check_tag_versions(const tree::Node& root,
                                            const ConverterRegistry& registry);

}  // namespace asdfcore::extension
