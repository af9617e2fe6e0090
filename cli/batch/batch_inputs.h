#pragma once
// The inputs of `fitsasdf batch`, as a stream: files given, folders walked lazily (one folder's
// entries held at a time, in a stable sorted order) and --from lists read a line at a time, each
// input kept only when it belongs to the shard. Nothing here grows with the number of inputs.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
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

/// The inputs of a batch, one at a time, in a fixed order: the roots given on the command line,
/// then the lines of each --from list ("-" for standard input; blank lines skipped), each root
/// a file (kept as given, a missing one too, so that its conversion says what is wrong) or a
/// folder (its regular files, recursed in sorted order of their relative paths, symbolic links
/// to files followed, links to folders and the folder `outdir` left out). Only the inputs of
/// `shard` are given, told by their relative path before anything else is asked of them.
/// Memory: the entries of the folders on the path to the current one.
class InputWalker {
 public:
  InputWalker(std::vector<std::string> roots, std::vector<std::string> lists,
              std::filesystem::path outdir, std::optional<Shard> shard);
  ~InputWalker();
  InputWalker(const InputWalker&) = delete;
  InputWalker& operator=(const InputWalker&) = delete;

  /// Put the next input into `item` (input and relative only); return false after the last.
  /// Throws `asdfcore::Error` (io) when a --from list cannot be read.
  bool next(Item& item);

 private:
  struct Folder;
  bool next_root(std::string& root);
  bool keep(const std::string& relative) const;

  std::vector<std::string> roots_;
  std::vector<std::string> lists_;
  std::size_t next_root_ = 0;
  std::size_t next_list_ = 0;
  std::ifstream list_file_;
  std::istream* list_ = nullptr;
  std::filesystem::path outdir_;
  std::optional<Shard> shard_;
  std::filesystem::path walk_root_;
  std::vector<std::unique_ptr<Folder>> stack_;  ///< The folders being walked, outermost first.
};

}  // namespace fitsasdf::cli::batch
