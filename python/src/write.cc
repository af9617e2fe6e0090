// Writing: a tree of Python objects (dicts, lists, scalars, datetimes, bytes, tagged values) and
// numpy arrays, made into an asdfcore::Tree and written by asdfcore::write with the GIL
// released. numpy arrays are borrowed, not copied (they are kept alive and must not change
// during the call); views of one array share its block, as python asdf writes them.
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/tree_builder.h"
#include "asdfcore/write.h"
#include "bindings.h"
#include "call.h"
#include "node_maker.h"
#include "options.h"

namespace fitsasdf::python {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

void write(const py::object& path_object, const py::handle& tree, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  asdfcore::WriteOptions options;
  options.asdf_standard = kw.get<std::string>("standard", options.asdf_standard);
  options.compression = kw.get<std::string>("compress", "");
  options.compression_level = compression_level(kw);
  const auto order = kw.get<std::string>("byte_order", "keep");
  if (order == "little") {
    options.byte_order = asdfcore::ndarray::ByteOrder::kLittle;
  } else if (order == "big") {
    options.byte_order = asdfcore::ndarray::ByteOrder::kBig;
  } else if (order != "keep") {
    throw Error(ErrorCode::kInvalidArgument,
                "byte_order=" + order + " is not one of 'keep', 'little', 'big'");
  }
  options.checksum = checksum_convention(kw);
  options.inline_threshold = kw.get<std::uint64_t>("inline_threshold", 0);
  options.threads = kw.get<unsigned>("threads", 0);
  options.durable = kw.get<bool>("durable", true);
  options.comments = kw.get<std::vector<std::string>>("comments", {});
  kw.check_all_used("write");
  if (!py::isinstance<py::dict>(tree)) {
    throw Error(ErrorCode::kInvalidArgument, "the tree to write must be a dict");
  }
  const std::string path = path_arg(path_object);
  asdfcore::Tree root;
  NodeMaker maker(root);
  root.set_node(maker.make(tree, ""));
  without_gil([&] { asdfcore::write(path, root, options); });
}

}  // namespace

void bind_write(py::module_& m) {
  m.def("write", &write, py::arg("path"), py::arg("tree"),
        "Write a tree of Python objects and numpy arrays (see fitsasdf.write).");
}

}  // namespace fitsasdf::python
