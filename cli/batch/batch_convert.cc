// Converting, skipping and verifying one input of `fitsasdf batch`.
#include "batch/batch_convert.h"

#include <chrono>
#include <system_error>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/walk.h"
#include "batch/batch_stop.h"
#include "batch/external_sort.h"
#include "fits/fits_file.h"
#include "fitsasdf/diff.h"
#include "fitsasdf/verify.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

std::uint64_t size_or_zero(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

/// True when `output` exists, is not older than `input` and is complete.
bool up_to_date(const fs::path& input, const fs::path& output, bool asdf_output) {
  std::error_code ec;
  if (!fs::is_regular_file(output, ec)) return false;
  const auto out_time = fs::last_write_time(output, ec);
  if (ec) return false;
  const auto in_time = fs::last_write_time(input, ec);
  if (ec || out_time < in_time) return false;
  return complete(output, asdf_output);
}

/// Return true when the error `e`, met writing `output`, is fatal to the batch; `why` then says
/// what happened.
bool fatal_error(const asdfcore::Error& e, const fs::path& output, std::string& why) {
  if (e.code() != asdfcore::ErrorCode::kIo) return false;
  // Only errors of the output or its temporary (".NAME.tmp-XXXXXX" beside it): a read error of
  // an input is that input's failure.
  const fs::path file(e.context().file);
  const bool ours = file == output || (file.parent_path() == output.parent_path() &&
                                       file.filename().string().rfind(
                                           "." + output.filename().string() + ".tmp-", 0) == 0);
  if (!ours) return false;
  // Reading an input while copying it into the output (AtomicFile::copy_from) names the output.
  if (e.message().find("cannot read") != std::string::npos) return false;
  const int code = fatal_errno_in(e.message());
  if (code == 0) return false;
  why = describe_fatal(code) + ": " + e.what();
  return true;
}

/// Verify `output` against `input` and put the verdict into `line` ("identical", "different" or
/// "error", and a message). FITS input: the ASDF output converted back to FITS is compared with
/// the input card by card and byte by byte, and its block checksums are checked (as `fitsasdf
/// verify IN OUT`). ASDF input: the FITS output converted back to ASDF has the input's tree and
/// arrays (as `fitsasdf diff IN BACK --ignore /asdf_library,/history`). Return true when
/// identical.
bool verify_output(const Item& item, const ConvertSettings& settings, Line& line) {
  std::string verdict = "identical";
  std::string message;
  try {
    if (!item.asdf_input) {
      VerifyOptions options;
      options.convert = settings.to_asdf;
      options.convert.durable = false;
      options.max_listed = 3;
      const VerifyReport report = verify_pair(item.input, item.output, options);
      if (!report.equivalent()) {
        verdict = "different";
        for (const auto& block : report.blocks) {
          if (!block.ok()) {
            message = "block " + std::to_string(block.block) + ": checksum " + block.status;
            break;
          }
        }
        if (message.empty()) {
          const auto& c = report.comparison;
          message = "the output converted back differs from the input";
          for (const auto& hdu : c.hdus) {
            if (!hdu.equivalent()) {
              message += " in HDU " + std::to_string(hdu.hdu_a);
              break;
            }
          }
          if (!c.missing_hdus.empty() || !c.extra_hdus.empty())
            message += " (HDUs missing or extra)";
        }
      }
    } else {
      const WorkFolder scratch(fs::temp_directory_path(), "fitsasdf-batch-verify-");
      const fs::path back = scratch.path() / "back.asdf";
      // The command's FITS-to-ASDF options, reading the embedded tree back as `convert` does.
      ConvertOptions options = settings.to_asdf;
      options.embedded_tree = true;
      options.durable = false;
      convert_fits_to_asdf(item.output, back.string(), options);
      CompareOptions compare;
      compare.ignore_paths = {"/asdf_library", "/history"};
      compare.max_listed = 1;
      const AsdfComparison c = compare_asdf(item.input, back.string(), compare);
      if (!c.identical()) {
        verdict = "different";
        message = std::to_string(c.total) + " differences between the input and the output " +
                  "converted back to ASDF";
        if (!c.differences.empty()) message += ", first at " + c.differences.front().path;
      }
    }
  } catch (const std::exception& e) {
    verdict = "error";
    message = e.what();
  }
  for (char& ch : message) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  line["verify"] = verdict;
  line["verify_message"] = message;
  return verdict == "identical";
}

}  // namespace

