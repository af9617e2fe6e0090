#pragma once
// What `fitsasdf batch` says on stderr while it runs: on a terminal one progress line redrawn
// in place (files done of total, failures, MB/s, ETA), elsewhere a plain line every few seconds,
// with --quiet nothing; and the lines about failed files, which must not garble the progress
// line.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace fitsasdf::cli::batch {

/// Counters the workers update and the progress line reads.
struct Counters {
  std::atomic<std::size_t> done{0};               ///< Inputs finished (ok, failed or skipped).
  std::atomic<std::size_t> failed{0};             ///< Of which failed.
  std::atomic<std::size_t> skipped{0};            ///< Of which skipped (complete already).
  std::atomic<std::uint64_t> bytes_done{0};       ///< Input bytes of the finished inputs.
  std::atomic<std::uint64_t> bytes_converted{0};  ///< Input bytes of those converted now.
};

/// How progress is shown.
enum class ProgressMode {
  kNone,      ///< --quiet.
  kTerminal,  ///< stderr is a terminal: one line redrawn in place.
  kPlain,     ///< a plain line every interval and at the end.
};

/// Writes progress and messages to stderr, one writer at a time. Thread-safe.
class Progress {
 public:
  /// Show the progress of `total` inputs of `total_bytes` bytes in `mode`, a plain line every
  /// `interval_seconds`.
  Progress(ProgressMode mode, std::size_t total, std::uint64_t total_bytes,
           const Counters& counters, double interval_seconds);

  /// Redraw the terminal line (at most every 0.2 s) or print a plain line when the interval
  /// has passed. Called by the monitor thread.
  void tick();
  /// Print `message` (one line, without its newline) on stderr, clearing the progress line
  /// first and redrawing it after; nothing when quiet.
  void say(const std::string& message);
  /// Clear the terminal line for good (before the closing lines).
  void finish();
  /// Return the progress text: "120/300 files, 2 failed, 35.1 MB/s, ETA 0:42".
  std::string text() const;

 private:
  void draw_locked();

  ProgressMode mode_;
  std::size_t total_;
  std::uint64_t total_bytes_;
  const Counters& counters_;
  std::chrono::duration<double> interval_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
  std::mutex mutex_;
};

/// Return the mode for stderr: kNone when `quiet`, kTerminal when stderr is a terminal, else
/// kPlain.
ProgressMode progress_mode(bool quiet);

}  // namespace fitsasdf::cli::batch
