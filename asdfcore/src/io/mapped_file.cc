#include "asdfcore/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "asdfcore/error.h"

namespace asdfcore::io {
namespace {

/// Owns one mapping; unmapped when the last buffer referring to it goes away.
struct Mapping {
  void* address = nullptr;
  std::size_t length = 0;
  Mapping(void* a, std::size_t n) : address(a), length(n) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (address != nullptr) munmap(address, length);
  }
};

/// Closes a descriptor on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(err), ErrorContext{.file = path});
}

}  // namespace

Buffer map_file(const std::string& path) {
  Fd file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail(path, "cannot open for reading", errno);
  struct stat st {};
  if (fstat(file.fd, &st) != 0) fail(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) {
    throw Error(ErrorCode::kIo, "is a directory, not a file", ErrorContext{.file = path});
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kIo, "is not a regular file (device, pipe or socket)",
                ErrorContext{.file = path});
  }
  const auto length = static_cast<std::size_t>(st.st_size);
  if (length == 0) return Buffer();
  void* address = mmap(nullptr, length, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED) fail(path, "cannot map into memory", errno);
  madvise(address, length, MADV_SEQUENTIAL);
  auto mapping = std::make_shared<Mapping>(address, length);
  std::span<const std::uint8_t> bytes(static_cast<const std::uint8_t*>(address), length);
  Buffer out(std::move(mapping), bytes);
  out.mark_file_backed();
  return out;
}

}  // namespace asdfcore::io
