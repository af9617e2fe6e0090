// `fitsasdf validate FILE...`: is each file sound? Layout, blocks decoded, checksums (either
// convention), ndarray bounds, references, and every tagged node against its schema. Exit 0
// when every file is sound, 1 when any has findings, 2 when any cannot be checked at all.
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "asdfcore/error.h"
#include "asdfcore/schema/validator.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fitsasdf/report_json.h"
#include "fitsasdf/validate_file.h"
#include "limit_options.h"

namespace po = boost::program_options;
using nlohmann::ordered_json;

namespace fitsasdf::cli {
namespace {

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

void print_text(const asdfcore::FileValidation& r) {
  std::cout << r.file << ": ";
  if (r.sound()) {
    std::cout << "sound";
  } else {
    std::cout << r.findings.size() << (r.findings.size() == 1 ? " finding" : " findings");
  }
  std::cout << " (ASDF Standard " << r.asdf_standard << "; " << r.blocks << " blocks, "
            << r.arrays << " arrays, " << r.tagged_nodes << " tagged nodes checked)\n";
  for (const auto& f : r.findings) {
    std::cout << "  " << asdfcore::finding_kind_name(f.kind);
    if (!f.pointer.empty() || f.kind == asdfcore::FindingKind::kSchema) {
      std::cout << " at " << (f.pointer.empty() ? "/" : f.pointer);
    }
    if (f.block) std::cout << " block " << *f.block;
    if (f.offset) std::cout << " byte " << *f.offset;
    std::cout << ": " << one_line(f.message);
    if (!f.schema_uri.empty()) std::cout << " [" << f.schema_uri << "#" << f.keyword << "]";
    std::cout << "\n";
  }
  for (const auto& note : r.notes) std::cout << "  note: " << one_line(note) << "\n";
  for (const auto& tag : r.unknown_tags) {
    std::cout << "  note: no schema for the tag " << tag << " (not checked)\n";
  }
  for (const auto& uri : r.missing_schemas) {
    std::cout << "  note: the schema " << uri << " is not installed (not checked)\n";
  }
}

}  // namespace

int run_validate(const std::vector<std::string>& args) {
  po::options_description opts("fitsasdf validate FILE... [options]");
  opts.add_options()("help,h", "show this help")(
      "json", "print one JSON object (a list of files with their findings) instead of text")(
      "schema-path", po::value<std::vector<std::string>>()->composing(),
      "a folder of extra schemas and manifests, searched before the installed ones "
      "(repeatable; FITSASDF_SCHEMA_PATH lists more, separated by ':')")(
      "no-schemas", "skip the schema checks (layout, blocks, arrays and references only)")(
      "no-blocks", "skip decoding the blocks and checking their checksums")(
      "max-findings", po::value<std::size_t>()->default_value(1000),
      "schema findings listed per file at most (0: all)")(
      "file", po::value<std::vector<std::string>>(), "ASDF files, or FITS files with an ASDF "
      "extension");
  add_limit_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "file", vm, -1)) return kExitOk;
  const auto files = values_of(vm, "file");
  if (files.empty()) {
    std::cerr << "fitsasdf validate: no FILE given (see fitsasdf validate --help)\n";
    return kExitUsage;
  }
  std::vector<std::filesystem::path> dirs;
  for (const auto& d : values_of(vm, "schema-path")) {
    if (!std::filesystem::is_directory(d)) {
      throw po::error("--schema-path " + d + " is not a folder");
    }
    dirs.emplace_back(d);
  }
  asdfcore::schema::Validator validator(asdfcore::schema::SchemaRegistry::with_defaults(dirs));
  validator.set_max_findings(vm["max-findings"].as<std::size_t>());
  asdfcore::ValidateOptions options;
  options.validator = &validator;
  options.schemas = vm.count("no-schemas") == 0;
  options.blocks = vm.count("no-blocks") == 0;
  const asdfcore::OpenOptions open = read_limits(vm).open_options();
  const bool json = vm.count("json") > 0;

  int status = kExitOk;
  ordered_json report = ordered_json::array();
  for (const auto& file : files) {
    try {
      const asdfcore::FileValidation result = validate_file(file, open, options);
      if (!result.sound() && status == kExitOk) status = kExitDifferent;
      if (json) {
        report.push_back(ordered_json::parse(to_json(result)));
      } else {
        print_text(result);
      }
    } catch (const asdfcore::Error& e) {
      if (e.code() == asdfcore::ErrorCode::kIo && status != kExitBadInput) status = kExitIo;
      if (e.code() != asdfcore::ErrorCode::kIo) status = kExitBadInput;
      if (json) {
        report.push_back({{"file", file},
                          {"status", "unreadable"},
                          {"error", {{"category", asdfcore::error_code_name(e.code())},
                                     {"message", one_line(e.what())}}}});
      } else {
        std::cerr << "fitsasdf: error [" << asdfcore::error_code_name(e.code())
                  << "]: " << one_line(e.what()) << "\n";
      }
    }
  }
  if (json) std::cout << ordered_json{{"files", std::move(report)}}.dump(2) << "\n";
  return status;
}

}  // namespace fitsasdf::cli
