// The streaming writer: the layout writer runs on a thread of its own and pulls the last
// block's data from `append` calls through a hand-off (the caller's bytes are copied once,
// into the writer's chunk or the codec's piece; nothing else is buffered).
#include "asdfcore/stream_writer.h"

#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "api/write_plan.h"

namespace asdfcore {

struct StreamWriter::State {
  std::string path;
  WritePlan plan;
  AsdfWriteOptions layout;
  ndarray::DType dtype;
  std::optional<std::uint64_t> total;  ///< A pending array's bytes.
  std::uint64_t frame_bytes = 0;       ///< A streamed array's bytes per frame.

  std::mutex mutex;
  std::condition_variable changed;
  std::span<const std::uint8_t> handed;  ///< Bytes of the current `append`, not yet taken.
  std::uint64_t pulled = 0;              ///< Bytes the writer has taken.
  std::uint64_t appended = 0;            ///< Bytes `append` calls delivered.
  bool finishing = false;                ///< `close` was called: no more data.
  bool abandoned = false;                ///< Destroyed or failed before `close`.
  bool done = false;                     ///< The writing thread has finished.
  bool closed = false;                   ///< `close` was called (successfully or not).
  std::exception_ptr error;              ///< Why the writing thread failed.
  std::thread thread;

  /// Give the writer the next bytes (called on the writing thread).
  std::size_t pull(std::span<std::uint8_t> buffer) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return !handed.empty() || finishing || abandoned; });
    if (abandoned) {
      throw Error(ErrorCode::kCancelled, "the stream writer was abandoned before close()");
    }
    const std::size_t n = std::min(buffer.size(), handed.size());
    if (n > 0) std::memcpy(buffer.data(), handed.data(), n);
    handed = handed.subspan(n);
    pulled += n;
    if (handed.empty()) changed.notify_all();
    // A pending array's last bytes are held back until `close`, so the file is not completed
    // (renamed into place) before the caller says so.
    if (total && pulled == *total) {
      changed.wait(lock, [&] { return finishing || abandoned; });
      if (abandoned) {
        throw Error(ErrorCode::kCancelled, "the stream writer was abandoned before close()");
      }
    }
    return n;
  }

  /// Stop the writing thread without completing the file, and wait for it.
  void abandon() {
    {
      std::lock_guard lock(mutex);
      abandoned = true;
    }
    changed.notify_all();
    if (thread.joinable()) thread.join();
  }
};

StreamWriter::StreamWriter(const std::string& path, const Tree& tree, const WriteOptions& options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = path;
  try {
    s.plan = plan_write(tree, options, true);
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = path});
  }
  s.layout = layout_options(options);
  s.dtype = s.plan.stream->dtype;
  std::uint64_t elements = 1;
  for (std::uint64_t d : s.plan.stream->shape) elements *= d;
  if (s.plan.stream->kind == Array::Kind::kPending) {
    s.total = elements * s.dtype.itemsize();
  } else {
    s.frame_bytes = elements * s.dtype.itemsize();
  }
  s.plan.blocks.back().source = [state = state_.get()](std::span<std::uint8_t> buffer) {
    return state->pull(buffer);
  };
  s.thread = std::thread([state = state_.get()] {
    try {
      write_asdf(state->path, state->plan.root, state->plan.blocks, state->layout);
    } catch (...) {
      std::lock_guard lock(state->mutex);
      state->error = std::current_exception();
    }
    {
      std::lock_guard lock(state->mutex);
      state->done = true;
    }
    state->changed.notify_all();
  });
}

StreamWriter::~StreamWriter() {
  if (state_ && state_->thread.joinable()) state_->abandon();
}

void StreamWriter::check_type(ndarray::DTypeKind kind) const {
  if (state_->dtype.kind() != kind) {
    throw Error(ErrorCode::kWrongType,
                "the array holds " + state_->dtype.to_string() + ", not " +
                    std::string(ndarray::kind_info(kind).numpy_name),
                ErrorContext{.file = state_->path});
  }
}

void StreamWriter::append_bytes(std::span<const std::uint8_t> bytes) {
  State& s = *state_;
  const ErrorContext at{.file = s.path};
  if (s.closed) throw Error(ErrorCode::kInvalidArgument, "append after close()", at);
  if (s.total && s.appended + bytes.size() > *s.total) {
    throw Error(ErrorCode::kInvalidArgument,
                "the array holds " + std::to_string(*s.total) + " bytes; " +
                    std::to_string(s.appended) + " were appended and " +
                    std::to_string(bytes.size()) + " more do not fit",
                at);
  }
  if (bytes.empty()) return;
  std::unique_lock lock(s.mutex);
  if (s.done) {
    if (s.error) std::rethrow_exception(s.error);
    throw Error(ErrorCode::kInvalidArgument, "the file is already complete", at);
  }
  s.handed = bytes;
  s.changed.notify_all();
  s.changed.wait(lock, [&] { return s.handed.empty() || s.done; });
  if (!s.handed.empty()) {
    s.handed = {};
    if (s.error) std::rethrow_exception(s.error);
    throw Error(ErrorCode::kIo, "the writer stopped before taking the data", at);
  }
  s.appended += bytes.size();
}

std::uint64_t StreamWriter::bytes_appended() const noexcept { return state_->appended; }

void StreamWriter::close() {
  State& s = *state_;
  const ErrorContext at{.file = s.path};
  if (s.closed) throw Error(ErrorCode::kInvalidArgument, "close() was already called", at);
  s.closed = true;
  if (s.total && s.appended != *s.total) {
    s.abandon();
    throw Error(ErrorCode::kInvalidArgument,
                "the array holds " + std::to_string(*s.total) + " bytes but only " +
                    std::to_string(s.appended) + " were appended; nothing was written",
                at);
  }
  if (!s.total && s.frame_bytes > 0 && s.appended % s.frame_bytes != 0) {
    s.abandon();
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(s.appended) + " bytes were appended, not a whole number of " +
                    std::to_string(s.frame_bytes) + "-byte frames; nothing was written",
                at);
  }
  {
    std::lock_guard lock(s.mutex);
    s.finishing = true;
  }
  s.changed.notify_all();
  s.thread.join();
  if (s.error) std::rethrow_exception(s.error);
}

}  // namespace asdfcore
