#pragma once
/// \file
/// Where schemas come from: a registry that maps schema URIs to documents and tags to schema URIs.
///
/// Documents are found in folders, two ways:
/// - A prefix mapping (`add_prefix`) reaches files by path: `prefix + "core/ndarray-1.0.0"` is
///   `dir/core/ndarray-1.0.0.yaml`. This is how python asdf's packages map their resources
///   (their `integration.py`), and how the installed schemas are reached: nothing is read until
///   a schema is needed.
/// - `add_directory` indexes every `.yaml` or `.json` file under a folder by its top-level `id`
///   (site schemas, `--schema-path`), wherever it lies.
/// Manifests (documents with `extension_uri` and `tags`) map tag URIs to schema URIs; they are
/// read on the first tag lookup. A tag no manifest names falls back to python asdf's rule for
/// the core tags (`tag:stsci.edu:asdf/X` -> `http://stsci.edu/schemas/asdf/X`).

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"

namespace asdfcore::schema {

/// Environment variable naming site schema folders (separated by `:`), searched by
/// `SchemaRegistry::with_defaults` before the installed ones.
inline constexpr std::string_view kSchemaPathVariable = "FITSASDF_SCHEMA_PATH";

/// Maps URIs to schema documents and tags to schema URIs. Thread-safe once built: lookups may
/// run from several threads; documents are parsed on first use and kept.
class SchemaRegistry {
 public:
  SchemaRegistry();
  ~SchemaRegistry();
  SchemaRegistry(const SchemaRegistry&) = delete;
  SchemaRegistry& operator=(const SchemaRegistry&) = delete;

  /// Return a registry over `extra_dirs` (searched first, in order), the folders named by
  /// `FITSASDF_SCHEMA_PATH`, and the schema packages Debian installs for Python
  /// (`add_installed`).
  static std::shared_ptr<SchemaRegistry> with_defaults(
      const std::vector<std::filesystem::path>& extra_dirs = {});

  /// Return the process-wide registry over `FITSASDF_SCHEMA_PATH` and the installed schema
  /// packages, built on first use.
  static std::shared_ptr<const SchemaRegistry> installed();

  /// Add the schema packages installed for Debian's python3 that exist on this machine, with
  /// the URI prefixes their `integration.py` gives them: python3-asdf-standard, asdf-astropy,
  /// asdf-transform-schemas, asdf-wcs-schemas, asdf-coordinates-schemas.
  void add_installed();

  /// Index every schema and manifest file under `dir` (recursively) by its `id`. A URI found
  /// twice keeps its first file. Throws `Error` (io) when `dir` cannot be listed.
  void add_directory(const std::filesystem::path& dir);
  /// Read the manifests directly in `dir` (not below it) on the first tag lookup.
  void add_manifests(std::filesystem::path dir);
  /// Make URIs that start with `prefix` reach `dir`: `prefix + "a/b.json"` is the file
  /// `dir/a/b.json` (or `dir/a/b.yaml`, `dir/a/b.json` when the URI has no extension).
  void add_prefix(std::string prefix, std::filesystem::path dir);
  /// Register `document` under `uri` (replacing what the URI named).
  void add_document(const std::string& uri, tree::NodePtr document);

  /// Return the document named by `uri` (no fragment), parsing its file on first use, or
  /// nullptr when no folder has it. Throws `Error` (malformed) for a file that does not parse.
  tree::NodePtr document(const std::string& uri) const;
  /// Return the schema URIs that validate nodes tagged `tag`: those the manifests list, else the
  /// core-tag fallback; empty when there is none. The URIs may still name missing documents.
  std::vector<std::string> schemas_for_tag(const std::string& tag) const;
  /// Return the number of schema documents and tag definitions indexed (for reports).
  std::size_t document_count() const;
  /// Return the number of tag definitions read from manifests.
  std::size_t tag_count() const;

 private:
  void index_file(const std::filesystem::path& file);
  void read_manifest(const std::filesystem::path& file) const;
  void read_pending_manifests() const;

  mutable std::mutex mutex_;
  mutable std::mutex manifests_mutex_;
  std::map<std::string, std::filesystem::path, std::less<>> files_;
  mutable std::map<std::string, tree::NodePtr, std::less<>> documents_;
  std::vector<std::pair<std::string, std::filesystem::path>> prefixes_;
  mutable std::map<std::string, std::vector<std::string>, std::less<>> tag_schemas_;
  mutable std::vector<std::filesystem::path> pending_manifests_;
};

}  // namespace asdfcore::schema
