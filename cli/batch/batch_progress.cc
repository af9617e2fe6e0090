// The progress line of `fitsasdf batch` and the messages written around it.
#include "batch/batch_progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace fitsasdf::cli::batch {
namespace {

/// "1:02:03" or "2:03".
std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  }
  return text;
}

}  // namespace

ProgressMode progress_mode(bool quiet) {
  if (quiet) return ProgressMode::kNone;
  return isatty(STDERR_FILENO) ? ProgressMode::kTerminal : ProgressMode::kPlain;
}

Progress::Progress(ProgressMode mode, std::size_t total, std::uint64_t total_bytes,
                   const Counters& counters, double interval_seconds)
    : mode_(mode),
      total_(total),
      total_bytes_(total_bytes),
      counters_(counters),
      interval_(interval_seconds),
      start_(std::chrono::steady_clock::now()),
      // On a terminal the line shows at once; plain lines come after the first interval.
      last_(mode == ProgressMode::kTerminal ? start_ - std::chrono::hours(1) : start_) {}

std::string Progress::text() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::size_t done = counters_.done.load();
  const std::uint64_t converted = counters_.bytes_converted.load();
  const double rate = elapsed > 0 ? static_cast<double>(converted) / elapsed : 0;
  std::string eta = "?";
  if (done >= total_) {
    eta = "0:00";
  } else if (rate > 0 && total_bytes_ > 0) {
    const std::uint64_t bytes_done = counters_.bytes_done.load();
    const double left = total_bytes_ > bytes_done ? double(total_bytes_ - bytes_done) : 0;
    eta = clock_text(left / rate);
  } else if (done > 0) {
    eta = clock_text(elapsed / double(done) * double(total_ - done));
  }
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.1f", rate / 1e6);
  return std::to_string(done) + "/" + std::to_string(total_) + " files, " +
         std::to_string(counters_.failed.load()) + " failed, " + rate_text + " MB/s, ETA " + eta;
}

void Progress::draw_locked() {
  if (mode_ == ProgressMode::kTerminal) {
    // Carriage return, the line, erase to the end of the line: redrawn in place.
    std::cerr << "\rfitsasdf batch: " << text() << "\x1b[K" << std::flush;
    drawn_ = true;
  } else if (mode_ == ProgressMode::kPlain) {
    std::cerr << "fitsasdf batch: " << text() << "\n" << std::flush;
  }
}

void Progress::tick() {
  if (mode_ == ProgressMode::kNone) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const auto every =
      mode_ == ProgressMode::kTerminal ? std::chrono::duration<double>(0.2) : interval_;
  if (now - last_ < every) return;
  last_ = now;
  draw_locked();
}

void Progress::say(const std::string& message) {
  if (mode_ == ProgressMode::kNone) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::cerr << "\r\x1b[K";
  std::cerr << message << "\n";
  if (drawn_) draw_locked();
  std::cerr << std::flush;
}

void Progress::finish() {
  if (mode_ == ProgressMode::kNone) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::cerr << "\r\x1b[K" << std::flush;
  drawn_ = false;
  mode_ = ProgressMode::kNone;
}

}  // namespace fitsasdf::cli::batch
