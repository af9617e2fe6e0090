// The core schema objects of libasdf's C API: versions, tags, software records, history
// entries and the root's metadata (asdf_get_meta), read from asdfcore's tree.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/value.h"
#include "asdfcore/version.h"
#include "c/c_state.h"

using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
namespace capi = asdfcore::capi;

namespace {

/// The text behind every pointer of the C structs made here.
struct Texts {
  std::deque<std::string> strings;
  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }
};

// ---- versions

struct VersionBox {
  asdf_version_t pub{};
  Texts texts;
};

void parse_version_into(asdf_version_t& out, Texts& texts, const std::string& text) {
  out = asdf_version_t{};
  out.version = texts.keep(text);
  unsigned major = 0, minor = 0, patch = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%u.%u.%u%n", &major, &minor, &patch, &used) == 3) {
    out.major = major;
    out.minor = minor;
    out.patch = patch;
    std::string extra = text.substr(static_cast<std::size_t>(used));
    if (!extra.empty() && (extra[0] == '.' || extra[0] == '-')) extra.erase(0, 1);
    out.extra = texts.keep(extra);
  } else {
    out.extra = texts.keep("");
  }
}

// ---- software, history entries, meta

struct SoftwareBox {
  asdf_software_t pub{};
  asdf_version_t version{};
  Texts texts;
};

const char* text_of(const NodePtr& mapping, const char* key, Texts& texts) {
  const NodePtr v = mapping ? mapping->get(key) : nullptr;
  if (!v) return nullptr;
  const auto text = capi::scalar_text(*v);
  return text ? texts.keep(*text) : nullptr;
}

void fill_software(SoftwareBox& box, const NodePtr& node) {
  box.pub.name = text_of(node, "name", box.texts);
  box.pub.author = text_of(node, "author", box.texts);
  box.pub.homepage = text_of(node, "homepage", box.texts);
  const char* version = text_of(node, "version", box.texts);
  parse_version_into(box.version, box.texts, version ? version : "");
  box.pub.version = &box.version;
}

struct TimeBox {
  asdf_time_t pub{};
  std::string value;
};

struct HistoryBox {
  asdf_history_entry_t pub{};
  Texts texts;
  std::deque<SoftwareBox> software;
  std::vector<const asdf_software_t*> software_list;
  std::optional<TimeBox> time;
};

void fill_time(TimeBox& box, const NodePtr& node) {
  box.value = capi::scalar_text(*node).value_or("");
  box.pub.value = box.value.data();
  box.pub.format = ASDF_TIME_FORMAT_ISO;
  box.pub.scale = ASDF_TIME_SCALE_UTC;
  try {
    const auto t = asdfcore::Timestamp::parse(box.value);
    const auto since = t.time.time_since_epoch();
    const auto secs = std::chrono::floor<std::chrono::seconds>(since);
    box.pub.info.ts.tv_sec = static_cast<std::time_t>(secs.count());
    box.pub.info.ts.tv_nsec = static_cast<long>((since - secs).count());
    const std::time_t tt = box.pub.info.ts.tv_sec;
    gmtime_r(&tt, &box.pub.info.tm);
  } catch (...) {
    // Not an ISO time (another time/time format): the text is all there is.
  }
}

void fill_history(HistoryBox& box, const NodePtr& node) {
  box.pub.description = text_of(node, "description", box.texts);
  if (const NodePtr t = node->get("time"); t && !t->is_mapping() && !t->is_sequence()) {
    fill_time(box.time.emplace(), t);
    box.pub.time = &box.time->pub;
  } else if (t && t->is_mapping() && t->get("value")) {
    fill_time(box.time.emplace(), t->get("value"));
    box.pub.time = &box.time->pub;
  }
  if (const NodePtr sw = node->get("software")) {
    std::vector<NodePtr> list;
    if (sw->is_sequence()) list = sw->items();
    else if (sw->is_mapping()) list.push_back(sw);
    for (const NodePtr& s : list) {
      if (!s->is_mapping()) continue;
      fill_software(box.software.emplace_back(), s);
      box.software_list.push_back(&box.software.back().pub);
    }
  }
  box.software_list.push_back(nullptr);
  box.pub.software = box.software_list.data();
}

