// convert, verify and diff: the library's calls, run by run_call (GIL released, progress,
// Ctrl-C); the reports go back as their JSON documents (fitsasdf/report_json.h), which the
// package turns into report objects.
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "call.h"
#include "compare/file_kind.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/output_names.h"
#include "fitsasdf/report_json.h"
#include "fitsasdf/to_fits.h"
#include "fitsasdf/validate_file.h"
#include "fitsasdf/verify.h"
#include "options.h"

namespace fitsasdf::python {
namespace {

/// convert(input, output, **options) -> (report JSON, direction)
py::tuple convert(const py::object& input_arg, const py::object& output_arg, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  const std::string input = path_arg(input_arg);
  const bool asdf_input = compare::file_kind(input) == compare::FileKind::kAsdf;
  const py::object progress = kw.object("progress");
  std::string json;
  if (asdf_input) {
    AsdfToFitsOptions options = to_fits_options(kw);
    // The FITS -> ASDF settings mean nothing here; they are read so that passing them is no
    // error (a pipeline calls convert with the same arguments for both directions).
    (void)to_asdf_options(kw);
    kw.check_all_used("convert");
    std::string output;
    if (output_arg.is_none()) {
      output = default_fits_name(input);
      // As `fitsasdf convert`: the default name is likely the FITS file this ASDF file came
      // from, which is never overwritten unasked.
      if (std::filesystem::exists(output)) {
        throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                              "the default output " + output +
                                  " exists (perhaps the FITS file this ASDF file came from); "
                                  "give an output name to choose where to write");
      }
    } else {
      output = path_arg(output_arg);
    }
    run_call(options.control, progress,
             [&] { json = to_json(convert_asdf_to_fits(input, output, options)); });
  } else {
    ConvertOptions options = to_asdf_options(kw);
    (void)to_fits_options(kw);
    kw.check_all_used("convert");
    const std::string output =
        output_arg.is_none() ? default_asdf_name(input) : path_arg(output_arg);
    run_call(options.control, progress,
             [&] { json = to_json(convert_fits_to_asdf(input, output, options)); });
  }
  return py::make_tuple(json, asdf_input ? "asdf-to-fits" : "fits-to-asdf");
}

/// verify(fits, other, **options) -> report JSON
std::string verify(const py::object& fits_arg, const py::object& other_arg, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  VerifyOptions options;
  options.convert = to_asdf_options(kw);
  options.max_listed = kw.get<std::size_t>("max_listed", options.max_listed);
  const py::object progress = kw.object("progress");
  kw.check_all_used("verify");
  const std::string fits = path_arg(fits_arg);
  const std::string other = other_arg.is_none() ? std::string() : path_arg(other_arg);
  std::string json;
  run_call(options.control, progress, [&] {
    json = to_json(other.empty() ? verify_round_trip(fits, options)
                                 : verify_pair(fits, other, options));
  });
  return json;
}

/// diff(a, b, **options) -> report JSON
std::string diff(const py::object& a_arg, const py::object& b_arg, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  CompareOptions options = compare_options(kw);
  const py::object progress = kw.object("progress");
  kw.check_all_used("diff");
  const std::string a = path_arg(a_arg);
  const std::string b = path_arg(b_arg);
  std::string json;
  run_call(options.control, progress, [&] { json = to_json(diff_files(a, b, options)); });
  return json;
}

/// validate(path, **options) -> report JSON (a FileValidation)
std::string validate(const py::object& path_arg_object, py::kwargs kwargs) {
  Kwargs kw(std::move(kwargs));
  const auto dirs = kw.get<std::vector<std::string>>("schema_path", {});
  asdfcore::ValidateOptions options;
  options.schemas = kw.get<bool>("schemas", true);
  options.blocks = kw.get<bool>("blocks", true);
  const auto max_findings = kw.get<std::size_t>("max_findings", 1000);
  asdfcore::OpenOptions open;
  open.layout.max_block_data_size = kw.get<std::uint64_t>("max_memory", open.layout.max_block_data_size);
  kw.check_all_used("validate");
  const std::string path = path_arg(path_arg_object);
  std::string json;
  without_gil([&] {
    std::optional<asdfcore::schema::Validator> own;
    if (!dirs.empty() || max_findings != 1000) {
      own.emplace(asdfcore::schema::SchemaRegistry::with_defaults(
          std::vector<std::filesystem::path>(dirs.begin(), dirs.end())));
      own->set_max_findings(max_findings);
      options.validator = &*own;
    }
    json = to_json(validate_file(path, open, options));
  });
  return json;
}

}  // namespace

void bind_convert(py::module_& m) {
  m.def("convert", &convert, py::arg("input"), py::arg("output") = py::none(),
        "Convert a file (see fitsasdf.convert); return (report JSON, direction).");
  m.def("verify", &verify, py::arg("fits"), py::arg("other") = py::none(),
        "Verify a round trip (see fitsasdf.verify); return the report as JSON.");
  m.def("diff", &diff, py::arg("a"), py::arg("b"),
        "Compare two files (see fitsasdf.diff); return the report as JSON.");
  m.def("validate", &validate, py::arg("path"),
        "Check a file (see fitsasdf.validate); return the report as JSON.");
}

}  // namespace fitsasdf::python
