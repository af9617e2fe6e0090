// Updating a file where it is (asdfcore::Update): values set and deleted by JSON Pointer, a
// history entry, new arrays and new values for arrays, committed with the GIL released.
#include "asdfcore/error.h"
#include "asdfcore/update.h"
#include "bindings.h"
#include "call.h"
#include "node_maker.h"
#include "options.h"

namespace fitsasdf::python {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

asdfcore::CommitMode commit_mode(const std::string& mode) {
  if (mode == "auto") return asdfcore::CommitMode::kAuto;
  if (mode == "in-place") return asdfcore::CommitMode::kInPlace;
  if (mode == "rewrite") return asdfcore::CommitMode::kRewrite;
  throw Error(ErrorCode::kInvalidArgument,
              "mode=" + mode + " is not one of 'auto', 'in-place', 'rewrite'");
}

py::dict update(const py::object& path_object, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  asdfcore::UpdateOptions options;
  options.mode = commit_mode(kw.get<std::string>("mode", "auto"));
  options.durable = kw.get<bool>("durable", true);
  options.validate = kw.get<bool>("validate", false);
  options.checksum = checksum_convention(kw);
  const py::object set = kw.object("set");
  const auto remove = kw.get<std::vector<std::string>>("delete", {});
  const py::object history = kw.object("history");
  const py::object arrays = kw.object("arrays");
  const py::object replace = kw.object("replace");
  const bool dry_run = kw.get<bool>("dry_run", false);
  kw.check_all_used("update");
  for (const auto& [name, value] : {std::pair{"set", set}, {"arrays", arrays}, {"replace", replace}}) {
    if (!value.is_none() && !py::isinstance<py::dict>(value)) {
      throw Error(ErrorCode::kInvalidArgument,
                  std::string(name) + "= takes a dict of JSON Pointer -> value");
    }
  }
  const std::string path = path_arg(path_object);

  std::optional<asdfcore::Update> u;
  without_gil([&] { u.emplace(asdfcore::Update::open(path, options)); });
  asdfcore::Tree scratch;
  NodeMaker maker(scratch);
  for (const auto& pointer : remove) u->remove(pointer);
  if (!set.is_none()) {
    maker.arrays_allowed = false;
    for (const auto& [pointer, value] : py::reinterpret_borrow<py::dict>(set)) {
      const auto p = py::cast<std::string>(pointer);
      u->set(p, maker.make(value, p));
    }
  }
  if (!arrays.is_none()) {
    for (const auto& [pointer, value] : py::reinterpret_borrow<py::dict>(arrays)) {
      const auto p = py::cast<std::string>(pointer);
      u->add_array(p, maker.array(value, p));
    }
  }
  if (!replace.is_none()) {
    for (const auto& [pointer, value] : py::reinterpret_borrow<py::dict>(replace)) {
      const auto p = py::cast<std::string>(pointer);
      u->replace_array(p, maker.array(value, p));
    }
  }
  if (!history.is_none()) u->add_history(py::cast<std::string>(history));

  asdfcore::CommitResult r;
  without_gil([&] { r = dry_run ? u->plan() : u->commit(); });
  py::dict out;
  out["kind"] = std::string(asdfcore::commit_kind_name(r.kind));
  out["reason"] = r.reason;
  out["old_size"] = r.old_size;
  out["new_size"] = r.new_size;
  out["tree_room"] = r.tree_room;
  out["old_tree_size"] = r.old_tree_size;
  out["new_tree_size"] = r.new_tree_size;
  out["bytes_written"] = r.bytes_written;
  out["blocks_added"] = r.blocks_added;
  out["blocks_moved"] = r.blocks_moved;
  out["blocks_unreferenced"] = r.blocks_unreferenced;
  out["dry_run"] = dry_run;
  return out;
}

}  // namespace

void bind_update(py::module_& m) {
  m.def("update", &update, py::arg("path"),
        "Change an ASDF file where it is (see fitsasdf.update).");
}

}  // namespace fitsasdf::python