struct MetaBox {
  asdf_meta_t pub{};
  std::optional<SoftwareBox> library;
  std::deque<HistoryBox> entries;
  std::vector<const asdf_history_entry_t*> entry_list;
  struct Extension {
    asdf_extension_metadata_t pub{};
    Texts texts;
    std::optional<SoftwareBox> package;
  };
  std::deque<Extension> extensions;
  std::vector<const asdf_extension_metadata_t*> extension_list;
};

/// Return part `n` (0: major, 1: minor, 2: patch) of the library's version "X.Y.Z".
constexpr unsigned version_part(int n) {
  const char* p = asdfcore::kVersion;
  for (; n > 0 && *p != '\0'; ++p) {
    if (*p == '.') --n;
  }
  unsigned value = 0;
  for (; *p >= '0' && *p <= '9'; ++p) value = value * 10U + static_cast<unsigned>(*p - '0');
  return value;
}

template <typename Box>
Box* box_of(void* pub) {
  return reinterpret_cast<Box*>(pub);  // the public struct is each box's first member
}

}  // namespace

extern "C" {

asdf_version_t libasdf_version = {asdfcore::kVersion, version_part(0), version_part(1),
                                  version_part(2), ""};
asdf_software_t libasdf_software = {"fitsasdf", &libasdf_version, "The fitsasdf Developers",
                                    nullptr};

asdf_version_t* asdf_version_parse(const char* version) {
  if (!version) return nullptr;
  return capi::guarded<asdf_version_t*>(nullptr, nullptr, [&] {
    auto box = std::make_unique<VersionBox>();
    parse_version_into(box->pub, box->texts, version);
    return &box.release()->pub;
  });
}

asdf_version_t* asdf_version_copy(const asdf_version_t* version) {
  return version ? asdf_version_parse(version->version) : nullptr;
}

void asdf_version_destroy(asdf_version_t* version) {
  // Only versions made by asdf_version_parse / _copy: the library's own is static.
  if (version && version != &libasdf_version) delete box_of<VersionBox>(version);
}

asdf_tag_t* asdf_tag_parse(const char* tag) {
  if (!tag) return nullptr;
  return capi::guarded<asdf_tag_t*>(nullptr, nullptr, [&] {
    const std::string text = tag;
    const std::size_t dash = text.rfind('-');
    std::string name = text, version;
    if (dash != std::string::npos && dash + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[dash + 1]))) {
      name = text.substr(0, dash);
      version = text.substr(dash + 1);
    }
    // One allocation holds the name; the version is its own parsed object.
    auto* out = new asdf_tag_t{};
    char* copy = new char[name.size() + 1];
    std::memcpy(copy, name.c_str(), name.size() + 1);
    out->name = copy;
    out->version = version.empty() ? nullptr : asdf_version_parse(version.c_str());
    return out;
  });
}

void asdf_tag_destroy(asdf_tag_t* tag) {
  if (!tag) return;
  delete[] tag->name;
  asdf_version_destroy(const_cast<asdf_version_t*>(tag->version));
  delete tag;
}

asdf_value_err_t asdf_value_as_software(asdf_value_t* value, asdf_software_t** out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (!value->node->is_mapping() || !value->node->get("name")) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    auto box = std::make_unique<SoftwareBox>();
    fill_software(*box, value->node);
    if (out) *out = &box.release()->pub;
    return ASDF_VALUE_OK;
  });
}

asdf_value_err_t asdf_get_software(asdf_file_t* file, const char* path, asdf_software_t** out) {
  asdf_value_t* v = asdf_get_value(file, path);
  if (!v) return file && path ? ASDF_VALUE_ERR_NOT_FOUND : ASDF_VALUE_ERR_UNKNOWN;
  const asdf_value_err_t err = asdf_value_as_software(v, out);
  asdf_value_destroy(v);
  return err;
}

