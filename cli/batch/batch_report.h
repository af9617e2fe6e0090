#pragma once
// The JSON-lines report of `fitsasdf batch`: one line per input, appended and flushed as each
// input finishes (so a killed run keeps what it did), then rewritten at the end with each input
// once and a summary line; and `--merge-reports`, which combines the reports of shards.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "batch/external_sort.h"

namespace fitsasdf::cli::batch {

using Line = nlohmann::ordered_json;

/// Read the report `path` line by line: give each input line to `take` (in file order; the
/// same input may come again, later), leave out lines that do not parse (the last line of a
/// killed run), and put the last summary line into `summary` (null when none). Throws
/// `asdfcore::Error` (io) when the file exists and cannot be read; a missing file has no lines.
void read_report(const std::filesystem::path& path, const std::function<void(Line&&)>& take,
                 Line* summary = nullptr);

/// Read the reports `paths` and give `take` the latest line of each input (a later report
/// wins, then a later line), in the order of input names, as JSON text; put the reports'
/// summary lines (null when a report has none) into `summaries` when given. Sorts on disk, in a
/// work folder under `work_parent`, so memory does not grow with the reports' length. Throws
/// `asdfcore::Error` (io) when a report cannot be read (a missing one has no lines).
void read_latest_lines(const std::vector<std::filesystem::path>& paths,
                       const std::filesystem::path& work_parent,
                       const std::function<void(const std::string&)>& take,
                       std::vector<Line>* summaries = nullptr);

/// The report of one run. Thread-safe. Memory does not grow with the number of inputs: the
/// lines of a previous run, this run's lines and their consolidation at the end live in files
/// of the run's work folder, sorted on disk.
class ReportFile {
 public:
  /// Open the report `path` ("" for none): read what a previous run of the command left in it,
  /// rewrite it with each of those inputs once (dropping a cut last line) and open it for
  /// appending; join those lines with this run's inputs `by_name` (Plan::by_name) so that each
  /// input gets its previous line in order (earlier_lines()). Work files go into `work`. Throws
  /// `asdfcore::Error` (io) when the report cannot be read or written.
  ReportFile(const std::filesystem::path& path, const std::filesystem::path& work,
             SortedStream by_name);
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  /// Return the file of previous lines by input number, for PlanReader ("" without a report).
  const std::filesystem::path& earlier_lines() const { return earlier_; }

  /// Record `line`, this run's outcome for input number `index`, and append it to the file at
  /// once, in one write. Return 0, or the errno value of a failed write.
  int append(std::uint64_t index, const Line& line);

  /// Rewrite the report with one line per input number 0 ... `count` - 1 and `summary`
  /// completed with the counts: this run's line, except that an input skipped as complete
  /// keeps the `ok` line of the run that made its output; else the previous run's line; inputs
  /// with neither (not reached) are counted as `not_done`. Return the summary written. Without
  /// a report file the summary is only computed.
  Line finish(std::uint64_t count, Line summary);

 private:
  std::filesystem::path path_;
  std::filesystem::path work_;
  std::filesystem::path earlier_;
  std::unique_ptr<RecordWriter> journal_;  ///< This run's lines by input number.
  std::unique_ptr<class Tally> tally_;     ///< Without a file: the counts only.
  std::uint64_t appended_ = 0;
  int fd_ = -1;
  std::mutex mutex_;
};

/// `fitsasdf batch --merge-reports OUT IN...`: write to `out` one line per input found in the
/// reports `inputs` (a later line wins: later file, later line), sorted by input, and a
/// recomputed summary; say on stderr (unless `quiet`) what was merged. Return 0 when every
/// input is ok or skipped and every report is complete (ends with a summary of a run that was
/// not stopped), 1 otherwise.
int merge_reports(const std::filesystem::path& out, const std::vector<std::string>& inputs,
                  bool quiet);

}  // namespace fitsasdf::cli::batch
