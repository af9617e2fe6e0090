#pragma once
// The resource-limit options every command that reads a file takes (--max-memory,
// --max-tree-nodes, --max-depth, --max-alias-nodes), documented in README.md ("Limits").
#include <boost/program_options.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "fitsasdf/options.h"

namespace fitsasdf::cli {

/// Parse a byte count: digits with an optional K, M, G or T suffix (powers of 1024; a
/// trailing "iB" or "B" is accepted). Throws a usage error for anything else or 0.
inline std::uint64_t parse_byte_count(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return boost::program_options::error(option + " takes a byte count such as 500M or 8G, not '" +
                                         text + "'");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) throw bad();
  std::uint64_t value = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  if (unit.ends_with("iB"))
    unit.resize(unit.size() - 2);
  else if (unit.ends_with("B"))
    unit.resize(unit.size() - 1);
  int shift = 0;
  if (unit == "K" || unit == "k")
    shift = 10;
  else if (unit == "M")
    shift = 20;
  else if (unit == "G")
    shift = 30;
  else if (unit == "T")
    shift = 40;
  else if (!unit.empty())
    throw bad();
  if (value == 0 || value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad();
  return value << shift;
}

/// Add --max-memory, --max-tree-nodes, --max-depth and --max-alias-nodes to `opts`.
inline void add_limit_options(boost::program_options::options_description& opts) {
  namespace po = boost::program_options;
  const ReadLimits defaults;
  opts.add_options()(
      "max-memory", po::value<std::string>()->default_value("8G"),
      "largest buffer an input's own size fields may make fitsasdf allocate (a decoded block, "
      "a decompressed .gz/.bz2 stream or tile-compressed image); K, M, G, T suffixes")(
      "max-tree-nodes", po::value<std::size_t>()->default_value(defaults.max_tree_nodes),
      "most nodes an ASDF tree may have (aliases count as what they repeat)")(
      "max-depth", po::value<std::size_t>()->default_value(defaults.max_depth),
      "deepest nesting of an ASDF tree")(
      "max-alias-nodes", po::value<std::size_t>()->default_value(defaults.max_alias_nodes),
      "most nodes an ASDF tree may reach through YAML aliases, in total");
}

/// Return the limits the command line asks for.
inline ReadLimits read_limits(const boost::program_options::variables_map& vm) {
  ReadLimits limits;
  limits.max_memory = parse_byte_count(vm["max-memory"].as<std::string>(), "--max-memory");
  limits.max_tree_nodes = vm["max-tree-nodes"].as<std::size_t>();
  limits.max_depth = vm["max-depth"].as<std::size_t>();
  limits.max_alias_nodes = vm["max-alias-nodes"].as<std::size_t>();
  if (limits.max_tree_nodes == 0 || limits.max_depth == 0) {
    throw boost::program_options::error("--max-tree-nodes and --max-depth must be at least 1");
  }
  return limits;
}

}  // namespace fitsasdf::cli
