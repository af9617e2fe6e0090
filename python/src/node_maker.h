#pragma once
// NodeMaker: the asdfcore tree nodes of Python values (dicts, lists, scalars, datetimes, bytes,
// tagged values) and the asdfcore Arrays of numpy arrays, borrowed, not copied (they are kept
// alive and must not change until the nodes are written). Used by write and update.
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "asdfcore/error.h"
#include "asdfcore/extension/core_types.h"
#include "asdfcore/tree_builder.h"
#include "bindings.h"
#include "dtypes.h"

namespace fitsasdf::python {

/// Makes the nodes of a Python tree.
class NodeMaker {
  using Array = asdfcore::Array;
  using Error = asdfcore::Error;
  using ErrorCode = asdfcore::ErrorCode;
  using Node = asdfcore::tree::Node;
  using NodePtr = asdfcore::tree::NodePtr;

 public:
  explicit NodeMaker(asdfcore::Tree& tree) : tree_(tree) {
    np_ = py::module_::import("numpy");
    ndarray_ = np_.attr("ndarray");
    masked_ = np_.attr("ma").attr("MaskedArray");
    generic_ = np_.attr("generic");
    const py::module_ records = py::module_::import("fitsasdf._records");
    tagged_ = records.attr("Tagged");
    tagged_scalar_ = records.attr("TaggedScalar");
    const py::module_ dt = py::module_::import("datetime");
    datetime_ = dt.attr("datetime");
    date_ = dt.attr("date");
  }

  /// Refuse numpy arrays in the values made (an update's values; its arrays come separately).
  bool arrays_allowed = true;

  NodePtr make(const py::handle& value, const std::string& path) {
    if (py::isinstance(value, tagged_scalar_)) {
      NodePtr node = make(value.attr("value"), path);
      node->set_tag(py::cast<std::string>(value.attr("tag")));
      return node;
    }
    const bool container = py::isinstance<py::dict>(value) || py::isinstance<py::list>(value) ||
                           py::isinstance<py::tuple>(value);
    if (container || py::isinstance(value, ndarray_)) {
      // The same Python object twice: one node (a YAML alias), or one array.
      const auto id = reinterpret_cast<std::uintptr_t>(value.ptr());
      if (const auto it = made_.find(id); it != made_.end()) return it->second;
      if (container && !open_.insert(id).second) {
        throw Error(ErrorCode::kInvalidArgument,
                    "the tree contains itself at " + where(path) + ", which ASDF cannot write");
      }
      if (!container && !arrays_allowed) {
        throw Error(ErrorCode::kInvalidArgument,
                    "a numpy array at " + where(path) + " among the values to set: pass arrays in "
                    "arrays= (new) or replace= (new values)");
      }
      NodePtr node = container ? make_container(value, path) : tree_.array_node(array(value, path));
      open_.erase(id);
      made_.emplace(id, node);
      keep_.append(value);  // the id stays this object's while the call runs
      return node;
    }
    if (value.is_none()) return Node::make_null();
    if (py::isinstance<py::bool_>(value)) return Node::make_bool(py::cast<bool>(value));
    if (py::isinstance<py::int_>(value)) return integer(value);
    if (py::isinstance<py::float_>(value)) return Node::make_float(py::cast<double>(value));
    if (py::isinstance<py::str>(value)) return tagged(Node::make_string(py::cast<std::string>(value)), value);
    if (py::isinstance<py::bytes>(value)) {
      const std::string b = py::cast<std::string>(value);
      return Node::make_binary(std::vector<std::uint8_t>(b.begin(), b.end()));
    }
    if (PyComplex_Check(value.ptr())) return complex(value);
    if (py::isinstance(value, datetime_) || py::isinstance(value, date_)) {
      return Node::make_timestamp(py::cast<std::string>(value.attr("isoformat")()));
    }
    if (py::isinstance(value, generic_)) return make(value.attr("item")(), path);  // numpy scalars
    throw Error(ErrorCode::kWrongType,
                "cannot write a value of type " +
                    py::cast<std::string>(py::type::handle_of(value).attr("__name__")) + " at " +
                    where(path) + " (trees hold dicts, lists, str, int, float, complex, bool, "
                    "None, bytes, datetime, numpy arrays and fitsasdf's tagged values)");
  }

