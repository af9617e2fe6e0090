// Stop requests, the blocked signals the monitor thread waits for, and which errors are fatal.
#include "batch/batch_stop.h"

#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace fitsasdf::cli::batch {
namespace {

constexpr int kFatalCodes[] = {ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EIO};

}  // namespace

bool StopFlag::request(StopReason reason, const std::string& message) {
  const std::lock_guard<std::mutex> lock(mutex_);
  StopReason none = StopReason::kNone;
  if (!reason_.compare_exchange_strong(none, reason)) return false;
  message_ = message;
  return true;
}

std::string StopFlag::message() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return message_;
}

BlockedSignals::BlockedSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGRTMAX);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
}

BlockedSignals::~BlockedSignals() {
  // A signal that came after the last wait stays pending and acts when unblocked, as it would
  // have without us.
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int BlockedSignals::wait(int milliseconds) const {
  timespec timeout{};
  timeout.tv_sec = milliseconds / 1000;
  timeout.tv_nsec = static_cast<long>(milliseconds % 1000) * 1000000L;
  const int signal = sigtimedwait(&set_, nullptr, &timeout);
  return signal > 0 && signal != SIGRTMAX ? signal : 0;
}

void BlockedSignals::wake(pthread_t thread) const { pthread_kill(thread, SIGRTMAX); }

bool fatal_errno(int code) noexcept {
  for (int fatal : kFatalCodes) {
    if (code == fatal) return true;
  }
  return false;
}

int fatal_errno_in(const std::string& message) {
  for (int code : kFatalCodes) {
    const std::string text = std::strerror(code);
    if (message.size() >= text.size() &&
        message.compare(message.size() - text.size(), text.size(), text) == 0) {
      return code;
    }
  }
  return 0;
}

std::string describe_fatal(int code) {
  std::string what;
  switch (code) {
    case ENOSPC:
      what = "the disk is full";
      break;
    case EDQUOT:
      what = "the disk quota is exceeded";
      break;
    case EROFS:
      what = "the output file system is read-only";
      break;
    case EIO:
      what = "the output device failed";
      break;
    default:
      what = "the output folder is not writable";
      break;
  }
  return what + " (" + std::strerror(code) + ")";
}

}  // namespace fitsasdf::cli::batch
