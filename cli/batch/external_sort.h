#pragma once
// Sorting more records than memory should hold, for `fitsasdf batch` at archive scale: records
// (a key and a value, both bytes) are kept in memory up to a budget, then written out as sorted
// runs in a work folder and merged when read back. Memory stays at the budget plus one read
// buffer per run merged, whatever the number of records; the disk holds them all. The batch
// uses it to find inputs that share an output, to join a previous report with this run's inputs,
// and to put the report's lines in input order at the end.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fitsasdf::cli::batch {

/// A folder made for one run (mkdtemp: `parent`/`prefix`XXXXXX), removed with what it holds
/// when the object goes. The run holds a lock on it (flock of a file inside) while it lives, so
/// that a later run can tell a folder a killed run left (the lock went with the process) from
/// one a run beside it (another shard) is using. Throws `asdfcore::Error` (io) when it cannot
/// be made.
class WorkFolder {
 public:
  WorkFolder(const std::filesystem::path& parent, const std::string& prefix);
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

  /// Remove the folders `parent`/`prefix`* that no living run holds; return how many went.
  static std::size_t remove_abandoned(const std::filesystem::path& parent,
                                      const std::string& prefix);

 private:
  std::filesystem::path path_;
  int lock_ = -1;
};

/// Return `n` as a key whose byte order is the numeric order (8 bytes, big-endian).
std::string index_key(std::uint64_t n);
/// Return the number `index_key` made `key` from.
std::uint64_t key_index(std::string_view key);

/// A file of records written one after another (a length-prefixed key and value each).
class RecordWriter {
 public:
  /// Create (truncate) `path`. Throws `asdfcore::Error` (io).
  explicit RecordWriter(const std::filesystem::path& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  /// Append one record. Throws `asdfcore::Error` (io) when the disk refuses it.
  void write(std::string_view key, std::string_view value);
  /// Flush and close; throws `asdfcore::Error` (io) when the data cannot be written.
  void close();

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

/// Reads back a file of records in the order written.
class RecordReader {
 public:
  /// Open `path`. Throws `asdfcore::Error` (io).
  explicit RecordReader(const std::filesystem::path& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;
  /// Read the next record into `key` and `value`; return false at the end. Throws
  /// `asdfcore::Error` (io, or malformed for a cut record).
  bool next(std::string& key, std::string& value);

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

/// Records read back in key order: equal keys in the order they were added.
class SortedStream {
 public:
  SortedStream();
  ~SortedStream();
  SortedStream(SortedStream&&) noexcept;
  SortedStream& operator=(SortedStream&&) noexcept;
  /// Read the next record; return false at the end.
  bool next(std::string& key, std::string& value);

 private:
  friend class ExternalSorter;
  struct State;
  std::unique_ptr<State> state_;
};

/// Sorts records by key (bytewise), stably, in bounded memory.
class ExternalSorter {
 public:
  /// Keep at most about `budget` bytes of records in memory; write runs named `name`-N into
  /// `folder` (which must exist and outlive the sorter and its stream).
  ExternalSorter(std::filesystem::path folder, std::string name, std::size_t budget);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  /// Add a record. Throws `asdfcore::Error` (io) when a run cannot be written.
  void add(std::string_view key, std::string_view value);
  /// Return the records added so far.
  std::uint64_t size() const { return count_; }
  /// Return the records in key order (once: the sorter is left empty). Runs are merged at most
  /// kFanIn at a time, so the files open at once stay few whatever the number of runs.
  SortedStream sorted();

  static constexpr std::size_t kFanIn = 64;

 private:
  void spill();
  std::filesystem::path run_path();

  std::filesystem::path folder_;
  std::string name_;
  std::size_t budget_;
  std::vector<std::pair<std::string, std::string>> buffer_;
  std::size_t buffered_ = 0;
  std::vector<std::filesystem::path> runs_;
  std::uint64_t count_ = 0;
  std::uint64_t made_ = 0;
};

/// The name of the batch's work folders (in OUTDIR, or beside a report) up to mkdtemp's suffix.
inline constexpr const char* kWorkPrefix = ".fitsasdf-batch-work-";

/// The budget of one sorter of the batch: small, since what does not fit goes to disk in
/// sequential runs that read back at disk speed.
inline constexpr std::size_t kSortBudget = std::size_t{1} << 20;

}  // namespace fitsasdf::cli::batch
