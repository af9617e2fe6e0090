#pragma once
// `fitsasdf batch --summary REPORT...`: what a batch did, from its JSON-lines reports (one run's,
// or the shards' of one archive), for reports of millions of lines in bounded memory: counts by
// status and by error category, bytes in and out, run time and throughput, the slowest and the
// largest inputs. Text for people, or one JSON object (--json).
#include <filesystem>
#include <ostream>
#include <vector>

namespace fitsasdf::cli::batch {

/// Print the summary of `reports` (each input once across them: its latest line) to `out`, as
/// text or as one JSON object. Return 0 when every input is ok or skipped and every report is
/// complete, 1 otherwise. Throws `asdfcore::Error` (io) when a report is missing or unreadable.
int print_summary(const std::vector<std::filesystem::path>& reports, bool json,
                  std::ostream& out);

}  // namespace fitsasdf::cli::batch
