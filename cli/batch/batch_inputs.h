#pragma once
// The inputs of `fitsasdf batch`: files and folders (recursed) and --from lists become a list of
// items, each with its output under OUTDIR, its direction told by content and its shard.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fitsasdf::cli::batch {

/// One input: where it is and its path relative to the root it was found under (the file name
/// for a file given by itself), which names its output and decides its shard.
struct Item {
  std::string input;        ///< As given or found (folder + relative).
  std::string relative;     ///< '/'-separated.
  bool asdf_input = false;  ///< The direction, told by content ("#ASDF" magic).
  std::uint64_t size = 0;   ///< Bytes of the input when listed (0 when unreadable).
  std::string output;       ///< Under OUTDIR, mirroring `relative`.
  std::string clash;        ///< Why the input is refused (another input has its output).
};

/// Shard K of N (0 <= K < N).
struct Shard {
  std::uint64_t k = 0;
  std::uint64_t n = 1;
};

/// Return the 64-bit FNV-1a hash of `bytes`: fixed, so shards are the same on every build and
/// machine.
std::uint64_t fnv1a(const std::string& bytes);

/// Parse "K/N" (0 <= K < N); throw a usage error for anything else.
Shard parse_shard(const std::string& value);

/// Read the paths of a --from list ("-" for standard input), one a line, blank lines skipped.
/// Throws `asdfcore::Error` (io) when the list cannot be read.
std::vector<std::string> read_list(const std::string& name);

/// List the items of `roots` (folders recursed in sorted order, the folder `outdir` left out;
/// files as given, a missing one kept so that its conversion says what is wrong), keep those of
/// `shard`, and give each its direction, size and output under `outdir`. Of two inputs with the
/// same output the first in list order wins; the other gets a `clash`. Memory: one Item per
/// input of the shard (three paths as strings).
std::vector<Item> list_items(const std::vector<std::string>& roots,
                             const std::filesystem::path& outdir,
                             const std::optional<Shard>& shard);

}  // namespace fitsasdf::cli::batch
