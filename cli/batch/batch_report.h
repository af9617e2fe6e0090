#pragma once
// The JSON-lines report of `fitsasdf batch`: one line per input, appended and flushed as each
// input finishes (so a killed run keeps what it did), then rewritten at the end with each input
// once and a summary line; and `--merge-reports`, which combines the reports of shards.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fitsasdf::cli::batch {

using Line = nlohmann::ordered_json;

/// Read the report `path` line by line: give each input line to `take` (in file order; the
/// same input may come again, later), leave out lines that do not parse (the last line of a
/// killed run), and put the last summary line into `summary` (null when none). Throws
/// `asdfcore::Error` (io) when the file exists and cannot be read; a missing file has no lines.
void read_report(const std::filesystem::path& path, const std::function<void(Line&&)>& take,
                 Line* summary = nullptr);

/// Input lines kept compactly: input -> the line as JSON text (a later line replaces an earlier
/// one). Memory: about the size of the text per input.
using LineTexts = std::map<std::string, std::string>;

/// Return a summary line counting `lines` (JSON texts): inputs, ok, failed, skipped, bytes in and
/// out, and, when some lines carry a verdict, the verdicts.
Line summarize(const std::vector<const std::string*>& lines);

/// The report of one run. Thread-safe.
class ReportFile {
 public:
  /// Open the report `path` ("" for none) of a run of `count` inputs: read what a previous run
  /// of the command left in it, rewrite it with each of those inputs once (dropping a cut last
  /// line) and open it for appending. Throws `asdfcore::Error` (io) when it cannot be read or
  /// written.
  ReportFile(const std::filesystem::path& path, std::size_t count);
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  /// Return the line a previous run wrote for `input`, if any.
  std::optional<Line> previous(const std::string& input) const;

  /// Record `line`, this run's outcome for input number `index`, and append it to the file at
  /// once, in one write. Return 0, or the errno value of a failed write.
  int append(std::size_t index, const Line& line);

  /// Rewrite the report with one line per input `inputs(0)` ... `inputs(count - 1)` (in that order)
  /// and `summary` completed with the counts: this run's line, except that an input skipped as
  /// complete keeps the `ok` line of the run that made its output; else the previous run's line;
  /// inputs with neither (not reached) are counted as `not_done`. Return the summary written.
  /// Without a report file the summary is only computed.
  Line finish(std::size_t count, const std::function<const std::string&(std::size_t)>& inputs,
              Line summary);

 private:
  std::filesystem::path path_;
  LineTexts previous_;
  std::vector<std::string> this_run_;   ///< By input number ("": not finished); with a file only.
  std::unique_ptr<class Tally> tally_;  ///< Without a file: the counts only.
  std::size_t appended_ = 0;
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
