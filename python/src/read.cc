// Reading: `File`, an opened ASDF file whose tree comes to Python as dicts, lists and scalars
// (YAML 1.1 types as python asdf gives them) and whose ndarrays are numpy arrays over the
// file's memory mapping (read-only; a compressed block is decoded once, with the GIL released).
#include <pybind11/numpy.h>
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <any>
#include <chrono>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "asdfcore/error.h"
#include "asdfcore/extension/converter.h"
#include "asdfcore/extension/core_types.h"
#include "asdfcore/extension/tag.h"
#include "asdfcore/file.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "asdfcore/value.h"
#include "bindings.h"
#include "call.h"
#include "dtypes.h"
#include "fitsasdf/report_json.h"

namespace fitsasdf::python {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// Return the name of a core tag without its prefix and version ("complex"), "" for others.
std::string core_name(const std::string& tag) {
  const std::string name = asdfcore::extension::split_tag(tag).name;
  const std::string prefix = std::string(asdfcore::tree::kAsdfTagPrefix) + "core/";
  return name.starts_with(prefix) ? name.substr(prefix.size()) : std::string();
}

/// Return the Python datetime (or date) PyYAML makes of the timestamp `text`: aware with the
/// offset the text gives (UTC for `Z`), naive without one; fractions cut to microseconds.
py::object timestamp(const std::string& text) {
  const py::module_ dt = py::module_::import("datetime");
  const auto t = asdfcore::Timestamp::parse(text);
  using namespace std::chrono;
  const minutes offset = t.utc_offset.value_or(minutes(0));
  const auto local = floor<microseconds>(t.time) + offset;
  const auto day = floor<days>(local);
  const year_month_day ymd(day);
  if (t.date_only) {
    return dt.attr("date")(static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                           static_cast<unsigned>(ymd.day()));
  }
  const hh_mm_ss hms(local - day);
  py::object tz = py::none();
  const bool zulu = !text.empty() && (text.back() == 'Z' || text.back() == 'z');
  if (t.utc_offset) {
    tz = dt.attr("timezone")(dt.attr("timedelta")(py::arg("minutes") = offset.count()));
  } else if (zulu) {
    tz = dt.attr("timezone").attr("utc");
  }
  return dt.attr("datetime")(static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                             static_cast<unsigned>(ymd.day()), hms.hours().count(),
                             hms.minutes().count(), hms.seconds().count(),
                             hms.subseconds().count(), tz);
}

/// Return a read-only numpy array over the elements of `array` (kept alive by the array's
/// capsule): the mapping itself for an uncompressed block, the decoded buffer otherwise; a
/// numpy.ma.MaskedArray when the ndarray has a mask.
py::object numpy_array(std::shared_ptr<const asdfcore::ndarray::NDArray> array) {
  const std::uint8_t* data = nullptr;
  {
    py::gil_scoped_release release;  // decodes a compressed block on first use
    data = array->data().data();
  }
  const py::object dtype = numpy_dtype(array->dtype());
  std::vector<py::ssize_t> shape(array->shape().begin(), array->shape().end());
  std::vector<py::ssize_t> strides(array->strides().begin(), array->strides().end());
  const std::uint8_t* first = data ? data + array->offset() : nullptr;
  auto* keep = new std::shared_ptr<const asdfcore::ndarray::NDArray>(array);
  const py::capsule owner(keep, [](void* p) {
    delete static_cast<std::shared_ptr<const asdfcore::ndarray::NDArray>*>(p);
  });
  py::array out(py::reinterpret_borrow<py::dtype>(dtype), shape, strides, first, owner);
  out.attr("flags").attr("writeable") = false;
  if (!array->has_mask()) return out;
  std::vector<std::uint8_t> mask;
  {
    py::gil_scoped_release release;
    mask = array->mask_c_order();
  }
  const py::module_ np = py::module_::import("numpy");
  py::array_t<bool> m(shape);
  std::copy(mask.begin(), mask.end(), m.mutable_data());
  return np.attr("ma").attr("masked_array")(out, py::arg("mask") = m);
}

/// Builds the Python objects of one file's tree; a node reached twice (a YAML alias) gives the
/// same object twice.
class TreeBuilder {
 public:
  explicit TreeBuilder(const asdfcore::File& file) : file_(file.root().file()) {
    const py::module_ records = py::module_::import("fitsasdf._records");
    tagged_dict_ = records.attr("TaggedDict");
    tagged_list_ = records.attr("TaggedList");
    tagged_string_ = records.attr("TaggedString");
    tagged_scalar_ = records.attr("TaggedScalar");
  }

