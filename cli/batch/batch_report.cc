// Writing, consolidating, reading and merging the JSON-lines reports of `fitsasdf batch`.
#include "batch/batch_report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <span>
#include <system_error>

#include "asdfcore/error.h"
#include "asdfcore/io/atomic_file.h"
#include "batch/batch_stop.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

std::string status_of(const Line& line) {
  const auto it = line.find("status");
  return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

/// Counts of report lines, for a summary.
class Tally {
 public:
  void add(const Line& line) {
    ++inputs_;
    const std::string status = status_of(line);
    (status == "ok" ? ok_ : status == "skipped" ? skipped_ : failed_)++;
    bytes_in_ += line.value("bytes_in", std::uint64_t{0});
    bytes_out_ += line.value("bytes_out", std::uint64_t{0});
    if (line.contains("findings") && line["findings"].is_array() && !line["findings"].empty()) {
      ++with_findings_;
    }
    if (line.contains("verify") && line["verify"].is_string()) {
      ++verdicts_[line["verify"].get<std::string>()];
    }
  }
  Line summary() const {
    Line summary;
    summary["summary"] = true;
    summary["inputs"] = inputs_;
    summary["ok"] = ok_;
    summary["failed"] = failed_;
    summary["skipped"] = skipped_;
    summary["bytes_in"] = bytes_in_;
    summary["bytes_out"] = bytes_out_;
    summary["with_findings"] = with_findings_;
    if (!verdicts_.empty()) {
      Line verify;
      for (const char* verdict : {"identical", "different", "error"}) {
        const auto it = verdicts_.find(verdict);
        verify[verdict] = it == verdicts_.end() ? 0 : it->second;
      }
      summary["verify"] = verify;
    }
    return summary;
  }

 private:
  std::size_t inputs_ = 0, ok_ = 0, failed_ = 0, skipped_ = 0, with_findings_ = 0;
  std::uint64_t bytes_in_ = 0, bytes_out_ = 0;
  std::map<std::string, std::size_t> verdicts_;
};

namespace {

/// A report written whole to a temporary and renamed into place (each input once): lines are
/// gathered in chunks of 1 MiB, never held whole.
class ReportWriter {
 public:
  explicit ReportWriter(const fs::path& path) : out_(path.string(), true) {}
  void add(const std::string& text) {
    chunk_ += text;
    chunk_ += '\n';
    if (chunk_.size() >= (std::size_t{1} << 20)) flush();
  }
  /// Write `summary` (unless null) last and put the file in place.
  void commit(const Line& summary) {
    if (!summary.is_null()) chunk_ += summary.dump() + "\n";
    flush();
    out_.commit();
  }

 private:
  void flush() {
    out_.write(std::span<const std::uint8_t>(
        reinterpret_cast<const std::uint8_t*>(chunk_.data()), chunk_.size()));
    chunk_.clear();
  }
  asdfcore::io::AtomicFile out_;
  std::string chunk_;
};

/// Give `take` the last value of each key of `sorted` (values of a key come in the order added).
void last_of_each_key(SortedStream& sorted,
                      const std::function<void(const std::string& key, std::string& value)>& take) {
  std::string key, value, group, latest;
  bool more = sorted.next(key, value);
  while (more) {
    group.swap(key);
    latest.swap(value);
    while ((more = sorted.next(key, value)) && key == group) latest.swap(value);
    take(group, latest);
  }
}

/// Return true when `summary` (a report's last line) shows a run that ended with every input
/// done: present, not stopped, nothing left.
bool complete_run(const Line& summary) {
  return !summary.is_null() && summary.value("stopped", Line()).is_null() &&
         summary.value("not_done", std::uint64_t{0}) == 0;
}

}  // namespace

void read_report(const fs::path& path, const std::function<void(Line&&)>& take, Line* summary) {
  if (summary) *summary = Line();
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw asdfcore::Error(asdfcore::ErrorCode::kIo, "cannot read the report",
                          asdfcore::ErrorContext{.file = path.string()});
  }
  std::string text;
  while (std::getline(in, text)) {
    Line line = Line::parse(text, nullptr, false);
    if (line.is_discarded() || !line.is_object()) continue;  // a line cut by a kill
    if (line.contains("summary")) {
      if (summary) *summary = std::move(line);
      continue;
    }
    const auto input = line.find("input");
    if (input == line.end() || !input->is_string()) continue;
    take(std::move(line));
  }
}

void read_latest_lines(const std::vector<fs::path>& paths, const fs::path& work_parent,
                       const std::function<void(const std::string&)>& take,
                       std::vector<Line>* summaries) {
  const WorkFolder work(work_parent, kWorkPrefix);
  ExternalSorter by_input(work.path(), "lines", kSortBudget);
  for (const auto& path : paths) {
    Line summary;
    read_report(
        path, [&](Line&& line) { by_input.add(line["input"].get<std::string>(), line.dump()); },
        &summary);
    if (summaries) summaries->push_back(std::move(summary));
  }
  SortedStream sorted = by_input.sorted();
  last_of_each_key(sorted, [&](const std::string&, std::string& text) { take(text); });
}

