// SchemaRegistry: schema documents found by their `id` in folders, manifests read for the
// tag -> schema map, documents parsed on first use.

#include "asdfcore/schema/schema_registry.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"
#include "schema/uri.h"

namespace asdfcore::schema {
namespace {

namespace fs = std::filesystem;

// Where Debian installs Python packages (python3-asdf-standard and friends).
constexpr const char* kDistPackages = "/usr/lib/python3/dist-packages";

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, "cannot read the schema file", {.file = file.string()});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

tree::NodePtr parse_document(const fs::path& file) {
  try {
    return tree::parse_yaml(read_text(file), file.string()).root;
  } catch (const Error& e) {
    throw e.with_context({.file = file.string()});
  }
}

std::string strip_empty_fragment(std::string uri) {
  if (!uri.empty() && uri.back() == '#') uri.pop_back();
  return uri;
}

// The value of a top-level `key:` line of a YAML file, without parsing it.
std::string top_level_value(const std::string& text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    std::string_view line(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':') {
      std::string_view value = line.substr(key.size() + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return "";
}

}  // namespace

SchemaRegistry::SchemaRegistry() = default;
SchemaRegistry::~SchemaRegistry() = default;

void SchemaRegistry::add_installed() {
  // (package folder, schema folder in it, URI prefix, manifest folder in it), as each package's
  // integration.py declares its resource mappings.
  struct Package {
    const char* schemas;
    const char* prefix;
    const char* manifests;
  };
  static constexpr Package kPackages[] = {
      {"asdf_standard/resources/schemas/stsci.edu", "http://stsci.edu/schemas/",
       "asdf_standard/resources/manifests/asdf-format.org/core"},
      {"asdf_standard/resources/schemas/asdf-format.org/core",
       "asdf://asdf-format.org/core/schemas/", nullptr},
      {"asdf_astropy/resources/schemas", "http://astropy.org/schemas/astropy/",
       "asdf_astropy/resources/manifests"},
      {"asdf_transform_schemas/resources/stsci.edu/schemas",
       "http://stsci.edu/schemas/asdf/transform/",
       "asdf_transform_schemas/resources/asdf-format.org/manifests"},
      {"asdf_wcs_schemas/resources/schemas/stsci.edu/gwcs", "http://stsci.edu/schemas/gwcs/",
       "asdf_wcs_schemas/resources/manifests"},
      {"asdf_coordinates_schemas/resources/schemas",
       "http://astropy.org/schemas/astropy/coordinates/",
       "asdf_coordinates_schemas/resources/manifests"},
  };
  const fs::path root(kDistPackages);
  for (const auto& p : kPackages) {
    std::error_code ec;
    if (fs::is_directory(root / p.schemas, ec)) add_prefix(p.prefix, root / p.schemas);
    if (p.manifests != nullptr && fs::is_directory(root / p.manifests, ec)) {
      add_manifests(root / p.manifests);
    }
  }
}

std::shared_ptr<SchemaRegistry> SchemaRegistry::with_defaults(
    const std::vector<fs::path>& extra_dirs) {
  auto registry = std::make_shared<SchemaRegistry>();
  for (const auto& dir : extra_dirs) registry->add_directory(dir);
  if (const char* site = std::getenv(std::string(kSchemaPathVariable).c_str())) {
    std::string_view list(site);
    while (!list.empty()) {
      const auto colon = list.find(':');
      const std::string dir(list.substr(0, colon));
      std::error_code ec;
      if (!dir.empty() && fs::is_directory(dir, ec)) registry->add_directory(dir);
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  registry->add_installed();
  return registry;
}

std::shared_ptr<const SchemaRegistry> SchemaRegistry::installed() {
  static const std::shared_ptr<const SchemaRegistry> registry = with_defaults();
  return registry;
}

void SchemaRegistry::add_directory(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension();
    if ((ext == ".yaml" || ext == ".json") && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) {
    throw Error(ErrorCode::kIo, "cannot list the schema folder: " + ec.message(),
                {.file = dir.string()});
  }
  std::sort(files.begin(), files.end());  // the same "first file wins" on every machine
  for (const auto& file : files) index_file(file);
}

void SchemaRegistry::index_file(const fs::path& file) {
  const std::string text = read_text(file);
  std::string id;
  bool manifest = false;
  if (file.extension() == ".json") {
    tree::NodePtr root;
    try {
      root = tree::parse_yaml(text, file.string()).root;
    } catch (const Error&) {
      return;  // not a document this registry can use; reported if ever asked for
    }
    if (root->is_mapping()) {
      for (const char* key : {"id", "$id"}) {
        if (auto v = root->get(key); v && v->is_string()) id = v->as_string();
      }
    }
  } else {
    id = top_level_value(text, "id");
    manifest = !top_level_value(text, "extension_uri").empty();
  }
  if (id.empty()) return;
  {
    std::lock_guard lock(mutex_);
    files_.emplace(strip_empty_fragment(id), file);
  }
  if (manifest) read_manifest(file);
}

void SchemaRegistry::read_manifest(const fs::path& file) const {
  const tree::NodePtr root = parse_document(file);
  const auto tags = root->is_mapping() ? root->get("tags") : nullptr;
  if (!tags || !tags->is_sequence()) return;
  std::lock_guard lock(mutex_);
  for (const auto& entry : tags->items()) {
    if (!entry->is_mapping()) continue;
    const auto tag = entry->get("tag_uri");
    if (!tag || !tag->is_string() || tag_schemas_.count(tag->as_string()) != 0) continue;
    std::vector<std::string> uris;
    if (auto one = entry->get("schema_uri"); one && one->is_string()) uris.push_back(one->as_string());
    if (auto many = entry->get("schema_uris"); many && many->is_sequence()) {
      for (const auto& u : many->items()) {
        if (u->is_string()) uris.push_back(u->as_string());
      }
    }
    tag_schemas_.emplace(tag->as_string(), std::move(uris));
  }
}

void SchemaRegistry::add_manifests(fs::path dir) {
  std::lock_guard lock(mutex_);
  pending_manifests_.push_back(std::move(dir));
}

// Read the manifest folders added so far (called with `mutex_` not held). A second thread
// asking meanwhile waits on `manifests_mutex_` until the tag map is complete.
void SchemaRegistry::read_pending_manifests() const {
  std::lock_guard reading(manifests_mutex_);
  std::vector<fs::path> dirs;
  {
    std::lock_guard lock(mutex_);
    dirs.swap(pending_manifests_);
  }
  for (const auto& dir : dirs) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".yaml") files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) read_manifest(file);
  }
}

void SchemaRegistry::add_prefix(std::string prefix, fs::path dir) {
  std::lock_guard lock(mutex_);
  prefixes_.emplace_back(std::move(prefix), std::move(dir));
}

void SchemaRegistry::add_document(const std::string& uri, tree::NodePtr document) {
  std::lock_guard lock(mutex_);
  documents_[strip_empty_fragment(uri)] = std::move(document);
}

tree::NodePtr SchemaRegistry::document(const std::string& uri_in) const {
  const std::string uri = strip_empty_fragment(detail::split_fragment(uri_in).first);
  std::lock_guard lock(mutex_);
  if (auto it = documents_.find(uri); it != documents_.end()) return it->second;
  fs::path file;
  if (auto it = files_.find(uri); it != files_.end()) {
    file = it->second;
  } else {
    for (const auto& [prefix, dir] : prefixes_) {
      if (!uri.starts_with(prefix)) continue;
      const fs::path base = dir / uri.substr(prefix.size());
      std::error_code ec;
      for (const auto& candidate : {base, fs::path(base.string() + ".yaml"),
                                    fs::path(base.string() + ".json")}) {
        if (fs::is_regular_file(candidate, ec)) {
          file = candidate;
          break;
        }
      }
      if (!file.empty()) break;
    }
  }
  if (file.empty()) return nullptr;
  tree::NodePtr root = parse_document(file);
  documents_.emplace(uri, root);
  return root;
}

std::vector<std::string> SchemaRegistry::schemas_for_tag(const std::string& tag) const {
  read_pending_manifests();
  std::lock_guard lock(mutex_);
  if (auto it = tag_schemas_.find(tag); it != tag_schemas_.end()) return it->second;
  // python asdf's rule for core tags no manifest lists (older or newer versions).
  constexpr std::string_view kCoreTags = "tag:stsci.edu:asdf/";
  if (tag.starts_with(kCoreTags)) {
    return {"http://stsci.edu/schemas/asdf/" + tag.substr(kCoreTags.size())};
  }
  return {};
}

std::size_t SchemaRegistry::document_count() const {
  std::lock_guard lock(mutex_);
  return files_.size();
}

std::size_t SchemaRegistry::tag_count() const {
  read_pending_manifests();
  std::lock_guard lock(mutex_);
  return tag_schemas_.size();
}

}  // namespace asdfcore::schema