  py::object build(const NodePtr& node, const std::string& path) {
    if (node->is_mapping() || node->is_sequence()) {
      if (const auto it = seen_.find(node.get()); it != seen_.end()) return it->second;
    }
    const std::string& tag = node->tag();
    if (asdfcore::tree::is_ndarray(*node)) {
      py::object array = numpy_array(asdfcore::Value(file_, node, path)
                                         .raw_array());
      seen_.emplace(node.get(), array);
      return array;
    }
    const std::string core = core_name(tag);
    if (core == "complex" || core == "integer") return converted(*node, path);
    // The core tags python asdf gives as plain Python containers (asdf, software, history
    // entries, extension metadata) are plain here too; any other tag is kept on the value.
    const bool plain = tag.empty() || core == "asdf" || core == "software" ||
                       core == "history_entry" || core == "extension_metadata";
    switch (node->kind()) {
      case NodeKind::kMapping: {
        py::dict dict;
        py::object result = plain ? py::object(dict) : tagged_dict_(py::dict(), tag);
        seen_.emplace(node.get(), result);
        py::dict target = plain ? dict : py::reinterpret_borrow<py::dict>(result);
        for (const auto& [key, value] : node->entries()) {
          const py::object k = build_key(key);
          const std::string step =
              key->kind() == NodeKind::kString ? key->as_string() : py::cast<std::string>(py::str(k));
          target[k] = build(value, path + "/" + asdfcore::tree::escape_pointer_token(step));
        }
        return result;
      }
      case NodeKind::kSequence: {
        py::list list;
        py::object result = plain ? py::object(list) : tagged_list_(py::list(), tag);
        seen_.emplace(node.get(), result);
        py::list target = plain ? list : py::reinterpret_borrow<py::list>(result);
        std::size_t i = 0;
        for (const auto& item : node->items()) {
          target.append(build(item, path + "/" + std::to_string(i++)));
        }
        return result;
      }
      case NodeKind::kString:
        if (!plain) return tagged_string_(node->as_string(), tag);
        return py::str(node->as_string());
      default:
        break;
    }
    py::object value = scalar(*node);
    return plain ? value : tagged_scalar_(value, tag);
  }

 private:
  static py::object scalar(const Node& node) {
    switch (node.kind()) {
      case NodeKind::kNull:
        return py::none();
      case NodeKind::kBool:
        return py::bool_(node.as_bool());
      case NodeKind::kInt:
        return py::int_(node.as_int());
      case NodeKind::kBigInt:
        return py::module_::import("builtins").attr("int")(node.integer_text());
      case NodeKind::kFloat:
        return py::float_(node.as_double());
      case NodeKind::kString:
        return py::str(node.as_string());
      case NodeKind::kBinary: {
        const auto& b = node.as_binary();
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      }
      case NodeKind::kTimestamp:
        return timestamp(node.as_string());
      default:
        return py::none();
    }
  }

  /// A mapping key: a scalar as its Python value; a container as its YAML-ish text (Python
  /// keys must be hashable).
  py::object build_key(const NodePtr& key) {
    if (key->is_mapping() || key->is_sequence()) {
      return py::str(py::repr(build(key, "")));
    }
    return scalar(*key);
  }

