// `fitsasdf to-yaml | defragment | explode | implode`: whole-file rewrites of ASDF files.
#include <boost/program_options.hpp>
#include <iostream>

#include "asdfcore/rewrite.h"
#include "checksum_options.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"

namespace po = boost::program_options;

namespace fitsasdf::cli {
namespace {

struct Parsed {
  std::string input;
  std::string output;
  asdfcore::RewriteOptions options;
  bool help = false;
};

/// Parse "IN -o OUT [--compress C] [--standard V] [--no-index] [--checksum K]" shared by the
/// rewrites.
Parsed parse(const std::string& name, const std::vector<std::string>& args, bool compress) {
  po::options_description opts("fitsasdf " + name + " IN -o OUT [options]");
  opts.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                  "the file to write")(
      "standard", po::value<std::string>(), "ASDF Standard version to declare (default: input's)")(
      "no-index", "do not write a block index")(
      "tree-padding", po::value<std::uint64_t>(),
      "leave this many spare bytes after the tree, so that `fitsasdf edit` can later change it in "
      "place (default 0: compact)")("input", po::value<std::string>(), "the input");
  const bool blocks = name != "to-yaml";  // to-yaml writes no blocks
  if (blocks) add_checksum_options(opts);
  if (compress) {
    opts.add_options()("compress", po::value<std::string>()->default_value("input"),
                       "block compression: zlib, bzp2, lz4, none, or input (keep each block's)");
  }
  po::variables_map vm;
  Parsed p;
  if (!parse_command_line(args, opts, "input", vm)) {
    p.help = true;
    return p;
  }
  if (!vm.count("input") || !vm.count("output")) {
    throw po::error("fitsasdf " + name + " needs an input and -o OUTPUT");
  }
  p.input = vm["input"].as<std::string>();
  p.output = vm["output"].as<std::string>();
  if (vm.count("standard")) p.options.asdf_standard = vm["standard"].as<std::string>();
  if (vm.count("no-index")) p.options.layout.block_index = false;
  if (vm.count("tree-padding")) p.options.layout.tree_padding = vm["tree-padding"].as<std::uint64_t>();
  if (blocks) p.options.layout.checksum = read_checksum_option(vm);
  if (compress) {
    const std::string c = vm["compress"].as<std::string>();
    if (c == "none") {
      p.options.compression = "";
    } else if (c == "zlib" || c == "bzp2" || c == "lz4") {
      p.options.compression = c;
    } else if (c != "input") {
      throw po::error("--compress takes zlib, bzp2, lz4, none or input, not '" + c + "'");
    }
  }
  return p;
}

}  // namespace

int run_to_yaml(const std::vector<std::string>& args) {
  const Parsed p = parse("to-yaml", args, false);
  if (!p.help) asdfcore::inline_arrays(p.input, p.output, p.options);
  return kExitOk;
}

int run_defragment(const std::vector<std::string>& args) {
  const Parsed p = parse("defragment", args, true);
  if (!p.help) asdfcore::defragment(p.input, p.output, p.options);
  return kExitOk;
}

int run_explode(const std::vector<std::string>& args) {
  const Parsed p = parse("explode", args, false);
  if (p.help) return kExitOk;
  for (const auto& written : asdfcore::explode(p.input, p.output, p.options)) {
    std::cout << written << "\n";
  }
  return kExitOk;
}

int run_implode(const std::vector<std::string>& args) {
  const Parsed p = parse("implode", args, true);
  if (!p.help) asdfcore::implode(p.input, p.output, p.options);
  return kExitOk;
}

}  // namespace fitsasdf::cli
