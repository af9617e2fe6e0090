#pragma once
// The batch report as one self-contained HTML page (`fitsasdf report --html`, `batch --html`):
// totals and throughput, failures grouped by error category with their messages, the largest
// and slowest inputs, optional thumbnails of a sample of outputs (PNG data URIs), and a
// sortable table of inputs. No external resource: the page works offline and from a shared
// folder. The JSON-lines reports are read as a stream; what is kept is bounded by the options
// (the table's rows, the examples per category, the top lists, the thumbnail sample), not by
// the number of inputs.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fitsasdf::cli::batch {

/// What the page shows.
struct HtmlReportOptions {
  std::string title = "fitsasdf batch report";  ///< The page's title and heading.
  /// Thumbnails of this many outputs with status ok, chosen evenly at random (a fixed seed, so
  /// the same report gives the same page); outputs without an image are passed over.
  std::size_t thumbnails = 0;
  std::uint32_t thumbnail_size = 160;  ///< The longest side of a thumbnail, in pixels.
  std::size_t max_rows = 10000;  ///< Rows of the inputs table: failures first, then the rest.
  std::size_t top = 10;          ///< Inputs listed as the largest and as the slowest.
  std::size_t examples = 5;      ///< Messages shown for each error category.
  /// A line saying the run is still going ("in progress: 120 of 300 inputs"); empty when the
  /// reports are complete (their summary lines say how the run ended).
  std::string in_progress;
};

/// What the page holds.
struct HtmlReportStats {
  std::size_t inputs = 0;      ///< Input lines read.
  std::size_t failed = 0;      ///< ... of them failed.
  std::size_t rows = 0;        ///< Rows in the inputs table.
  std::size_t thumbnails = 0;  ///< Thumbnails embedded.
};

/// Read the JSON-lines reports `reports` (one run's, or the shards' of one archive: each input
/// once across them) and write the page to `out` atomically. Throws `asdfcore::Error` (io) when
/// a report cannot be read or the page cannot be written.
HtmlReportStats write_html_report(const std::vector<std::filesystem::path>& reports,
                                  const std::filesystem::path& out,
                                  const HtmlReportOptions& options);


}  // namespace fitsasdf::cli::batch
