#include "fits/spill_buffer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace fitsasdf::fits {

using asdfcore::Error;
using asdfcore::ErrorCode;

namespace {

std::string temporary_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

/// An open file with no name in `folder`: O_TMPFILE where the file system has it, else a named
/// file removed at once.
int unnamed_file(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  std::string name = folder + "/.fitsasdf-heap-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

SpillBuffer::SpillBuffer(std::size_t memory_limit, asdfcore::ErrorContext where)
    : memory_limit_(memory_limit), where_(std::move(where)) {}

SpillBuffer::~SpillBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

SpillBuffer::SpillBuffer(SpillBuffer&& other) noexcept
    : memory_limit_(other.memory_limit_),
      where_(std::move(other.where_)),
      memory_(std::move(other.memory_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(std::exchange(other.size_, 0)) {}

void SpillBuffer::spill() {
  const std::string folder = temporary_folder();
  fd_ = unnamed_file(folder);
  if (fd_ < 0) {
    throw Error(ErrorCode::kIo,
                "cannot make a temporary file in " + folder +
                    " for the compressed image's heap: " + std::strerror(errno),
                where_);
  }
  std::vector<std::uint8_t> held;
  held.swap(memory_);
  write_at(0, held);
}

void SpillBuffer::write_at(std::uint64_t at, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCode::kIo,
                  "cannot write the compressed image's heap to a temporary file in " +
                      temporary_folder() + ": " + std::strerror(n < 0 ? errno : ENOSPC),
                  where_);
    }
    done += static_cast<std::size_t>(n);
  }
}

void SpillBuffer::append(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0 && memory_.size() + bytes.size() > memory_limit_) spill();
  if (fd_ < 0) {
    memory_.insert(memory_.end(), bytes.begin(), bytes.end());
  } else {
    write_at(size_, bytes);
  }
  size_ += bytes.size();
}

void SpillBuffer::read_all(const std::function<void(std::span<const std::uint8_t>)>& out) const {
  if (fd_ < 0) {
    if (!memory_.empty()) out(memory_);
    return;
  }
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  std::vector<std::uint8_t> piece(static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, size_)));
  for (std::uint64_t at = 0; at < size_;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), size_ - at));
    const ssize_t n = ::pread(fd_, piece.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCode::kIo,
                  "cannot read the compressed image's heap back from its temporary file: " +
                      std::string(n < 0 ? std::strerror(errno) : "it is shorter than written"),
                  where_);
    }
    out(std::span<const std::uint8_t>(piece.data(), static_cast<std::size_t>(n)));
    at += static_cast<std::uint64_t>(n);
  }
}

}  // namespace fitsasdf::fits
