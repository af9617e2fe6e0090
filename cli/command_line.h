#pragma once
// The command-line parsing every subcommand shares: options plus positional arguments, --help
// printing the options, and the option values several subcommands take alike.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace fitsasdf::cli {

/// Parse `args` against `opts`, the first `count` positional arguments (-1: all of them) going
/// to `positional`. Return false when --help was asked for (the options have then been
/// printed, after "Usage: " and the caption, whose first line is the synopsis help2man puts
/// in the man page).
inline bool parse_command_line(const std::vector<std::string>& args,
                               const boost::program_options::options_description& opts,
                               const char* positional, boost::program_options::variables_map& vm,
                               int count = 1) {
  namespace po = boost::program_options;
  po::positional_options_description pos;
  pos.add(positional, count);
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "Usage: " << opts;
    return false;
  }
  return true;
}

/// Return the values of the repeatable option `name` (none when it was not given).
inline std::vector<std::string> values_of(const boost::program_options::variables_map& vm,
                                          const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

/// Return the block compression a --compress value names ("" for none); throw a usage error
/// for anything but zlib, bzp2, lz4 or none.
inline std::string block_compression(const std::string& value) {
  if (value == "none") return "";
  if (value == "zlib" || value == "bzp2" || value == "lz4") return value;
  throw boost::program_options::error("--compress takes zlib, bzp2, lz4 or none, not '" + value +
                                      "'");
}

}  // namespace fitsasdf::cli
