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

/// Replace the report `path` atomically by `lines` (JSON texts), one a line, then `summary`
/// unless null; written in chunks, never held whole.
void write_report(const fs::path& path, const std::vector<const std::string*>& lines,
                  const Line& summary) {
  asdfcore::io::AtomicFile out(path.string(), true);
  std::string chunk;
  auto flush = [&] {
    out.write(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(chunk.data()),
                                            chunk.size()));
    chunk.clear();
  };
  for (const auto* line : lines) {
    chunk += *line;
    chunk += '\n';
    if (chunk.size() >= (std::size_t{1} << 20)) flush();
  }
  if (!summary.is_null()) chunk += summary.dump() + "\n";
  flush();
  out.commit();
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

Line summarize(const std::vector<const std::string*>& lines) {
  Tally tally;
  for (const auto* text : lines) tally.add(Line::parse(*text));
  return tally.summary();
}

ReportFile::ReportFile(const fs::path& path, std::size_t count) : path_(path) {
  if (path_.empty()) {
    tally_ = std::make_unique<Tally>();
    return;
  }
  this_run_.resize(count);
  read_report(path_, [&](Line&& line) {
    const std::string input = line["input"].get<std::string>();
    previous_[input] = line.dump();
  });
  std::error_code ec;
  if (!path_.parent_path().empty()) fs::create_directories(path_.parent_path(), ec);
  // Start from the previous lines, each input once, without a line cut by a kill.
  std::vector<const std::string*> lines;
  for (const auto& [input, text] : previous_) lines.push_back(&text);
  write_report(path_, lines, Line());
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

std::optional<Line> ReportFile::previous(const std::string& input) const {
  const auto it = previous_.find(input);
  if (it == previous_.end()) return std::nullopt;
  return Line::parse(it->second);
}

int ReportFile::append(std::size_t index, const Line& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++appended_;
  if (tally_) {
    tally_->add(line);
    return 0;
  }
  std::string text = line.dump();
  this_run_.at(index) = text;
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

Line ReportFile::finish(std::size_t count,
                        const std::function<const std::string&(std::size_t)>& inputs,
                        Line summary) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (tally_) {  // no report file
    Line counted = tally_->summary();
    counted["inputs"] = count;
    counted["not_done"] = count - appended_;
    for (auto& [key, value] : summary.items()) counted[key] = value;
    return counted;
  }
  std::vector<const std::string*> lines;
  std::size_t not_done = 0;
  Tally tally;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& input = inputs(i);
    const std::string& now = this_run_.at(i);
    const auto before = previous_.find(input);
    const std::string* chosen = nullptr;
    if (!now.empty()) {
      chosen = &now;
      if (before != previous_.end()) {
        // Skipped as complete: the line of the run that made the output says more.
        const Line line = Line::parse(now);
        const Line earlier = Line::parse(before->second);
        if (status_of(line) == "skipped" && status_of(earlier) == "ok" &&
            earlier.value("output", "") == line.value("output", "") &&
            (!line.contains("verify") || earlier.value("verify", "") == "identical")) {
          chosen = &before->second;
        }
      }
    } else if (before != previous_.end()) {
      chosen = &before->second;
    }
    if (chosen) {
      lines.push_back(chosen);
      tally.add(Line::parse(*chosen));
    } else {
      ++not_done;
    }
  }
  Line counted = tally.summary();
  counted["inputs"] = count;
  counted["not_done"] = not_done;
  for (auto& [key, value] : summary.items()) counted[key] = value;
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  write_report(path_, lines, counted);
  return counted;
}

int merge_reports(const fs::path& out, const std::vector<std::string>& inputs, bool quiet) {
  LineTexts by_input;
  std::vector<std::string> incomplete;
  for (const auto& name : inputs) {
    if (!fs::exists(name)) {
      throw asdfcore::Error(asdfcore::ErrorCode::kIo, "no such report",
                            asdfcore::ErrorContext{.file = name});
    }
    Line summary;
    read_report(
        name,
        [&](Line&& line) {
          const std::string input = line["input"].get<std::string>();
          by_input[input] = line.dump();
        },
        &summary);
    if (summary.is_null() || !summary.value("stopped", Line()).is_null() ||
        summary.value("not_done", std::uint64_t{0}) > 0) {
      incomplete.push_back(name);
    }
  }
  std::vector<const std::string*> lines;
  lines.reserve(by_input.size());
  for (const auto& [input, text] : by_input) lines.push_back(&text);
  Line summary = summarize(lines);
  summary["reports"] = inputs.size();
  summary["incomplete_reports"] = incomplete;
  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  write_report(out, lines, summary);
  const std::size_t failed = summary["failed"].get<std::size_t>();
  if (!quiet) {
    std::cerr << "fitsasdf batch: merged " << inputs.size() << " reports: " << lines.size()
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
