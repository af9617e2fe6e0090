#pragma once
// The block-checksum options of every command that writes ASDF blocks (--checksum,
// --no-checksum), documented in README.md ("Block checksums").
#include <boost/program_options.hpp>
#include <string>

#include "asdfcore/format/container_writer.h"

namespace fitsasdf::cli {

/// Add --checksum stored|decoded|none and its short form --no-checksum to `opts`.
inline void add_checksum_options(boost::program_options::options_description& opts) {
  namespace po = boost::program_options;
  opts.add_options()(
      "checksum", po::value<std::string>()->default_value("stored"),
      "block MD5s: stored (of the bytes on disk, as the standard says), decoded (of the decoded "
      "data, which python asdf up to 5.2 checks with validate_checksums=True; differs only for "
      "compressed blocks) or none")(
      "no-checksum", "store no MD5 checksums in the block headers, as --checksum none (faster "
      "for large images)");
}

/// The checksum convention the command line asks for; throws a usage error for a bad value or
/// --no-checksum beside another --checksum.
inline asdfcore::format::ChecksumConvention read_checksum_option(
    const boost::program_options::variables_map& vm) {
  using asdfcore::format::ChecksumConvention;
  const std::string value = vm["checksum"].as<std::string>();
  const auto named = asdfcore::format::checksum_convention_named(value);
  if (!named) {
    throw boost::program_options::error("--checksum takes stored, decoded or none, not '" +
                                        value + "'");
  }
  ChecksumConvention convention = *named;
  if (vm.count("no-checksum")) {
    if (!vm["checksum"].defaulted() && convention != ChecksumConvention::kNone) {
      throw boost::program_options::error("--no-checksum contradicts --checksum " + value);
    }
    convention = ChecksumConvention::kNone;
  }
  return convention;
}

}  // namespace fitsasdf::cli