  /// A `core/complex` or `core/integer` node read by the library's converter (as
  /// python asdf converts them): a Python complex or int.
  py::object converted(const Node& node, const std::string& path) const {
    const auto match = registry_.find(node.tag());
    const std::any value = match.converter->read(
        node, asdfcore::extension::ReadContext{.blocks = &file_->blocks(), .path = path});
    if (const auto* c = std::any_cast<std::complex<double>>(&value)) {
      return py::cast(*c);
    }
    const auto& integer = std::any_cast<const asdfcore::extension::BigInteger&>(value);
    return py::module_::import("builtins").attr("int")(integer.decimal);
  }

  std::shared_ptr<const asdfcore::AsdfFile> file_;
  const asdfcore::extension::ConverterRegistry registry_ =
      asdfcore::extension::ConverterRegistry::with_builtins();
  std::unordered_map<const Node*, py::object> seen_;
  py::object tagged_dict_, tagged_list_, tagged_string_, tagged_scalar_;
};

/// The Python side of an opened file.
class PyFile {
 public:
  explicit PyFile(asdfcore::File file) : file_(std::move(file)) {}

  const asdfcore::File& file() const {
    if (!file_) throw py::value_error("I/O operation on a closed fitsasdf file");
    return *file_;
  }
  void close() { file_.reset(); }
  bool closed() const { return !file_; }

  py::object tree() {
    const asdfcore::File& f = file();
    if (!tree_) tree_ = TreeBuilder(f).build(f.raw().tree(), "");
    return *tree_;
  }

  py::dict tags() const {
    py::dict out;
    asdfcore::tree::walk(file().raw().tree(), [&](const NodePtr& node, const std::string& path) {
      if (!node->tag().empty()) out[py::str(path)] = node->tag();
      return true;
    });
    return out;
  }

  py::object array(const std::string& pointer) const {
    const asdfcore::Value v = file().at(pointer);
    std::shared_ptr<const asdfcore::ndarray::NDArray> raw;
    {
      py::gil_scoped_release release;
      raw = v.raw_array();
    }
    return numpy_array(std::move(raw));
  }

 private:
  std::optional<asdfcore::File> file_;
  std::optional<py::object> tree_;
};

PyFile open_file(const py::object& path_object, bool verify_checksums, std::uint64_t max_memory,
                 bool validate) {
  const std::string path = path_arg(path_object);
  asdfcore::OpenOptions options;
  options.layout.max_block_data_size = max_memory;
  options.validate = validate;
  asdfcore::File file = without_gil([&] {
    asdfcore::File f = asdfcore::File::open(path, options);
    if (verify_checksums) f.verify_checksums();
    return f;
  });
  return PyFile(std::move(file));
}

}  // namespace

void bind_read(py::module_& m) {
  py::class_<PyFile>(m, "File", "An opened ASDF file (fitsasdf.AsdfFile wraps it).")
      .def_static("open", &open_file, py::arg("path"), py::arg("verify_checksums") = false,
                  py::arg("max_memory") = std::uint64_t{8} << 30, py::arg("validate") = false,
                  "Open an ASDF file.")
      .def_property_readonly(
          "path", [](const PyFile& f) { return f.file().path(); }, "The path opened.")
      .def_property_readonly(
          "asdf_standard", [](const PyFile& f) { return f.file().asdf_standard(); },
          "The ASDF Standard version the file declares.")
      .def_property_readonly(
          "warnings", [](const PyFile& f) { return f.file().warnings(); },
          "What was odd but not fatal.")
      .def_property_readonly("closed", &PyFile::closed, "True once closed.")
      .def("tree", &PyFile::tree, "Return the tree as Python objects (built once).")
      .def("tags", &PyFile::tags, "Return {JSON Pointer: tag} for every tagged node.")
      .def("array", &PyFile::array, py::arg("pointer"),
           "Return the ndarray at a JSON Pointer as a numpy array.")
      .def(
          "verify_checksums",
          [](const PyFile& f) { without_gil([&] { f.file().verify_checksums(); }); },
          "Check every block's MD5.")
      .def(
          "validate",
          [](const PyFile& f) {
            std::string json;
            without_gil([&] { json = to_json(f.file().validate()); });
            return json;
          },
          "Check the whole file; return the report as JSON.")
      .def("close", &PyFile::close, "Let the file go.");
}

}  // namespace fitsasdf::python
