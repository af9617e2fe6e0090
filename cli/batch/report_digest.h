#pragma once
// What a batch report says, gathered as its lines are read: counts by status and by error
// category (with a few messages each), bytes, the largest and slowest inputs, and optionally
// a bounded sample of rows and of outputs. Shared by the HTML page (`--html`, `report`) and
// `batch --summary`; memory is bounded by the options, not by the report's length.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "batch/batch_report.h"

namespace fitsasdf::cli::batch {

/// One input as a report line gives it.
struct Row {
  std::string input;
  std::string output;
  std::string status;
  std::string error;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  double seconds = 0;
  std::size_t findings = 0;
};

/// Return the row of the report line `line` (missing members left empty or 0).
Row row_of(const Line& line);

/// Return the category of a report line's `error`: the library's error category in its
/// leading brackets ("[malformed] ..." gives "malformed"), "verification" for a failed
/// verification, else "other".
std::string error_category(const std::string& error);

/// Return `n` bytes for people: "512 B", "35.1 MB" (powers of 1000).
std::string human_bytes(double n);

/// The `k` rows with the largest key, kept as lines are read.
class TopRows {
 public:
  TopRows(std::size_t k, double (*key)(const Row&)) : k_(k), key_(key) {}
  /// Keep `r` when it is among the `k` largest so far.
  void offer(const Row& r);
  /// Return the rows kept, the largest first.
  std::vector<Row> sorted() const;

 private:
  std::size_t k_;
  double (*key_)(const Row&);
  std::vector<Row> rows_;
};

/// What to keep beyond the counts.
struct DigestOptions {
  std::size_t top = 10;         ///< Inputs kept as the largest and as the slowest.
  std::size_t examples = 5;     ///< Rows kept for each error category.
  std::size_t max_rows = 0;     ///< Rows kept: failures, and the others, up to this many each.
  std::size_t thumbnails = 0;   ///< Outputs sampled (4x this many, uniformly) for pictures.
};

/// Everything gathered from a report's lines.
struct Digest {
  explicit Digest(const DigestOptions& o);
  /// Count the input line `line`.
  void add(const Line& line);

  struct Category {
    std::size_t count = 0;
    std::vector<Row> examples;
  };

  DigestOptions options;
  std::size_t inputs = 0;
  std::map<std::string, std::size_t> by_status;
  std::uint64_t bytes_in = 0, bytes_out = 0, converted_bytes = 0;
  std::size_t with_findings = 0;
  double line_seconds = 0;  ///< The lines' `seconds` added up (time in conversions).
  std::map<std::string, Category> categories;
  TopRows largest, slowest;
  std::vector<Row> failed_rows, other_rows;
  std::size_t candidates_seen = 0;
  std::vector<std::string> candidates;
  std::mt19937_64 random;
  std::vector<Line> summaries;  ///< The reports' summary lines (null for a report without).
};

/// Read the reports `paths` (each input once across them: its latest line, as
/// read_latest_lines) into a digest; work files go under `work_parent`. Throws
/// `asdfcore::Error` (io) when a report cannot be read.
Digest digest_reports(const std::vector<std::filesystem::path>& paths,
                      const std::filesystem::path& work_parent, const DigestOptions& options);

}  // namespace fitsasdf::cli::batch
