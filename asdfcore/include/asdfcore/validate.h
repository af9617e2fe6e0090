#pragma once
/// \file
/// "Is this file sound?": one pass that checks an ASDF file's layout, every block (decoded,
/// checksum in either convention), every ndarray's bytes, every `$ref`, and every tagged node
/// of the tree against its schema, and reports every finding instead of stopping at the first.
/// `fitsasdf validate` is this function on the command line.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/schema/validator.h"

namespace asdfcore {

/// What a finding is about.
enum class FindingKind {
  kLayout,     ///< The block layout breaks the format's rules (a bad index, a stray byte run).
  kBlock,      ///< A block cannot be read or decoded.
  kChecksum,   ///< A block's MD5 matches its data in neither convention.
  kArray,      ///< An ndarray cannot be read (its bytes lie outside its block, a bad datatype).
  kReference,  ///< A `$ref` names nothing that can be reached.
  kSchema,     ///< A tagged node breaks its schema.
  kTree,       ///< The tree breaks a rule of YAML or of the standard that no schema states: a key
               ///< repeated in a mapping, an integer literal outside the signed 64-bit range
               ///< python asdf reads safely, a mapping key other than a string, integer or
               ///< boolean (Standard 1.6.0 and later). python asdf 2.14 only warns about these.
};

/// Return the lower-case name of `kind` ("schema", "checksum", ...).
std::string_view finding_kind_name(FindingKind kind) noexcept;

/// One thing wrong with a file.
struct FileFinding {
  FindingKind kind = FindingKind::kSchema;  ///< What the finding is about.
  std::string pointer;                 ///< JSON Pointer into the tree, when about a node.
  std::optional<std::size_t> block;    ///< Block number, when about a block.
  std::optional<std::uint64_t> offset; ///< Byte offset in the file, when known.
  std::string schema_uri;              ///< For schema findings: the schema document.
  std::string keyword;                 ///< For schema findings: the keyword's JSON Pointer in it.
  std::string message;                 ///< What is wrong.
  std::string value;                   ///< For schema findings: the offending value, shortened.
};

/// What to check.
struct ValidateOptions {
  bool schemas = true;     ///< Check tagged nodes against their schemas.
  bool blocks = true;      ///< Decode every block and check its checksum.
  bool arrays = true;      ///< Check that every ndarray's bytes are in range.
  bool references = true;  ///< Resolve every `$ref`.
  bool tree_rules = true;  ///< Check the rules no schema states (`FindingKind::kTree`).
  /// The validator to use (its compiled schemas are reused across files); nullptr uses this
  /// thread's validator over `schema::SchemaRegistry::installed()`.
  schema::Validator* validator = nullptr;
};

/// The verdict on one file.
struct FileValidation {
  std::string file;                         ///< The path it was opened with.
  std::string asdf_standard;                ///< The Standard version it declares.
  std::vector<FileFinding> findings;        ///< Everything wrong, in file then tree order.
  std::vector<std::string> notes;           ///< Advisory observations, not findings (a stale
                                            ///< block index, which readers must ignore).
  std::vector<std::string> unknown_tags;    ///< Tags with no schema (reported, not findings).
  std::vector<std::string> missing_schemas; ///< Schemas a tag maps to that are not installed.
  std::size_t blocks = 0;                   ///< Blocks checked.
  std::size_t arrays = 0;                   ///< ndarrays checked.
  std::size_t tagged_nodes = 0;             ///< Tagged nodes checked against a schema.
  /// True when nothing was found.
  bool sound() const noexcept { return findings.empty(); }
};

/// Check `file` as `options` says. Damage is reported as findings; only what stops the check
/// itself (an I/O error while reading) throws `Error`.
FileValidation validate(const AsdfFile& file, const ValidateOptions& options = {});

}  // namespace asdfcore