bool complete(const fs::path& output, bool asdf_output) {
  try {
    if (asdf_output) {
      asdfcore::OpenOptions open;
      open.verify_checksums = true;  // blocks that carry an MD5 must match it
      const auto file = asdfcore::AsdfFile::open(output.string(), open);
      if (!file.container().problems().empty()) return false;
      for (const auto& block : file.container().blocks()) {
        if (!block.problem.empty()) return false;
      }
      const auto& blocks = file.blocks();
      const auto count = static_cast<std::int64_t>(blocks.block_count());
      for (std::int64_t i = 0; i < count; ++i) (void)blocks.block(i);
      // A file cut in the room after its tree has no blocks left, yet opens: every block its
      // arrays name must be there.
      bool all_there = true;
      asdfcore::tree::walk(file.tree(), [&](const asdfcore::tree::NodePtr& node, const std::string&) {
        if (asdfcore::tree::is_ndarray(*node) && node->is_mapping()) {
          const auto source = node->get("source");
          if (source && source->kind() == asdfcore::tree::NodeKind::kInt) {
            const std::int64_t s = source->as_int();
            if (s >= count || s < -count) all_there = false;
          }
        }
        return all_there;
      });
      return all_there;
    }
    // The HDU walk refuses a file cut inside a header or data; an output whose last padding is
    // short was written so (the input's was, kept under fits_trailer).
    const auto file = fits::FitsFile::open(output.string());
    return !file.hdus().empty();
  } catch (const std::exception&) {
    return false;
  }
}

Outcome convert_one(const Item& item, const ConvertSettings& settings,
                    const std::optional<Line>& earlier) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path output(item.output);
  Outcome outcome;
  std::string status = "ok";
  std::string error;
  std::uint64_t bytes_out = 0;
  Line findings = Line::array();
  const std::uint64_t bytes_in = size_or_zero(item.input);
  try {
    if (!item.clash.empty()) {
      throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument, item.clash,
                            asdfcore::ErrorContext{.file = item.input});
    }
    if (up_to_date(item.input, output, !item.asdf_input)) {
      status = "skipped";
      bytes_out = size_or_zero(output);
    } else {
      std::error_code ec;
      fs::create_directories(output.parent_path(), ec);
      if (ec && fatal_errno(ec.value())) {
        outcome.fatal =
            describe_fatal(ec.value()) + ": cannot create " + output.parent_path().string();
        return outcome;
      }
      if (ec) {
        throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                              "cannot create the output's folder: " + ec.message(),
                              asdfcore::ErrorContext{.file = output.parent_path().string()});
      }
      const ConversionReport r =
          item.asdf_input ? convert_asdf_to_fits(item.input, output.string(), settings.to_fits)
                          : convert_fits_to_asdf(item.input, output.string(), settings.to_asdf);
      bytes_out = r.bytes_out;
      for (const auto& f : r.all_findings()) {
        findings.push_back({{"hdu", f.hdu}, {"code", f.code}, {"message", f.message}});
      }
    }
  } catch (const asdfcore::Error& e) {
    if (fatal_error(e, output, outcome.fatal)) return outcome;
    status = "failed";
    error = "[" + std::string(asdfcore::error_code_name(e.code())) + "] " + e.what();
  } catch (const std::exception& e) {  // memory
    status = "failed";
    error = e.what();
  }
  for (char& ch : error) {  // one line on stderr
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  Line& line = outcome.line;
  line["input"] = item.input;
  line["output"] = output.string();
  line["status"] = status;
  line["error"] = error;
  line["bytes_in"] = bytes_in;
  line["bytes_out"] = bytes_out;
  if (!findings.empty()) line["findings"] = std::move(findings);
  if (settings.verify && status != "failed") {
    const bool verified_before = status == "skipped" && earlier &&
                                 earlier->value("status", "") == "ok" &&
                                 earlier->value("output", "") == output.string() &&
                                 earlier->value("verify", "") == "identical";
    if (!verified_before && !verify_output(item, settings, line)) {
      line["status"] = "failed";
      line["error"] = "verification: " + line["verify"].get<std::string>() + ": " +
                      line["verify_message"].get<std::string>();
    }
  }
  line["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace fitsasdf::cli::batch
