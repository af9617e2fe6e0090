#include "progress/meter.h"

#include <algorithm>

#include "asdfcore/error.h"

namespace fitsasdf::progress {
namespace {

/// Report at least this often (bytes of the total).
constexpr std::uint64_t kEvery = std::uint64_t{4} << 20;

}  // namespace

Meter::Meter(const RunControl& control, std::string file)
    : control_(control), file_(std::move(file)) {
  check();
}

void Meter::check() const {
  if (control_.cancel.cancelled()) {
    throw asdfcore::Error(asdfcore::ErrorCode::kCancelled, "cancelled by the caller",
                          asdfcore::ErrorContext{.file = file_});
  }
}

void Meter::start(std::uint64_t total, int hdu_count, std::string_view stage) {
  total_ = total;
  hdu_count_ = hdu_count;
  done_ = 0;
  enter(stage, 0);
}

void Meter::enter(std::string_view stage, int hdu) {
  check();
  stage_ = stage;
  hdu_ = hdu;
  report();
}

void Meter::share(std::uint64_t units, std::uint64_t bytes) {
  close_share();
  shared_ = true;
  share_base_ = done_;
  share_bytes_ = std::min(bytes, total_ - done_);
  share_units_ = units;
  share_done_ = 0;
}

void Meter::advance(std::uint64_t units) {
  check();
  if (!shared_) {
    move_to(done_ + std::min(units, total_ - done_));
    return;
  }
  share_done_ += std::min(units, share_units_ - share_done_);
  const std::uint64_t part =
      share_done_ >= share_units_
          ? share_bytes_
          : static_cast<std::uint64_t>(static_cast<long double>(share_bytes_) * share_done_ /
                                       share_units_);
  move_to(share_base_ + std::min(part, share_bytes_));
}

void Meter::close_share() {
  if (!shared_) return;
  shared_ = false;
  move_to(share_base_ + share_bytes_);
}

void Meter::finish() {
  close_share();
  done_ = total_;
  if (!reported_total_) report();
}

void Meter::move_to(std::uint64_t done) {
  done_ = std::clamp(done, done_, total_);
  if (done_ >= reported_ + kEvery || (done_ == total_ && !reported_total_)) report();
}

void Meter::report() {
  if (done_ == total_) reported_total_ = true;
  reported_ = done_;
  if (control_.progress) {
    control_.progress(Progress{stage_, hdu_, hdu_count_, done_, total_});
    check();  // a cancel from the callback stops the call at once
  }
}

RunControl Meter::nested(std::uint64_t bytes) {
  close_share();
  RunControl inner;
  inner.cancel = control_.cancel;
  if (!control_.progress) return inner;
  const std::uint64_t base = done_;
  const std::uint64_t width = std::min(bytes, total_ - done_);
  inner.progress = [this, base, width](const Progress& p) {
    const std::uint64_t part =
        p.total == 0 || p.done >= p.total
            ? width
            : static_cast<std::uint64_t>(static_cast<long double>(width) * p.done / p.total);
    stage_ = p.stage;
    hdu_ = p.hdu;
    if (hdu_count_ == 0) hdu_count_ = p.hdu_count;
    done_ = std::clamp(base + std::min(part, width), done_, total_);
    report();  // every report of the nested call, at its own pace
  };
  return inner;
}

}  // namespace fitsasdf::progress
