#pragma once
// The one place the library reports progress and checks cancellation (fitsasdf/progress.h):
// each entry point keeps a Meter, fixes the bytes it handles, and counts them as data moves.
// A step whose unit is not the input's bytes (a block written, a data unit planned) is mapped
// onto a share of the total, so `done` never goes back and ends at `total`.
#include <cstdint>
#include <string>
#include <string_view>

#include "fitsasdf/progress.h"

namespace fitsasdf::progress {

class Meter {
 public:
  /// Follow a call under `control`; `file` names the input in a cancellation error. Throws
  /// `asdfcore::Error` (cancelled) when the token is already set.
  Meter(const RunControl& control, std::string file);

  /// Fix the call's `total` bytes and its `hdu_count`, and report `stage` with nothing done.
  void start(std::uint64_t total, int hdu_count, std::string_view stage);
  /// Enter `stage` at the 1-based `hdu` (0: none): check the token and report.
  void enter(std::string_view stage, int hdu);
  /// Map the next `units` counted by `advance` onto the next `bytes` of the total (the share
  /// ends where it is complete, whatever `advance` counted).
  void share(std::uint64_t units, std::uint64_t bytes);
  /// Count `units` of the current share (bytes when no share was set) as done: check the
  /// token, and report every 4 MiB and when the total is reached.
  void advance(std::uint64_t units);
  /// Complete the current share.
  void close_share();
  /// Complete the call (done = total) and report it unless that was reported. Does not check
  /// the token: the call's work is done.
  void finish();
  /// Throw `asdfcore::Error` (cancelled) when the token is set.
  void check() const;
  /// Return the control for a nested call whose whole progress fills the next `bytes` of this
  /// one (the same token; no callback when this meter has none). The nested call runs within
  /// this one's lifetime.
  RunControl nested(std::uint64_t bytes);
  /// Return the bytes done so far.
  std::uint64_t done() const noexcept { return done_; }
  /// Return the total.
  std::uint64_t total() const noexcept { return total_; }

 private:
  void move_to(std::uint64_t done);
  void report();

  const RunControl& control_;
  std::string file_;
  std::string_view stage_;
  int hdu_ = 0;
  int hdu_count_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  std::uint64_t reported_ = 0;  ///< `done_` at the last report.
  bool reported_total_ = false;
  bool shared_ = false;           ///< A share is open.
  std::uint64_t share_base_ = 0;  ///< `done_` where the share starts.
  std::uint64_t share_bytes_ = 0;
  std::uint64_t share_units_ = 0;
  std::uint64_t share_done_ = 0;
};

}  // namespace fitsasdf::progress
