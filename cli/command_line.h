#pragma once
// The command-line parsing every subcommand shares: options plus one positional argument, and
// --help printing the options.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace fitsasdf::cli {

/// Parse `args` against `opts`, the first positional argument going to `positional`. Return
/// false when --help was asked for (the options have then been printed).
inline bool parse_command_line(const std::vector<std::string>& args,
                               const boost::program_options::options_description& opts,
                               const char* positional, boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  po::positional_options_description pos;
  pos.add(positional, 1);
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return false;
  }
  return true;
}

}  // namespace fitsasdf::cli
