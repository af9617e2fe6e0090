// `fitsasdf info`: the layout of an ASDF file, or the HDUs and headers of a FITS file (as
// astropy's fitsinfo and fitsheader show them), for people (a table) or programs (--json).
#include <boost/program_options.hpp>
#include <iomanip>
#include <iostream>
#include <utility>
#include <nlohmann/json.hpp>

#include "asdfcore/asdf_file.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "fits_info_report.h"
#include "fitsasdf/fits_info.h"
#include "limit_options.h"
#include "tree_report.h"

namespace po = boost::program_options;
using asdfcore::format::ChecksumStatus;
using asdfcore::format::Container;
using asdfcore::format::LayoutProblem;
using nlohmann::ordered_json;

namespace fitsasdf::cli {
namespace {

/// Decode block `i` if possible: its MD5, its decoded size, or the reason it cannot be decoded.
struct Decoded {
  std::optional<std::string> md5;
  std::optional<std::uint64_t> size;
  std::string error;
};

Decoded decode(const Container& file, std::size_t i) {
  Decoded d;
  try {
    const auto data = file.data(i);
    d.md5 = asdfcore::compression::to_hex(asdfcore::compression::md5(data.span()));
    d.size = data.size();
  } catch (const asdfcore::Error& e) {
    d.error = e.message();
  }
  return d;
}

std::string_view problem_kind(LayoutProblem::Kind kind) {
  switch (kind) {
    case LayoutProblem::Kind::kBrokenChain: return "broken-chain";
    case LayoutProblem::Kind::kStaleIndex: return "stale-index";
    case LayoutProblem::Kind::kTrailingBytes: return "trailing-bytes";
  }
  return "unknown";
}

ordered_json block_json(const Container& file, std::size_t i) {
  const auto& b = file.blocks()[i];
  const auto& h = b.header;
  ordered_json j;
  j["offset"] = b.offset;
  j["header_size"] = h.header_size;
  j["flags"] = h.flags;
  j["streamed"] = h.streamed();
  const std::string label = h.compression_label();
  j["compression"] = label.empty() ? ordered_json(nullptr) : ordered_json(label);
  j["allocated_size"] = h.allocated_size;
  j["used_size"] = h.used_size;
  j["data_size"] = h.data_size;
  j["checksum"] = h.has_checksum() ? ordered_json(asdfcore::compression::to_hex(h.checksum))
                                   : ordered_json(nullptr);
  if (!b.problem.empty()) {
    j["checksum_ok"] = nullptr;
    j["data_md5"] = nullptr;
    j["error"] = b.problem;
    return j;
  }
  const ChecksumStatus status = file.check(i);
  switch (status) {
    case ChecksumStatus::kMatchesStored:
    case ChecksumStatus::kMatchesDecoded: j["checksum_ok"] = true; break;
    case ChecksumStatus::kMismatch: j["checksum_ok"] = false; break;
    default: j["checksum_ok"] = nullptr; break;
  }
  j["checksum_match"] = status == ChecksumStatus::kUnchecked
                            ? ordered_json(nullptr)
                            : ordered_json(asdfcore::format::checksum_status_name(status));
  const Decoded d = decode(file, i);
  j["data_md5"] = d.md5 ? ordered_json(*d.md5) : ordered_json(nullptr);
  if (d.size) j["decoded_size"] = *d.size;
  if (h.streamed()) j["used_size_actual"] = b.stored_size;
  if (!d.error.empty()) j["error"] = d.error;
  return j;
}

// What a pre-1.0 file was: the rest of the report describes the ASDF 1.0.0 file it reads as.
ordered_json legacy_json(const asdfcore::format::LegacyInfo& legacy) {
  ordered_json j;
  j["header_line"] = legacy.header_line;
  j["file_format_version"] = legacy.file_format_version;
  ordered_json blocks = ordered_json::array();
  for (const auto& b : legacy.blocks) {
    blocks.push_back({{"offset", b.offset},
                      {"magic", b.magic},
                      {"header_size", b.header_size},
                      {"layout", b.layout},
                      {"streamed", b.streamed},
                      {"used_size", b.used_size},
                      {"decoded_size", b.decoded_size},
                      {"encodings", b.encodings},
                      {"checksum", b.checksum.empty() ? ordered_json(nullptr) : ordered_json(b.checksum)},
                      {"problem", b.problem.empty() ? ordered_json(nullptr) : ordered_json(b.problem)}});
  }
  j["blocks"] = std::move(blocks);
  ordered_json tags = ordered_json::array();
  for (const auto& [old_tag, new_tag] : legacy.tags) tags.push_back({old_tag, new_tag});
  j["tags"] = std::move(tags);
  j["dtype_renamed"] = legacy.dtype_renamed;
  return j;
}

ordered_json layout_json(const Container& file, bool with_blocks) {
  ordered_json j;
  j["file"] = file.name();
  j["file_format_version"] = file.prologue().file_format_version;
  j["asdf_standard"] = file.prologue().asdf_standard;
  j["comments"] = file.prologue().comments;
  j["tree_offset"] = file.prologue().tree_offset ? ordered_json(*file.prologue().tree_offset)
                                                  : ordered_json(nullptr);
  j["tree_size"] = file.prologue().tree_size;
  if (with_blocks) {
    ordered_json blocks = ordered_json::array();
    for (std::size_t i = 0; i < file.blocks().size(); ++i) blocks.push_back(block_json(file, i));
    // A break in the chain of blocks is listed where it happens, as an entry of its own.
    for (const auto& p : file.problems()) {
      if (p.kind == LayoutProblem::Kind::kBrokenChain) {
        blocks.push_back(ordered_json{{"offset", p.offset}, {"error", p.message}});
      }
    }
    j["blocks"] = std::move(blocks);
  } else {
    j["n_blocks"] = file.blocks().size();
  }
  const auto& index = file.block_index();
  j["block_index"] = index ? ordered_json(index->entries) : ordered_json(nullptr);
  j["block_index_valid"] = file.block_index_valid();
  ordered_json problems = ordered_json::array();
  for (const auto& p : file.problems()) {
    problems.push_back({{"kind", problem_kind(p.kind)}, {"offset", p.offset}, {"message", p.message}});
  }
  j["problems"] = std::move(problems);
  if (const auto& legacy = file.legacy()) j["legacy"] = legacy_json(*legacy);
  return j;
}

void print_text(const Container& file, const ordered_json& j, bool with_blocks) {
  std::cout << file.name() << "\n";
  if (const auto& legacy = file.legacy()) {
    // The original dialect, then the ASDF 1.0.0 file it reads as.
    std::cout << "  legacy dialect: `" << legacy->header_line << "`, blocks:";
    if (legacy->blocks.empty()) std::cout << " none";
    for (const auto& b : legacy->blocks) {
      std::cout << " [" << b.magic << " " << b.header_size << " bytes";
      for (const auto& e : b.encodings) std::cout << " " << e;
      if (b.streamed) std::cout << " streamed";
      if (!b.problem.empty()) std::cout << " UNREADABLE";
      std::cout << "]";
    }
    std::cout << "\n  read as ASDF 1.0.0 (tags mapped to their 1.0.0 versions"
              << (legacy->dtype_renamed ? ", dtype read as datatype" : "") << "):\n";
  }
  std::cout << "  file format " << file.prologue().file_format_version << ", ASDF Standard "
            << file.prologue().asdf_standard
            << (file.prologue().asdf_standard_declared ? "" : " (not declared)") << "\n";
  if (file.prologue().tree_offset) {
    std::cout << "  tree: " << file.prologue().tree_size << " bytes at offset "
              << *file.prologue().tree_offset << "\n";
  } else {
    std::cout << "  tree: none\n";
  }
  std::cout << "  blocks: " << file.blocks().size();
  if (file.block_index()) {
    std::cout << ", block index " << (file.block_index_valid() ? "valid" : "ignored (stale)");
  } else if (!file.blocks().empty()) {
    std::cout << ", no block index";
  }
  std::cout << "\n";
  if (with_blocks) {
    std::cout << "  " << std::left << std::setw(4) << "#" << std::setw(12) << "offset"
              << std::setw(6) << "codec" << std::setw(14) << "used" << std::setw(14) << "data"
              << std::setw(10) << "checksum" << "data md5\n";
    std::size_t i = 0;
    for (const auto& b : j["blocks"]) {
      if (!b.contains("header_size")) continue;
      std::string sum = "none";
      if (!b["checksum_ok"].is_null()) sum = b["checksum_ok"].get<bool>() ? "ok" : "MISMATCH";
      std::cout << "  " << std::setw(4) << i++ << std::setw(12) << b["offset"].get<std::uint64_t>()
                << std::setw(6)
                << (b["compression"].is_null() ? "-" : b["compression"].get<std::string>())
                << std::setw(14) << b["used_size"].get<std::uint64_t>() << std::setw(14)
                << b["data_size"].get<std::uint64_t>() << std::setw(10) << sum
                << (b["data_md5"].is_null() ? "-" : b["data_md5"].get<std::string>())
                << (b["streamed"].get<bool>() ? "  (streamed)" : "") << "\n";
    }
  }
  for (const auto& p : file.problems()) {
    std::cout << "  problem at byte " << p.offset << ": " << p.message << "\n";
  }
}

/// `info` of a FITS file: the HDU table, or with --header the cards.
int run_fits_info(const std::string& path, const std::string& hdu_key,
                  const po::variables_map& vm) {
  for (const char* asdf_only : {"blocks", "max-lines"}) {
    if (vm.count(asdf_only) && !vm[asdf_only].defaulted()) {
      throw po::error(std::string("--") + asdf_only + " applies to ASDF files, and " + path +
                      " is a FITS file (--header shows its cards)");
    }
  }
  if (vm.count("compressed") && !vm.count("header")) {
    throw po::error("--compressed goes with --header");
  }
  const FitsInfo info = describe_fits(path, read_limits(vm).max_memory);
  const bool headers = vm.count("header") > 0;
  HduChoice choice;
  if (headers && !hdu_key.empty()) {
    choice.key = hdu_key;
    choice.index = find_hdu(info, choice.key);
  }
  const bool stored = vm.count("compressed") > 0;
  if (vm.count("json")) {
    std::cout << fits_info_json(info, headers, choice, stored).dump(1) << "\n";
  } else if (headers) {
    print_fits_headers(std::cout, info, choice, stored);
  } else {
    print_fits_table(std::cout, info);
  }
  return kExitOk;
}

}  // namespace

int run_info(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf info FILE [options]\n"
      "An ASDF file: its layout and an outline of its tree (--blocks: every block).\n"
      "A FITS file (also .gz, .bz2, .Z; told by content): its HDUs as astropy's fitsinfo lists\n"
      "them (No., Name, Ver, Type, Cards, Dimensions, Format; a tile-compressed image as the\n"
      "image it holds), or with --header their cards as fitsheader prints them; an ASDF\n"
      "extension (ASDF-in-FITS) is pointed out (`fitsasdf extract` writes it out)");
  opts.add_options()("help,h", "show this help")("blocks", "ASDF: list every block")(
      "json", "print one JSON object instead of text")(
      "max-lines", po::value<std::size_t>()->default_value(200), "ASDF: lines of the tree outline")(
      "header", po::value<std::string>()->implicit_value("")->value_name("HDU"),
      "FITS: print the cards (as fitsheader) of every HDU, or of HDU: a number from 0, an "
      "EXTNAME, or EXTNAME,EXTVER")(
      "compressed", "FITS, with --header: a tile-compressed image's own cards (the table's), not "
      "the image's")("file", po::value<std::string>(), "the ASDF or FITS file");
  add_limit_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "file", vm)) return kExitOk;
  // `--header [HDU]`: the option takes the next word when there is one, so in
  // `info --header FILE` that word is the file.
  std::string hdu_key = vm.count("header") ? vm["header"].as<std::string>() : "";
  std::string path;
  if (vm.count("file")) {
    path = vm["file"].as<std::string>();
  } else if (!hdu_key.empty()) {
    path = std::exchange(hdu_key, "");
  }
  if (path.empty()) {
    std::cerr << "fitsasdf info: no FILE given (see fitsasdf info --help)\n";
    return kExitUsage;
  }
  if (is_fits_file(path)) return run_fits_info(path, hdu_key, vm);
  for (const char* fits_only : {"header", "compressed"}) {
    if (vm.count(fits_only)) {
      throw po::error(std::string("--") + fits_only + " applies to FITS files, and " + path +
                      " is not one (--blocks lists an ASDF file's blocks)");
    }
  }
  const asdfcore::OpenOptions open = read_limits(vm).open_options();
  const Container file = Container::open(path, open.layout);
  const bool with_blocks = vm.count("blocks") > 0;
  ordered_json j = layout_json(file, with_blocks);
  // The tree: with --blocks a broken tree is reported and the block list still shown.
  std::optional<asdfcore::AsdfFile> asdf;
  try {
    asdf = asdfcore::AsdfFile::open(path, open);
  } catch (const asdfcore::Error& e) {
    if (!with_blocks) throw;
    j["tree_error"] = e.what();
  }
  if (asdf) {
    j["tags"] = tag_map(*asdf);
    j["arrays"] = array_summaries(*asdf);
    j["warnings"] = asdf->warnings();
  }
  if (vm.count("json")) {
    std::cout << j.dump(1) << "\n";
    return kExitOk;
  }
  print_text(file, j, with_blocks);
  if (asdf) {
    std::cout << "\n" << outline(*asdf, vm["max-lines"].as<std::size_t>());
  } else {
    std::cout << "  tree: cannot be read: " << j["tree_error"].get<std::string>() << "\n";
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
