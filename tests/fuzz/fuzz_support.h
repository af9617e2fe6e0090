#pragma once
// Helpers shared by the fuzz targets (each target is its own executable and includes this once):
// a private scratch folder per process in /dev/shm for the converters, which work on paths, and
// a guard that turns any open() of a path outside the allowed folder, made while the target
// runs, into a crash, so a reference that escapes its folder is reported as a finding.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace fuzz {

/// The folder (no trailing '/') open() may reach while `inside_target` is set; empty = any.
inline std::string allowed_prefix;
/// True while LLVMFuzzerTestOneInput runs.
inline bool inside_target = false;

/// Return this process's scratch folder (/dev/shm/fitsasdf-fuzz-<pid>), made on first use,
/// made TMPDIR, and removed when the process exits normally.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    std::filesystem::path d = base / ("fitsasdf-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    // The converters' own temporaries (temp_folder.h) go here too, so they are removed with it.
    ::setenv("TMPDIR", d.c_str(), 1);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

/// Write `size` bytes to `path` (replacing it). Returns false when the write fails.
inline bool write_file(const std::filesystem::path& path, const std::uint8_t* data,
                       std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

/// Remove every entry of the scratch folder (outputs, temporaries a failed write left).
inline void clean_scratch() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(scratch_dir(), ec)) {
    std::filesystem::remove_all(entry.path(), ec);
  }
}

/// Marks the time the target runs, for the open() guard.
struct TargetScope {
  TargetScope() { inside_target = true; }
  ~TargetScope() { inside_target = false; }
  TargetScope(const TargetScope&) = delete;
  TargetScope& operator=(const TargetScope&) = delete;
};

inline void check_path(const char* path) {
  if (!inside_target || allowed_prefix.empty() || path == nullptr) return;
  const std::string_view p(path);
  const bool inside = p == allowed_prefix || (p.starts_with(allowed_prefix) &&
                                               p.substr(allowed_prefix.size()).starts_with('/'));
  if (!inside || p.find("/../") != std::string_view::npos || p.ends_with("/..")) {
    std::fprintf(stderr, "fuzz: the library opened '%s', outside '%s'\n", path,
                 allowed_prefix.c_str());
    std::abort();
  }
}

}  // namespace fuzz

// The library opens files only through open() (io/mapped_file.cc, io/atomic_file.cc); this
// definition takes the place of libc's (and of ASan's interceptor) for the target executable.
extern "C" int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  fuzz::check_path(path);
  return ::openat(AT_FDCWD, path, flags, mode);
}
