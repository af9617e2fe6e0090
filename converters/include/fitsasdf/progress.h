#pragma once
/// \file
/// Progress reports and cancellation for the calls a pipeline makes in process: every options
/// struct of the conversions, the verification and the comparisons holds a `RunControl`. The
/// callback hears where the call is (stage, HDU, bytes done of a fixed total); the token stops
/// the call from another thread or a signal handler, and the call then throws
/// `asdfcore::Error` (cancelled) having written nothing (its output and temporary files are
/// removed).
///
///     fitsasdf::ConvertOptions options;
///     options.control.progress = [](const fitsasdf::Progress& p) { bar.show(p.done, p.total); };
///     fitsasdf::CancelToken stop = options.control.cancel;  // shares the flag
///     std::thread worker([&] { fitsasdf::convert_fits_to_asdf("in.fits", "out.asdf", options); });
///     stop.cancel();  // e.g. from a "Stop" button: the worker's call throws (cancelled)

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace fitsasdf {

/// Where a call is. `done` never decreases from one report to the next, stays at most `total`,
/// and the last report of a call that succeeds has `done == total`.
struct Progress {
  /// What the call is doing: "read" (an HDU of the input), "write" (data going to the output),
  /// "compare" (data of two files side by side) or "check" (block checksums); valid only
  /// during the callback.
  std::string_view stage;
  int hdu = 0;             ///< 1-based HDU being handled; 0 when the step is not one HDU's.
  int hdu_count = 0;       ///< HDUs of the input being handled; 0 when not known.
  std::uint64_t done = 0;  ///< Bytes of the input's data handled so far.
  /// Bytes of the input's data the call handles in all, fixed for the call (a verification,
  /// which converts and compares, counts the input's bytes once per pass).
  std::uint64_t total = 0;
};

/// Receive a progress report: at each stage and HDU and, while data moves, about every 4 MiB.
/// Called on the calling thread, or on one of the library's worker threads while a block is
/// compressed or decoded on several (never two calls at a time). It may throw to stop the
/// call: the exception propagates unchanged and nothing is written.
using ProgressCallback = std::function<void(const Progress&)>;

/// A flag that stops a call. Copies share the flag, so a pipeline keeps one copy and hands the
/// call another. `cancel()` is lock-free and allocates nothing: it is safe from another thread
/// and from a signal handler (on a copy kept where the handler can reach it).
class CancelToken {
 public:
  /// Make a token that is not cancelled, with a flag of its own.
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}

  /// Ask every call holding a copy of this token to stop at its next check (every HDU and at
  /// least every 4 MiB of data).
  void cancel() const noexcept { flag_->store(true, std::memory_order_relaxed); }
  /// Return true once `cancel()` was called on this token or a copy of it.
  bool cancelled() const noexcept { return flag_->load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

static_assert(std::atomic<bool>::is_always_lock_free, "CancelToken::cancel must be lock-free");

/// How a pipeline follows and stops a call: a field of every options struct.
struct RunControl {
  ProgressCallback progress;  ///< Called with progress reports; empty for none.
  CancelToken cancel;         ///< Checked at each report point; when set the call throws
                              ///< `asdfcore::Error` (cancelled) and writes nothing.
};

}  // namespace fitsasdf
