// Files of libasdf's C API: opening (path, FILE *, memory, new), errors, writing, closing,
// and the getters and setters that take a path.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "asdfcore/tree/walk.h"
#include "asdfcore/write.h"
#include "c/c_state.h"

using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;
namespace capi = asdfcore::capi;

namespace {

/// The error of the last open that failed in this thread (asdf_error(NULL)).
struct GlobalError {
  std::string message;
  asdf_error_code_t code = ASDF_ERR_NONE;
  int err = 0;
};
thread_local GlobalError g_error;

asdf_error_code_t code_for(const asdfcore::Error& e) {
  using asdfcore::ErrorCode;
  switch (e.code()) {
    case ErrorCode::kIo: return ASDF_ERR_SYSTEM;
    case ErrorCode::kNotAsdf:
    case ErrorCode::kNotFits:
    case ErrorCode::kUnsupportedVersion: return ASDF_ERR_INVALID_ASDF_HEADER;
    case ErrorCode::kMalformed:
      return e.context().block ? ASDF_ERR_INVALID_BLOCK_HEADER : ASDF_ERR_YAML_PARSE_FAILED;
    case ErrorCode::kTruncated: return ASDF_ERR_UNEXPECTED_EOF;
    case ErrorCode::kCompression: return ASDF_ERR_COMPRESSION_FAILED;
    case ErrorCode::kChecksum: return ASDF_ERR_INVALID_BLOCK_HEADER;
    case ErrorCode::kLimit: return ASDF_ERR_OVER_LIMIT;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
    case ErrorCode::kWrongType: return ASDF_ERR_INVALID_ARGUMENT;
    case ErrorCode::kCancelled: return ASDF_ERR_UNKNOWN_STATE;
    // libasdf does not validate; a tree that breaks its schema is a tree it cannot take.
    case ErrorCode::kSchema: return ASDF_ERR_YAML_PARSE_FAILED;
    case ErrorCode::kConflict: return ASDF_ERR_UNKNOWN_STATE;
    case ErrorCode::kUnsupported: return ASDF_ERR_UNKNOWN_STATE;
    case ErrorCode::kExists: return ASDF_ERR_SYSTEM;
  }
  return ASDF_ERR_UNKNOWN_STATE;
}

asdf_file* new_file(const asdf_config_t* config) {
  auto file = std::make_unique<asdf_file>();
  if (config) file->config = *config;
  file->arrays = std::make_shared<asdfcore::Tree::Context>();
  file->root = Node::make_mapping();
  file->name = "<new file>";
  return file.release();
}

/// Open `read` (a File) into a new asdf_file, or record the failure as this thread's error.
template <typename F>
asdf_file* open_with(const asdf_config_t* config, F&& read) {
  g_error = {};
  return capi::guarded<asdf_file*>(nullptr, nullptr, [&] {
    std::unique_ptr<asdf_file> file(new_file(config));
    file->source.emplace(read());
    file->raw = file->source->root().file();
    file->root = file->source->raw().tree();
    file->name = file->source->path();
    return file.release();
  });
}

/// The tree to write: the file's nodes, with its arrays and the ones set through the C API.
asdfcore::Tree tree_of(const asdf_file* file) {
  return asdfcore::Tree::from_nodes(file->raw, file->root, "", file->arrays.get());
}

asdfcore::WriteOptions write_options(const asdf_file* file) {
  asdfcore::WriteOptions options;
  if (file->config.emitter.array_storage == ASDF_ARRAY_STORAGE_INLINE) {
    options.inline_threshold = UINT64_MAX;
  }
  return options;
}

/// Run a getter on a temporary handle to the value at `path`.
template <typename F>
asdf_value_err_t with_value(asdf_file* file, const char* path, F&& getter) {
  return capi::at_path(file, path, ASDF_VALUE_ERR_NOT_FOUND, ASDF_VALUE_ERR_UNKNOWN, getter);
}

/// Run a test on a temporary handle to the value at `path` (false when there is none).
template <typename F>
bool test_value(asdf_file* file, const char* path, F&& test) {
  return capi::at_path(file, path, false, false, test);
}

}  // namespace