void asdf_software_destroy(asdf_software_t* software) {
  if (software && software != &libasdf_software) delete box_of<SoftwareBox>(software);
}

asdf_value_err_t asdf_value_as_history_entry(asdf_value_t* value, asdf_history_entry_t** out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (!value->node->is_mapping() || !value->node->get("description")) {
    return ASDF_VALUE_ERR_TYPE_MISMATCH;
  }
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    auto box = std::make_unique<HistoryBox>();
    fill_history(*box, value->node);
    if (out) *out = &box.release()->pub;
    return ASDF_VALUE_OK;
  });
}

asdf_value_err_t asdf_get_history_entry(asdf_file_t* file, const char* path,
                                        asdf_history_entry_t** out) {
  asdf_value_t* v = asdf_get_value(file, path);
  if (!v) return file && path ? ASDF_VALUE_ERR_NOT_FOUND : ASDF_VALUE_ERR_UNKNOWN;
  const asdf_value_err_t err = asdf_value_as_history_entry(v, out);
  asdf_value_destroy(v);
  return err;
}

void asdf_history_entry_destroy(asdf_history_entry_t* entry) {
  if (entry) delete box_of<HistoryBox>(entry);
}

asdf_value_err_t asdf_value_as_meta(asdf_value_t* value, asdf_meta_t** out) {
  if (!value || !value->node) return ASDF_VALUE_ERR_UNKNOWN;
  if (!value->node->is_mapping()) return ASDF_VALUE_ERR_TYPE_MISMATCH;
  return capi::guarded(value->file, ASDF_VALUE_ERR_OOM, [&] {
    auto box = std::make_unique<MetaBox>();
    const NodePtr& root = value->node;
    if (const NodePtr lib = root->get("asdf_library"); lib && lib->is_mapping()) {
      fill_software(box->library.emplace(), lib);
      box->pub.asdf_library = &box->library->pub;
    }
    const NodePtr history = root->get("history");
    NodePtr entries = history && history->is_sequence() ? history : nullptr;
    NodePtr extensions;
    if (history && history->is_mapping()) {
      entries = history->get("entries");
      extensions = history->get("extensions");
    }
    if (entries && entries->is_sequence()) {
      for (const NodePtr& e : entries->items()) {
        if (!e->is_mapping()) continue;
        fill_history(box->entries.emplace_back(), e);
        box->entry_list.push_back(&box->entries.back().pub);
      }
    }
    if (extensions && extensions->is_sequence()) {
      for (const NodePtr& e : extensions->items()) {
        if (!e->is_mapping()) continue;
        auto& ext = box->extensions.emplace_back();
        ext.pub.extension_class = text_of(e, "extension_class", ext.texts);
        if (const NodePtr sw = e->get("software"); sw && sw->is_mapping()) {
          fill_software(ext.package.emplace(), sw);
          ext.pub.package = &ext.package->pub;
        }
        box->extension_list.push_back(&ext.pub);
      }
    }
    box->entry_list.push_back(nullptr);
    box->extension_list.push_back(nullptr);
    box->pub.history.entries = box->entry_list.data();
    box->pub.history.extensions = box->extension_list.data();
    if (out) *out = &box.release()->pub;
    return ASDF_VALUE_OK;
  });
}

asdf_value_err_t asdf_get_meta(asdf_file_t* file, const char* path, asdf_meta_t** out) {
  asdf_value_t* v = asdf_get_value(file, path ? path : "");
  if (!v) return file ? ASDF_VALUE_ERR_NOT_FOUND : ASDF_VALUE_ERR_UNKNOWN;
  const asdf_value_err_t err = asdf_value_as_meta(v, out);
  asdf_value_destroy(v);
  return err;
}

void asdf_meta_destroy(asdf_meta_t* meta) {
  if (meta) delete box_of<MetaBox>(meta);
}

int asdf_history_entry_add(asdf_file_t* file, const char* description) {
  if (!file || !description) return -1;
  return capi::guarded(file, -1, [&] {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &utc);
    asdfcore::add_history_entry(file->root, description, when);
    return 0;
  });
}

}  // extern "C"