ReportFile::ReportFile(const fs::path& path, const fs::path& work, SortedStream by_name)
    : path_(path), work_(work) {
  if (path_.empty()) {
    tally_ = std::make_unique<Tally>();
    return;
  }
  ExternalSorter previous(work_, "previous", kSortBudget);
  read_report(path_, [&](Line&& line) {
    previous.add(line["input"].get<std::string>(), line.dump());
  });
  std::error_code ec;
  if (!path_.parent_path().empty()) fs::create_directories(path_.parent_path(), ec);
  // Start from the previous lines, each input once, without a line cut by a kill; and give
  // each input of this run (both sorted by input) its previous line, by input number.
  ExternalSorter earlier(work_, "earlier-by-index", kSortBudget);
  {
    ReportWriter start(path_);
    SortedStream lines = previous.sorted();
    std::string name, index;
    bool more = by_name.next(name, index);
    last_of_each_key(lines, [&](const std::string& input, std::string& text) {
      start.add(text);
      while (more && name < input) more = by_name.next(name, index);
      while (more && name == input) {
        earlier.add(index, text);
        more = by_name.next(name, index);
      }
    });
    start.commit(Line());
  }
  if (earlier.size() > 0) {
    earlier_ = work_ / "earlier";
    RecordWriter out(earlier_);
    SortedStream sorted = earlier.sorted();
    std::string key, value;
    while (sorted.next(key, value)) out.write(key, value);
    out.close();
  }
  journal_ = std::make_unique<RecordWriter>(work_ / "journal");
  fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) {
    throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                          std::string("cannot open the report for writing: ") +
                              std::generic_category().message(errno),
                          asdfcore::ErrorContext{.file = path_.string()});
  }
}

ReportFile::~ReportFile() {
  if (fd_ >= 0) close(fd_);
}

int ReportFile::append(std::uint64_t index, const Line& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++appended_;
  if (tally_) {
    tally_->add(line);
    return 0;
  }
  std::string text = line.dump();
  try {
    journal_->write(index_key(index), text);
  } catch (const asdfcore::Error& e) {
    const int code = fatal_errno_in(e.message());
    return code != 0 ? code : EIO;
  }
  text += "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd_, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

Line ReportFile::finish(std::uint64_t count, Line summary) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (tally_) {  // no report file
    Line counted = tally_->summary();
    counted["inputs"] = count;
    counted["not_done"] = count - appended_;
    for (auto& [key, value] : summary.items()) counted[key] = value;
    return counted;
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  // This run's lines, put in input order (workers finish out of order).
  journal_->close();
  ExternalSorter by_index(work_, "journal-by-index", kSortBudget);
  {
    RecordReader journal(work_ / "journal");
    std::string key, value;
    while (journal.next(key, value)) by_index.add(key, value);
  }
  SortedStream now = by_index.sorted();
  std::optional<RecordReader> before;
  if (!earlier_.empty()) before.emplace(earlier_);
  std::string now_key, now_text, before_key, before_text;
  bool have_now = now.next(now_key, now_text);
  bool have_before = before && before->next(before_key, before_text);

  ReportWriter out(path_);
  std::uint64_t not_done = 0;
  Tally tally;
  for (std::uint64_t i = 0; i < count; ++i) {
    const bool is_now = have_now && key_index(now_key) == i;
    const bool is_before = have_before && key_index(before_key) == i;
    const std::string* chosen = nullptr;
    if (is_now) {
      chosen = &now_text;
      if (is_before) {
        // Skipped as complete: the line of the run that made the output says more.
        const Line line = Line::parse(now_text);
        const Line earlier = Line::parse(before_text);
        if (status_of(line) == "skipped" && status_of(earlier) == "ok" &&
            earlier.value("output", "") == line.value("output", "") &&
            (!line.contains("verify") || earlier.value("verify", "") == "identical")) {
          chosen = &before_text;
        }
      }
    } else if (is_before) {
      chosen = &before_text;
    }
    if (chosen) {
      out.add(*chosen);
      tally.add(Line::parse(*chosen));
    } else {
      ++not_done;
    }
    if (is_now) have_now = now.next(now_key, now_text);
    if (is_before) have_before = before->next(before_key, before_text);
  }
  Line counted = tally.summary();
  counted["inputs"] = count;
  counted["not_done"] = not_done;
  for (auto& [key, value] : summary.items()) counted[key] = value;
  out.commit(counted);
  return counted;
}

int merge_reports(const fs::path& out, const std::vector<std::string>& inputs, bool quiet) {
  std::vector<fs::path> paths;
  for (const auto& name : inputs) {
    if (!fs::exists(name)) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "no such report",
                            asdfcore::ErrorContext{.file = name});
    }
    paths.emplace_back(name);
  }
  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  const fs::path folder = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  ReportWriter writer(out);
  Tally tally;
  std::vector<Line> summaries;
  std::uint64_t lines = 0;
  read_latest_lines(
      paths, folder,
      [&](const std::string& text) {
        writer.add(text);
        tally.add(Line::parse(text));
        ++lines;
      },
      &summaries);
  std::vector<std::string> incomplete;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!complete_run(summaries[i])) incomplete.push_back(inputs[i]);
  }
  Line summary = tally.summary();
  summary["reports"] = inputs.size();
  summary["incomplete_reports"] = incomplete;
  writer.commit(summary);
  const std::size_t failed = summary["failed"].get<std::size_t>();
  if (!quiet) {
    std::cerr << "fitsasdf batch: merged " << inputs.size() << " reports: " << lines
              << " inputs, " << summary["ok"].get<std::size_t>() << " ok, "
              << summary["skipped"].get<std::size_t>() << " skipped, " << failed << " failed\n";
    for (const auto& name : incomplete) {
      std::cerr << "fitsasdf batch: " << name
                << " is incomplete (its run was stopped or killed): re-run that shard\n";
    }
  }
  return failed == 0 && incomplete.empty() ? 0 : 1;
}

}  // namespace fitsasdf::cli::batch