  /// The Array of the numpy array `value`: a view of the array it is a view of (one block),
  /// the bytes themselves when C-contiguous, else a C-ordered copy.
  Array array(const py::handle& value, const std::string& path) {
    py::object data = py::reinterpret_borrow<py::object>(value);
    py::object mask = py::none();
    if (py::isinstance(value, masked_)) {
      mask = np_.attr("ma").attr("getmask")(value);
      data = value.attr("data");
      if (mask.is(np_.attr("ma").attr("nomask"))) mask = py::none();
    }
    // Records are written packed: a padded (aligned) record is repacked into a copy.
    if (!data.attr("dtype").attr("names").is_none()) {
      const py::object packed = py::module_::import("numpy.lib.recfunctions").attr("repack_fields");
      py::object copy = packed(data);
      if (!copy.attr("dtype").equal(data.attr("dtype"))) data = copy;
    }
    Array result = base_view(data, path);
    if (!mask.is_none()) result.mask(base_view(mask, path + " (mask)"));
    return result;
  }

 private:
  static std::string where(const std::string& path) { return path.empty() ? "the root" : path; }

  NodePtr tagged(NodePtr node, const py::handle& value) const {
    if (py::isinstance(value, tagged_)) node->set_tag(py::cast<std::string>(value.attr("tag")));
    return node;
  }

  NodePtr make_container(const py::handle& value, const std::string& path) {
    if (py::isinstance<py::dict>(value)) {
      NodePtr node = Node::make_mapping();
      for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) {
        NodePtr k = make(key, path);
        if (k->is_mapping() || k->is_sequence()) {
          throw Error(ErrorCode::kInvalidArgument,
                      "a mapping key at " + where(path) + " is a container; keys are scalars");
        }
        const std::string step = py::cast<std::string>(py::str(key));
        node->entries().emplace_back(
            std::move(k), make(item, path + "/" + asdfcore::tree::escape_pointer_token(step)));
      }
      return tagged(node, value);
    }
    NodePtr node = Node::make_sequence();
    std::size_t i = 0;
    for (const auto& item : value) node->push_back(make(item, path + "/" + std::to_string(i++)));
    return tagged(node, value);
  }

  static NodePtr integer(const py::handle& value) {
    const py::int_ i = py::reinterpret_borrow<py::int_>(value);
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow == 0) return Node::make_int(v);
    return Node::make_integer_text(py::cast<std::string>(py::str(value)));
  }

  static NodePtr complex(const py::handle& value) {
    NodePtr node = Node::make_string(
        asdfcore::extension::format_complex(py::cast<std::complex<double>>(value)));
    node->set_tag(std::string(asdfcore::tree::kAsdfTagPrefix) + "core/complex-1.0.0");
    return node;
  }

  Array base_view(py::object data, const std::string& path) {
    // The array whose memory this one views: python asdf writes that array's block.
    py::object base = data;
    while (py::isinstance(base.attr("base"), ndarray_)) base = base.attr("base");
    const bool view = !base.is(data) && base.attr("dtype").equal(data.attr("dtype")) &&
                      py::cast<bool>(base.attr("flags").attr("c_contiguous"));
    if (view) {
      const Array whole = whole_array(base, path);
      const auto start = py::cast<std::intptr_t>(base.attr("ctypes").attr("data"));
      const auto first = py::cast<std::intptr_t>(data.attr("ctypes").attr("data"));
      std::vector<std::uint64_t> shape = py::cast<std::vector<std::uint64_t>>(data.attr("shape"));
      std::vector<std::int64_t> strides = py::cast<std::vector<std::int64_t>>(data.attr("strides"));
      return whole.view_of(static_cast<std::uint64_t>(first - start), std::move(shape),
                           std::move(strides));
    }
    if (!py::cast<bool>(data.attr("flags").attr("c_contiguous"))) {
      data = np_.attr("ascontiguousarray")(data);
    }
    return whole_array(data, path);
  }

  /// The Array borrowing the bytes of the C-contiguous numpy array `data` (one per array).
  Array whole_array(const py::object& data, const std::string& path) {
    const auto id = reinterpret_cast<std::uintptr_t>(data.ptr());
    if (const auto it = arrays_.find(id); it != arrays_.end()) return it->second;
    keep_.append(data);
    const auto dtype = asdf_dtype(data.attr("dtype"), where(path));
    const std::vector<std::uint64_t> shape = py::cast<std::vector<std::uint64_t>>(data.attr("shape"));
    const auto nbytes = py::cast<std::size_t>(data.attr("nbytes"));
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(
        py::cast<std::uintptr_t>(data.attr("ctypes").attr("data")));
    Array a = Array::from_bytes(dtype, shape, {bytes, nbytes}, false);
    arrays_.emplace(id, a);
    return a;
  }

  asdfcore::Tree& tree_;
  py::module_ np_;
  py::object ndarray_, masked_, generic_, tagged_, tagged_scalar_, datetime_, date_;
  std::unordered_map<std::uintptr_t, NodePtr> made_;
  std::unordered_map<std::uintptr_t, Array> arrays_;
  std::unordered_set<std::uintptr_t> open_;
  py::list keep_;  ///< Every object whose id is a key above, alive until the write is done.
};

}  // namespace fitsasdf::python