namespace asdfcore::capi {

void set_error(asdf_file* file, asdf_error_code_t code, std::string message, int err) {
  if (file) {
    file->error = std::move(message);
    file->code = code;
    file->error_errno = err;
  } else {
    g_error.message = std::move(message);
    g_error.code = code;
    g_error.err = err;
  }
}

void set_current_exception(asdf_file* file) {
  try {
    throw;
  } catch (const asdfcore::Error& e) {
    set_error(file, code_for(e), e.what());
  } catch (const std::bad_alloc&) {
    set_error(file, ASDF_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    set_error(file, ASDF_ERR_UNKNOWN_STATE, std::string("internal error: ") + e.what());
  } catch (...) {
    set_error(file, ASDF_ERR_UNKNOWN_STATE, "internal error: an unknown exception");
  }
}

bool is_ndarray_node(const asdf_file* file, const tree::NodePtr& node) {
  if (!node) return false;
  if (node->tag() == kArrayPlaceholderTag) return file && file->arrays->find(node.get());
  return tree::is_ndarray(*node);
}

tree::NodePtr adopt(asdf_file* target, const asdf_value* value) {
  asdf_file* source = value->file;
  if (!source || source == target) return value->node;
  std::map<const Node*, NodePtr> copies;  // keeps aliases aliases
  std::function<NodePtr(const NodePtr&, const std::string&)> copy =
      [&](const NodePtr& node, const std::string& pointer) -> NodePtr {
    if (auto it = copies.find(node.get()); it != copies.end()) return it->second;
    NodePtr out;
    if (node->tag() == kArrayPlaceholderTag && source->arrays->find(node.get())) {
      out = target->arrays->add(Array::from_impl(source->arrays->find(node.get())));
    } else if (tree::is_ndarray(*node) && source->raw) {
      out = target->arrays->add(Array::from_ndarray(
          std::make_shared<ndarray::NDArray>(source->raw->array(*node, pointer))));
    } else if (node->is_mapping()) {
      out = Node::make_mapping();
      for (const auto& [k, v] : node->entries()) {
        out->entries().emplace_back(k, copy(v, pointer + "/" + tree::escape_pointer_token(key_text(*k))));
      }
    } else if (node->is_sequence()) {
      out = Node::make_sequence();
      for (std::size_t i = 0; i < node->size(); ++i) {
        out->push_back(copy(node->items()[i], pointer + "/" + std::to_string(i)));
      }
    } else {
      return node;  // scalars are replaced, never changed in place: share them
    }
    if (out->tag() != kArrayPlaceholderTag) {
      out->copy_tag(*node);
      out->collection_style = node->collection_style;
    }
    copies[node.get()] = out;
    return out;
  };
  return copy(value->node, value->pointer);
}

}  // namespace asdfcore::capi

extern "C" {

void asdf_free(void* buf) { std::free(buf); }

asdf_file_t* asdf_open_file_ex(const char* filename, const char* mode, asdf_config_t* config) {
  g_error = {};
  if (!filename) {
    capi::set_error(nullptr, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for filename: NULL");
    return nullptr;
  }
  const std::string m = mode ? mode : "r";
  if (m == "w") {
    return capi::guarded<asdf_file*>(nullptr, nullptr, [&] {
      asdf_file* file = new_file(config);
      file->name = filename;
      file->write_on_close = filename;
      return file;
    });
  }
  if (m != "r") {
    capi::set_error(nullptr, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for mode: " + m);
    return nullptr;
  }
  // The operating system's reason, with its errno, for a file that cannot be opened at all.
  const int fd = ::open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    capi::set_error(nullptr, ASDF_ERR_SYSTEM, std::string(filename) + ": " + std::strerror(err), err);
    return nullptr;
  }
  ::close(fd);
  return open_with(config, [&] { return asdfcore::File::open(filename); });
}

asdf_file_t* asdf_open_fp_ex(FILE* fp, const char* filename, asdf_config_t* config) {
  g_error = {};
  if (!fp) {
    capi::set_error(nullptr, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for fp: NULL");
    return nullptr;
  }
  const std::string name = filename ? filename : "<stream>";
  return open_with(config, [&] {
    std::vector<std::uint8_t> bytes;
    std::uint8_t chunk[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, fp)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    if (std::ferror(fp)) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the stream",
                            asdfcore::ErrorContext{.file = name});
    }
    return asdfcore::File::open_memory(std::move(bytes), name);
  });
}

asdf_file_t* asdf_open_mem_ex(const void* buf, size_t size, asdf_config_t* config) {
  g_error = {};
  if (!buf) {
    if (size != 0) {
      capi::set_error(nullptr, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for buf: NULL");
      return nullptr;
    }
    return capi::guarded<asdf_file*>(nullptr, nullptr, [&] { return new_file(config); });
  }
  return open_with(config, [&] {
    const auto* p = static_cast<const std::uint8_t*>(buf);
    return asdfcore::File::open_memory(std::vector<std::uint8_t>(p, p + size), "<memory>");
  });
}

int asdf_write_to_file(asdf_file_t* file, const char* filename) {
  if (!file) return -1;
  if (!filename) {
    capi::set_error(file, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for filename: NULL");
    return -1;
  }
  return capi::guarded(file, -1, [&] {
    asdfcore::write(filename, tree_of(file), write_options(file));
    return 0;
  });
}

int asdf_write_to_fp(asdf_file_t* file, FILE* fp) {
  if (!file) return -1;
  if (!fp) {
    capi::set_error(file, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for fp: NULL");
    return -1;
  }
  return capi::guarded(file, -1, [&] {
    const std::vector<std::uint8_t> bytes = asdfcore::write_to_memory(tree_of(file), write_options(file));
    if (std::fwrite(bytes.data(), 1, bytes.size(), fp) != bytes.size() || std::fflush(fp) != 0) {
      const int err = errno;
      capi::set_error(file, ASDF_ERR_SYSTEM,
                      "cannot write " + std::to_string(bytes.size()) + " bytes to the stream: " +
                          std::strerror(err), err);
      return -1;
    }
    return 0;
  });
}

int asdf_write_to_mem(asdf_file_t* file, void** buf, size_t* size) {
  if (!file) return -1;
  if (!buf || !size) {
    capi::set_error(file, ASDF_ERR_INVALID_ARGUMENT, "invalid argument for buf: NULL");
    return -1;
  }
  return capi::guarded(file, -1, [&] {
    const std::vector<std::uint8_t> bytes = asdfcore::write_to_memory(tree_of(file), write_options(file));
    if (*buf) {
      const std::size_t n = std::min(*size, bytes.size());
      std::memcpy(*buf, bytes.data(), n);
      if (bytes.size() > *size) {
        capi::set_error(file, ASDF_ERR_INVALID_ARGUMENT,
                        "the buffer of " + std::to_string(*size) + " bytes is too small for the " +
                            std::to_string(bytes.size()) + " bytes of the file");
        *size = n;
        return -1;
      }
      *size = bytes.size();
      return 0;
    }
    void* out = std::malloc(bytes.empty() ? 1 : bytes.size());
    if (!out) throw std::bad_alloc();
    std::memcpy(out, bytes.data(), bytes.size());
    *buf = out;
    *size = bytes.size();
    return 0;
  });
}

void asdf_close(asdf_file_t* file) {
  if (!file) return;
  if (!file->write_on_close.empty()) {
    // A "w" file is written now; a failure has nowhere to go but this thread's error.
    if (asdf_write_to_file(file, file->write_on_close.c_str()) != 0) {
      capi::set_error(nullptr, file->code, file->error, file->error_errno);
    }
  }
  for (asdf_value* v : file->floating) delete v;
  delete file;
}

const char* asdf_error(asdf_file_t* file) {
  if (!file) return g_error.code == ASDF_ERR_NONE ? nullptr : g_error.message.c_str();
  return file->code == ASDF_ERR_NONE ? nullptr : file->error.c_str();
}

asdf_error_code_t asdf_error_code(asdf_file_t* file) { return file ? file->code : g_error.code; }

int asdf_error_errno(asdf_file_t* file) { return file ? file->error_errno : g_error.err; }

size_t asdf_block_count(asdf_file_t* file) {
  if (!file || !file->source) return 0;
  return file->source->raw().container().blocks().size();
}

asdf_value_t* asdf_get_value(asdf_file_t* file, const char* path) {
  if (!file || !path) return nullptr;
  return capi::guarded<asdf_value_t*>(file, nullptr, [&]() -> asdf_value_t* {
    const auto found = capi::resolve(file->root, path);
    if (!found) return nullptr;
    return capi::make_value(file, found->node, found->path, found->pointer);
  });
}

bool asdf_is_mapping(asdf_file_t* file, const char* path) {
  return test_value(file, path, asdf_value_is_mapping);
}

asdf_value_err_t asdf_get_mapping(asdf_file_t* file, const char* path, asdf_mapping_t** out) {
  return with_value(file, path, [&](asdf_value* v) {
    if (!asdf_value_is_mapping(v)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
    if (out) *out = reinterpret_cast<asdf_mapping_t*>(capi::make_value(file, v->node, v->path, v->pointer));
    return ASDF_VALUE_OK;
  });
}

bool asdf_is_sequence(asdf_file_t* file, const char* path) {
  return test_value(file, path, asdf_value_is_sequence);
}

asdf_value_err_t asdf_get_sequence(asdf_file_t* file, const char* path, asdf_sequence_t** out) {
  return with_value(file, path, [&](asdf_value* v) {
    if (!asdf_value_is_sequence(v)) return ASDF_VALUE_ERR_TYPE_MISMATCH;
    if (out) *out = reinterpret_cast<asdf_sequence_t*>(capi::make_value(file, v->node, v->path, v->pointer));
    return ASDF_VALUE_OK;
  });
}

bool asdf_is_string(asdf_file_t* file, const char* path) {
  return test_value(file, path, asdf_value_is_string);
}

asdf_value_err_t asdf_get_string(asdf_file_t* file, const char* path, const char** out,
                                 size_t* out_len) {
  // The text lives in the node, which stays in the tree: no copy is needed.
  return with_value(file, path, [&](asdf_value* v) {
    if (v->node->kind() == asdfcore::tree::NodeKind::kBinary) {
      const char* p = nullptr;
      std::size_t n = 0;
      const asdf_value_err_t err = asdf_value_as_string(v, &p, &n);
      if (err == ASDF_VALUE_OK) {
        const std::string& kept = file->keep_text(v->node, std::string(p, n));
        if (out) *out = kept.data();
        if (out_len) *out_len = n;
      }
      return err;
    }
    return asdf_value_as_string(v, out, out_len);
  });
}

asdf_value_err_t asdf_get_string0(asdf_file_t* file, const char* path, const char** out) {
  return asdf_get_string(file, path, out, nullptr);
}

bool asdf_is_scalar(asdf_file_t* file, const char* path) {
  return test_value(file, path, asdf_value_is_scalar);
}

asdf_value_err_t asdf_get_scalar(asdf_file_t* file, const char* path, const char** out,
                                 size_t* out_len) {
  return with_value(file, path, [&](asdf_value* v) {
    const char* p = nullptr;
    std::size_t n = 0;
    const asdf_value_err_t err = asdf_value_as_scalar(v, &p, &n);
    if (err == ASDF_VALUE_OK) {
      const std::string& kept = file->keep_text(v->node, std::string(p, n));  // v goes now
      if (out) *out = kept.c_str();
      if (out_len) *out_len = n;
    }
    return err;
  });
}

asdf_value_err_t asdf_get_scalar0(asdf_file_t* file, const char* path, const char** out) {
  return asdf_get_scalar(file, path, out, nullptr);
}

bool asdf_is_bool(asdf_file_t* file, const char* path) { return test_value(file, path, asdf_value_is_bool); }
asdf_value_err_t asdf_get_bool(asdf_file_t* file, const char* path, bool* out) {
  return with_value(file, path, [&](asdf_value* v) { return asdf_value_as_bool(v, out); });
}
bool asdf_is_null(asdf_file_t* file, const char* path) { return test_value(file, path, asdf_value_is_null); }
bool asdf_is_int(asdf_file_t* file, const char* path) { return test_value(file, path, asdf_value_is_int); }

#define FITSASDF_PATH_GETTER(name, ctype)                                                      \
  bool asdf_is_##name(asdf_file_t* file, const char* path) {                                   \
    return test_value(file, path, asdf_value_is_##name);                                       \
  }                                                                                            \
  asdf_value_err_t asdf_get_##name(asdf_file_t* file, const char* path, ctype* out) {          \
    return with_value(file, path, [&](asdf_value* v) { return asdf_value_as_##name(v, out); }); \
  }
FITSASDF_PATH_GETTER(int8, int8_t)
FITSASDF_PATH_GETTER(int16, int16_t)
FITSASDF_PATH_GETTER(int32, int32_t)
FITSASDF_PATH_GETTER(int64, int64_t)
FITSASDF_PATH_GETTER(uint8, uint8_t)
FITSASDF_PATH_GETTER(uint16, uint16_t)
FITSASDF_PATH_GETTER(uint32, uint32_t)
FITSASDF_PATH_GETTER(uint64, uint64_t)
FITSASDF_PATH_GETTER(float, float)
FITSASDF_PATH_GETTER(double, double)
#undef FITSASDF_PATH_GETTER

asdf_value_err_t asdf_set_value(asdf_file_t* file, const char* path, asdf_value_t* value) {
  if (!file || !value) return ASDF_VALUE_ERR_UNKNOWN;
  return capi::guarded(file, ASDF_VALUE_ERR_OOM, [&] {
    const asdf_value_err_t err = capi::set_at(file, path, capi::adopt(file, value));
    if (err == ASDF_VALUE_OK) capi::release_value(value);  // the tree has its node now
    return err;
  });
}

asdf_value_err_t asdf_set_mapping(asdf_file_t* file, const char* path, asdf_mapping_t* mapping) {
  return asdf_set_value(file, path, reinterpret_cast<asdf_value_t*>(mapping));
}

asdf_value_err_t asdf_set_sequence(asdf_file_t* file, const char* path, asdf_sequence_t* sequence) {
  return asdf_set_value(file, path, reinterpret_cast<asdf_value_t*>(sequence));
}

asdf_value_err_t asdf_set_string(asdf_file_t* file, const char* path, const char* str, size_t len) {
  return capi::guarded(file, ASDF_VALUE_ERR_OOM, [&] {
    return capi::set_at(file, path, Node::make_string(str ? std::string(str, len) : std::string()));
  });
}

asdf_value_err_t asdf_set_string0(asdf_file_t* file, const char* path, const char* str) {
  return asdf_set_string(file, path, str, str ? std::strlen(str) : 0);
}

asdf_value_err_t asdf_set_null(asdf_file_t* file, const char* path) {
  return capi::guarded(file, ASDF_VALUE_ERR_OOM, [&] { return capi::set_at(file, path, Node::make_null()); });
}

asdf_value_err_t asdf_set_bool(asdf_file_t* file, const char* path, bool val) {
  return capi::guarded(file, ASDF_VALUE_ERR_OOM,
                       [&] { return capi::set_at(file, path, Node::make_bool(val)); });
}

#define FITSASDF_PATH_SETTER(name, ctype, make)                                             \
  asdf_value_err_t asdf_set_##name(asdf_file_t* file, const char* path, ctype val) {        \
    return capi::guarded(file, ASDF_VALUE_ERR_OOM, [&] { return capi::set_at(file, path, make); }); \
  }
FITSASDF_PATH_SETTER(int8, int8_t, Node::make_int(val))
FITSASDF_PATH_SETTER(int16, int16_t, Node::make_int(val))
FITSASDF_PATH_SETTER(int32, int32_t, Node::make_int(val))
FITSASDF_PATH_SETTER(int64, int64_t, Node::make_int(val))
FITSASDF_PATH_SETTER(uint8, uint8_t, Node::make_int(val))
FITSASDF_PATH_SETTER(uint16, uint16_t, Node::make_int(val))
FITSASDF_PATH_SETTER(uint32, uint32_t, Node::make_int(val))
FITSASDF_PATH_SETTER(uint64, uint64_t, capi::uint_node(val))
FITSASDF_PATH_SETTER(float, float, Node::make_float(static_cast<double>(val)))
FITSASDF_PATH_SETTER(double, double, Node::make_float(val))
#undef FITSASDF_PATH_SETTER

asdf_value_t* asdf_file_find_ex(asdf_file_t* file, asdf_value_pred_t pred, bool depth_first,
                                asdf_value_pred_t descend_pred, asdf_depth_t max_depth) {
  if (!file) return nullptr;
  asdf_value root;
  root.file = file;
  root.node = file->root;
  root.path = "/";
  return asdf_value_find_ex(&root, pred, depth_first, descend_pred, max_depth);
}

asdf_value_t* asdf_file_find(asdf_file_t* file, asdf_value_pred_t pred) {
  return asdf_file_find_ex(file, pred, false, nullptr, -1);
}

}  // extern "C"
