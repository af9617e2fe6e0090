// Gathering a batch report's lines into counts, categories and bounded lists.
#include "batch/report_digest.h"

#include <algorithm>
#include <cstdio>

namespace fitsasdf::cli::batch {
namespace {

double by_size(const Row& r) { return static_cast<double>(r.bytes_in); }
double by_time(const Row& r) { return r.seconds; }

}  // namespace

Row row_of(const Line& line) {
  Row r;
  r.input = line.value("input", "");
  r.output = line.value("output", "");
  r.status = line.value("status", "");
  if (line.contains("error") && line["error"].is_string()) r.error = line["error"];
  r.bytes_in = line.value("bytes_in", std::uint64_t{0});
  r.bytes_out = line.value("bytes_out", std::uint64_t{0});
  r.seconds = line.value("seconds", 0.0);
  if (line.contains("findings") && line["findings"].is_array()) r.findings = line["findings"].size();
  return r;
}

std::string error_category(const std::string& error) {
  if (error.size() > 2 && error.front() == '[') {
    const auto end = error.find(']');
    if (end != std::string::npos && end > 1) return error.substr(1, end - 1);
  }
  if (error.starts_with("verification")) return "verification";
  return "other";
}

void TopRows::offer(const Row& r) {
  if (k_ == 0) return;
  const auto less = [this](const Row& a, const Row& b) { return key_(a) > key_(b); };
  if (rows_.size() < k_) {
    rows_.push_back(r);
    std::push_heap(rows_.begin(), rows_.end(), less);
  } else if (key_(r) > key_(rows_.front())) {
    std::pop_heap(rows_.begin(), rows_.end(), less);
    rows_.back() = r;
    std::push_heap(rows_.begin(), rows_.end(), less);
  }
}

std::vector<Row> TopRows::sorted() const {
  std::vector<Row> out = rows_;
  std::sort(out.begin(), out.end(), [this](const Row& a, const Row& b) { return key_(a) > key_(b); });
  return out;
}

std::string human_bytes(double n) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (n >= 1000 && u < 5) {
    n /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", n, kUnits[u]);
  return text;
}

Digest::Digest(const DigestOptions& o)
    : options(o), largest(o.top, by_size), slowest(o.top, by_time), random(20141231) {}

void Digest::add(const Line& line) {
  Row r = row_of(line);
  ++inputs;
  ++by_status[r.status];
  bytes_in += r.bytes_in;
  bytes_out += r.bytes_out;
  if (r.status == "ok") converted_bytes += r.bytes_in;
  if (r.findings > 0) ++with_findings;
  line_seconds += r.seconds;
  largest.offer(r);
  slowest.offer(r);
  if (r.status == "failed") {
    Category& c = categories[error_category(r.error)];
    ++c.count;
    if (c.examples.size() < options.examples) c.examples.push_back(r);
    if (failed_rows.size() < options.max_rows) failed_rows.push_back(r);
  } else if (other_rows.size() < options.max_rows) {
    other_rows.push_back(r);
  }
  // A reservoir sample of the outputs that could have a picture: a few more than asked for,
  // since some hold no image.
  if (r.status != "failed" && !r.output.empty() && options.thumbnails > 0) {
    ++candidates_seen;
    const std::size_t keep = options.thumbnails * 4;
    if (candidates.size() < keep) {
      candidates.push_back(r.output);
    } else {
      std::uniform_int_distribution<std::size_t> pick(0, candidates_seen - 1);
      const std::size_t j = pick(random);
      if (j < keep) candidates[j] = r.output;
    }
  }
}

Digest digest_reports(const std::vector<std::filesystem::path>& paths,
                      const std::filesystem::path& work_parent, const DigestOptions& options) {
  Digest d(options);
  read_latest_lines(
      paths, work_parent, [&d](const std::string& text) { d.add(Line::parse(text)); },
      &d.summaries);
  return d;
}

}  // namespace fitsasdf::cli::batch
