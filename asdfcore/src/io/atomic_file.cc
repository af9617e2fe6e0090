#include "asdfcore/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <utility>
#include <cstring>
#include <filesystem>
#include <vector>

#include "asdfcore/error.h"

namespace asdfcore::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(err), ErrorContext{.file = path});
}

[[noreturn]] void exists(const std::string& path) {
  throw Error(ErrorCode::kExists, "the output exists and was not replaced (ask to overwrite it)",
              ErrorContext{.file = path});
}

// Rename `from` to `to` unless `to` exists, atomically. Where the file system has no
// RENAME_NOREPLACE (EINVAL), link() fails on an existing name just as atomically.
void rename_no_replace(const std::string& from, const std::string& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  int err = errno;
  if (err == EEXIST) exists(to);
  if (err == EINVAL || err == ENOSYS) {
    if (link(from.c_str(), to.c_str()) == 0) {
      unlink(from.c_str());
      return;
    }
    err = errno;
    if (err == EEXIST) exists(to);
  }
  fail(to, "cannot rename " + from + " into place", err);
}

}  // namespace

AtomicFile::AtomicFile(std::string path, bool durable) : path_(std::move(path)), durable_(durable) {
  std::filesystem::path final_path(path_);
  if (final_path.filename().empty()) {
    throw Error(ErrorCode::kInvalidArgument, "output path names a folder, not a file",
                ErrorContext{.file = path_});
  }
  std::filesystem::path folder = final_path.parent_path();
  if (folder.empty()) folder = ".";
  // A dot file so that folder listings and globbing skip it; the suffix is made unique by mkstemp.
  std::string pattern = (folder / ("." + final_path.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  fd_ = mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) fail(path_, "cannot create a temporary file in " + folder.string(), errno);
  temp_path_.assign(name.data());
  // mkstemp makes 0600 files; give the output the usual permissions under the umask.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd_, 0666 & ~mask);
}

AtomicFile::AtomicFile(std::string path, std::string temp_path, bool durable)
    : path_(std::move(path)), durable_(durable) {
  fd_ = ::open(temp_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) fail(temp_path, "cannot create a temporary file", errno);
  temp_path_ = std::move(temp_path);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(std::exchange(other.fd_, -1)),
      durable_(other.durable_),
      position_(other.position_) {
  other.temp_path_.clear();
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

void AtomicFile::write(std::span<const std::uint8_t> bytes) {
  const std::array<std::span<const std::uint8_t>, 1> one{bytes};
  write_all(one);
}

void AtomicFile::write_zeros(std::uint64_t count) {
  static const std::array<std::uint8_t, 65536> kZeros{};
  while (count > 0) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(count, kZeros.size()));
    write(std::span<const std::uint8_t>(kZeros.data(), n));
    count -= n;
  }
}

void AtomicFile::write_all(std::span<const std::span<const std::uint8_t>> parts) {
  if (fd_ < 0) {
    throw Error(ErrorCode::kInvalidArgument, "write after commit", ErrorContext{.file = path_});
  }
  // Gather the parts into iovec batches; partial writes resume where the kernel stopped.
  std::vector<iovec> iov;
  iov.reserve(std::min<std::size_t>(parts.size(), IOV_MAX));
  std::size_t next = 0;
  while (next < parts.size()) {
    iov.clear();
    for (; next < parts.size() && iov.size() < IOV_MAX; ++next) {
      if (parts[next].empty()) continue;
      iov.push_back(iovec{const_cast<std::uint8_t*>(parts[next].data()), parts[next].size()});
    }
    std::size_t first = 0;
    while (first < iov.size()) {
      const int count = static_cast<int>(std::min<std::size_t>(iov.size() - first, IOV_MAX));
      ssize_t written = writev(fd_, iov.data() + first, count);
      if (written < 0) {
        if (errno == EINTR) continue;
        fail(temp_path_, "cannot write output", errno);
      }
      position_ += static_cast<std::uint64_t>(written);
      auto left = static_cast<std::size_t>(written);
      while (first < iov.size() && left >= iov[first].iov_len) {
        left -= iov[first].iov_len;
        ++first;
      }
      if (left > 0) {
        iov[first].iov_base = static_cast<std::uint8_t*>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
      }
    }
  }
}

void AtomicFile::copy_from(int fd, std::uint64_t offset, std::uint64_t length) {
  if (fd_ < 0) {
    throw Error(ErrorCode::kInvalidArgument, "write after commit", ErrorContext{.file = path_});
  }
  auto in_offset = static_cast<off_t>(offset);
  std::uint64_t left = length;
  bool kernel_copy = true;
  std::vector<std::uint8_t> buffer;
  while (left > 0) {
    if (kernel_copy) {
      const ssize_t n = copy_file_range(fd, &in_offset, fd_, nullptr,
                                        static_cast<std::size_t>(std::min<std::uint64_t>(left, 1u << 30)), 0);
      if (n > 0) {
        left -= static_cast<std::uint64_t>(n);
        position_ += static_cast<std::uint64_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {
        throw Error(ErrorCode::kIo, "an input file ended before the range to copy",
                    ErrorContext{.file = path_});
      }
      kernel_copy = false;  // EXDEV, ENOSYS, EINVAL, ...: copy through user space instead
      buffer.resize(std::size_t{4} << 20);
    }
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer.size()));
    const ssize_t n = pread(fd, buffer.data(), want, in_offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCode::kIo,
                  n == 0 ? std::string("an input file ended before the range to copy")
                         : std::string("cannot read an input file: ") + std::strerror(errno),
                  ErrorContext{.file = path_});
    }
    write(std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(n)));
    in_offset += n;
    left -= static_cast<std::uint64_t>(n);
  }
}

void AtomicFile::write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (fd_ < 0 || offset > position_ || bytes.size() > position_ - offset) {
    throw Error(ErrorCode::kInvalidArgument, "write_at outside what was written",
                ErrorContext{.file = path_});
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = pwrite(fd_, bytes.data() + done, bytes.size() - done,
                             static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(temp_path_, "cannot write output", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFile::set_mode(unsigned mode) {
  if (fd_ >= 0 && fchmod(fd_, static_cast<mode_t>(mode & 07777)) != 0) {
    fail(temp_path_, "cannot set the permissions of the output", errno);
  }
}

void AtomicFile::set_owner(unsigned uid, unsigned gid) noexcept {
  if (fd_ >= 0) (void)fchown(fd_, static_cast<uid_t>(uid), static_cast<gid_t>(gid));
}

void AtomicFile::commit(bool replace) {
  if (fd_ < 0) {
    throw Error(ErrorCode::kInvalidArgument, "commit after commit", ErrorContext{.file = path_});
  }
  if (durable_ && fdatasync(fd_) != 0) fail(temp_path_, "cannot flush output to disk", errno);
  if (close(fd_) != 0) {
    fd_ = -1;
    fail(temp_path_, "cannot close output", errno);
  }
  fd_ = -1;
  if (!replace) {
    rename_no_replace(temp_path_, path_);
  } else if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    fail(path_, "cannot rename " + temp_path_ + " into place", errno);
  }
  temp_path_.clear();
  if (durable_) {
    // Make the rename itself durable: sync the folder entry.
    std::filesystem::path folder = std::filesystem::path(path_).parent_path();
    int dir = open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      fsync(dir);
      close(dir);
    }
  }
}

}  // namespace asdfcore::io
