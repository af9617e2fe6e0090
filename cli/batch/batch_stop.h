#pragma once
// Stopping `fitsasdf batch` cleanly: Ctrl-C and SIGTERM (received by a waiting thread, never
// handled in a signal handler) and fatal conditions (the output folder not writable, the disk
// full) ask the workers to take no new file; the files in progress finish (or fail and remove
// their temporaries), the report is written, and one line says how to resume.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

namespace fitsasdf::cli::batch {

/// Why the batch stopped before its last file.
enum class StopReason { kNone, kInterrupted, kFatal };

/// The stop request the workers check between files. Thread-safe; the first request wins.
class StopFlag {
 public:
  /// Ask for a stop because of `reason`, with `message` saying what happened (one line).
  /// Return true for the first request, false when a stop was asked for already.
  bool request(StopReason reason, const std::string& message);
  /// Return true when a stop was asked for.
  bool requested() const noexcept { return reason_.load() != StopReason::kNone; }
  /// Return the reason of the first request.
  StopReason reason() const noexcept { return reason_.load(); }
  /// Return the message of the first request.
  std::string message() const;

 private:
  std::atomic<StopReason> reason_{StopReason::kNone};
  mutable std::mutex mutex_;
  std::string message_;
};

/// Blocks SIGINT and SIGTERM in this thread and every thread started after it (restoring the
/// mask on destruction), so that `wait` can receive them synchronously; and SIGRTMAX, which
/// `wake` sends to end a thread's `wait` at once.
class BlockedSignals {
 public:
  BlockedSignals();
  ~BlockedSignals();
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  /// Wait up to `milliseconds` for SIGINT or SIGTERM; return the signal number, or 0 when none
  /// came in time or `wake` ended the wait.
  int wait(int milliseconds) const;

  /// End the current or next `wait` of `thread` (started after this object), which returns 0.
  void wake(pthread_t thread) const;

 private:
  sigset_t set_{};
  sigset_t old_{};
};

/// Return true when `code` (an errno value) means the output side cannot go on: no space
/// (ENOSPC), quota exceeded (EDQUOT), read-only file system (EROFS), permission denied
/// (EACCES, EPERM), a failing device (EIO: every later output would fail the same way, and the
/// input is not to blame).
bool fatal_errno(int code) noexcept;

/// Return the errno value whose message (strerror) ends `message`, or 0 when it names none of
/// the `fatal_errno` codes. The library's I/O errors end with strerror's text.
int fatal_errno_in(const std::string& message);

/// Return a one-line description of a fatal errno value ("the disk is full (No space left on
/// device)").
std::string describe_fatal(int code);

}  // namespace fitsasdf::cli::batch
