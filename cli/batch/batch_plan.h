#pragma once
// The plan of one `fitsasdf batch` run, made on disk before the first conversion so that memory
// does not grow with the number of inputs: the inputs of the shard listed once, in order, with
// their direction, size and output (a file of records in the run's work folder); the inputs
// refused because an earlier input has the same output (found by sorting the outputs); the
// temporaries earlier runs left beside those outputs removed, one folder at a time. Workers then
// take the inputs one by one from `PlanReader`.
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "batch/batch_inputs.h"
#include "batch/batch_report.h"
#include "batch/external_sort.h"

namespace fitsasdf::cli::batch {

/// What listing the inputs found.
struct Plan {
  std::uint64_t count = 0;                ///< Inputs of the shard.
  std::uint64_t bytes = 0;                ///< Their bytes.
  std::uint64_t clashes = 0;              ///< Inputs refused for an output taken already.
  std::uint64_t removed_temporaries = 0;  ///< Left by earlier runs, removed.
  std::filesystem::path items;            ///< The inputs, in order (PlanReader reads it).
  std::filesystem::path refused;          ///< Index -> why refused, in index order.
  /// Input -> its index, in the order of input names: what a previous report is joined with
  /// (filled only when `by_name` was asked for).
  SortedStream by_name;
};

/// List the inputs `walker` gives into the folder `work`: give each its direction (by content),
/// size and output under `outdir`; of inputs with the same output the first wins and the others
/// are refused; remove the temporaries of the outputs (and of the probe and `report`). With
/// `by_name`, also sort the inputs by name for ReportFile. Throws `asdfcore::Error` (io) when a
/// --from list or the work folder fails.
Plan plan_batch(InputWalker& walker, const std::filesystem::path& outdir,
                const std::filesystem::path& report, const std::filesystem::path& work,
                bool by_name);

/// Hands out the planned inputs in order, each with the line a previous run wrote for it.
/// Thread-safe.
class PlanReader {
 public:
  /// Read `plan`'s inputs, and the earlier lines of ReportFile::earlier_lines() (empty: none).
  PlanReader(const Plan& plan, const std::filesystem::path& earlier);
  /// Put the next input into `index`, `item` and `earlier`; return false after the last.
  bool next(std::uint64_t& index, Item& item, std::optional<Line>& earlier);

 private:
  std::mutex mutex_;
  RecordReader items_;
  RecordReader refused_;
  std::optional<RecordReader> earlier_;
  std::string key_, value_;
  std::optional<std::pair<std::uint64_t, std::string>> next_refused_, next_earlier_;
};

}  // namespace fitsasdf::cli::batch
