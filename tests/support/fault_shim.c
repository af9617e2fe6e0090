// An LD_PRELOAD shim that makes file system calls fail as a full disk, an exhausted quota, a
// failing device, a folder without permission or a read-only file system make them fail, for
// files whose path contains a given text. It lets the tests check fitsasdf's fatal-error paths
// (exit status 3, no partial output, a resumable batch) in every environment: no privileges,
// no user namespaces, no mounts. Built by the tests (tests/CMakeLists.txt), never installed.
//
// Driven by the environment of the process it is loaded into:
//   FITSASDF_FAULT_ERRNO        ENOSPC, EDQUOT, EIO, EACCES, EROFS, EPERM or a number; unset or
//                               empty: every call passes through unchanged
//   FITSASDF_FAULT_PATH_SUBSTR  only paths containing this text fail (default: every path)
//   FITSASDF_FAULT_AFTER_BYTES  let this many bytes be written to matching files (all of them
//                               together, in this process) before writes fail (default 0); the
//                               write that crosses the limit is cut short, as on a full disk
//   FITSASDF_FAULT_OPS          which calls fail, a comma-separated list of
//                                 write:  write, writev, pwrite, pwritev, copy_file_range
//                                         (its output), fallocate, posix_fallocate
//                                 sync:   fsync, fdatasync (with write: once the byte budget
//                                         is spent; without: every one)
//                                 create: open/openat/creat for writing or creating, mkstemp
//                                         and its kin, mkdir, mkdirat
//                               default: write,sync for ENOSPC, EDQUOT and EIO; create otherwise
//   FITSASDF_FAULT_LOG          append one line per failed call ("call path") to this file
//
// Which descriptors belong to a matching path is learned when they are opened through the
// calls above (no /proc needed: a bare chroot has none) and forgotten when they are closed.
// Calls glibc makes internally (stdio's writes) are not seen; fitsasdf writes through the
// calls above. The shim must not be built with sanitizers; under AddressSanitizer the runtime
// is preloaded first: LD_PRELOAD="$(gcc -print-file-name=libasan.so) fault_shim.so".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { kOpWrite = 1, kOpSync = 2, kOpCreate = 4 };
enum { kMaxFds = 65536 };

static int fault_errno;                          // 0: inactive
static const char* path_substr;                  // NULL: every path
static uint64_t budget;                          // bytes allowed before writes fail
static int ops;                                  // kOp* bits
static const char* log_path;                     // NULL: no log
static _Atomic uint64_t written;                 // bytes written to matching files so far
static _Atomic unsigned char matching[kMaxFds];  // 1: the descriptor is a matching file

static int errno_from_name(const char* name) {
  static const struct {
    const char* name;
    int code;
  } kNames[] = {{"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EIO", EIO},
                {"EACCES", EACCES}, {"EROFS", EROFS},   {"EPERM", EPERM}};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
    if (strcmp(name, kNames[i].name) == 0) return kNames[i].code;
  }
  return atoi(name);
}

__attribute__((constructor)) static void fault_init(void) {
  const char* name = getenv("FITSASDF_FAULT_ERRNO");
  if (name == NULL || *name == '\0') return;
  fault_errno = errno_from_name(name);
  if (fault_errno <= 0) {
    fault_errno = 0;
    return;
  }
  path_substr = getenv("FITSASDF_FAULT_PATH_SUBSTR");
  if (path_substr != NULL && *path_substr == '\0') path_substr = NULL;
  const char* after = getenv("FITSASDF_FAULT_AFTER_BYTES");
  budget = after ? strtoull(after, NULL, 10) : 0;
  log_path = getenv("FITSASDF_FAULT_LOG");
  const char* list = getenv("FITSASDF_FAULT_OPS");
  if (list == NULL || *list == '\0') {
    ops = fault_errno == ENOSPC || fault_errno == EDQUOT || fault_errno == EIO ? kOpWrite | kOpSync
                                                                               : kOpCreate;
  } else {
    if (strstr(list, "write")) ops |= kOpWrite;
    if (strstr(list, "sync")) ops |= kOpSync;
    if (strstr(list, "create")) ops |= kOpCreate;
  }
}

// The next definition of `name` (libc's, or a sanitizer runtime's interceptor's next).
#define REAL(ret, name, ...)              \
  static ret (*real_##name)(__VA_ARGS__); \
  if (real_##name == NULL) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static int path_matches(const char* path) {
  return fault_errno != 0 && path != NULL && (path_substr == NULL || strstr(path, path_substr));
}

static int fd_matches(int fd) {
  return fault_errno != 0 && fd >= 0 && fd < kMaxFds && atomic_load(&matching[fd]);
}

static void remember(int fd, const char* path) {
  if (fd >= 0 && fd < kMaxFds) atomic_store(&matching[fd], (unsigned char)path_matches(path));
}

// Append "call what" to the log, with libc's own calls (never through this shim's).
static void note(const char* call, const char* what) {
  if (log_path == NULL) return;
  REAL(int, open, const char*, int, ...);
  REAL(ssize_t, write, int, const void*, size_t);
  REAL(int, close, int);
  const int fd = real_open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[4096];
  const int n = snprintf(line, sizeof line, "%s %s\n", call, what ? what : "");
  if (n > 0) (void)!real_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  real_close(fd);
}

static void note_fd(const char* call, int fd) {
  char what[32];
  snprintf(what, sizeof what, "fd %d", fd);
  note(call, what);
}

// How many of `count` bytes a write to `fd` may write: `count` when the fd does not match or
// the budget allows it all, fewer when it crosses the budget, -1 (errno set) when spent.
static ssize_t allowance(const char* call, int fd, size_t count) {
  if (!(ops & kOpWrite) || !fd_matches(fd) || count == 0) return (ssize_t)count;
  uint64_t before = atomic_load(&written);
  for (;;) {
    if (before >= budget) {
      note_fd(call, fd);
      errno = fault_errno;
      return -1;
    }
    const uint64_t room = budget - before;
    const uint64_t take = count < room ? count : room;
    if (atomic_compare_exchange_weak(&written, &before, before + take)) return (ssize_t)take;
  }
}

static int fail_create(const char* call, const char* path) {
  if (!(ops & kOpCreate) || !path_matches(path)) return 0;
  note(call, path);
  errno = fault_errno;
  return 1;
}

static int writes_to(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

// --- descriptors opened ----------------------------------------------------------------------

static int open_common(const char* call, int dirfd, const char* path, int flags, mode_t mode,
                       int at) {
  if (writes_to(flags) && fail_create(call, path)) return -1;
  int fd;
  if (at) {
    REAL(int, openat, int, const char*, int, ...);
    fd = real_openat(dirfd, path, flags, mode);
  } else {
    REAL(int, open, const char*, int, ...);
    fd = real_open(path, flags, mode);
  }
  remember(fd, path);
  return fd;
}

// Declare `mode`: the mode argument of an open call whose last named parameter is `flags`,
// present only when the call creates a file (0 otherwise).
#define MODE_ARG(flags)                    \
  mode_t mode = 0;                         \
  if ((flags) & (O_CREAT | __O_TMPFILE)) { \
    va_list ap;                            \
    va_start(ap, flags);                   \
    mode = va_arg(ap, mode_t);             \
    va_end(ap);                            \
  }

int open(const char* path, int flags, ...) {
  MODE_ARG(flags);
  return open_common("open", AT_FDCWD, path, flags, mode, 0);
}

int open64(const char* path, int flags, ...) {
  MODE_ARG(flags);
  return open_common("open64", AT_FDCWD, path, flags, mode, 0);
}

int openat(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags);
  return open_common("openat", dirfd, path, flags, mode, 1);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags);
  return open_common("openat64", dirfd, path, flags, mode, 1);
}

int creat(const char* path, mode_t mode) {
  return open_common("creat", AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, 0);
}

int creat64(const char* path, mode_t mode) {
  return open_common("creat64", AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, 0);
}

// mkstemp and its kin: the template names the file (its XXXXXX filled in on success).
int mkstemp(char* tmpl) {
  if (fail_create("mkstemp", tmpl)) return -1;
  REAL(int, mkstemp, char*);
  const int fd = real_mkstemp(tmpl);
  remember(fd, tmpl);
  return fd;
}

int mkstemp64(char* tmpl) {
  if (fail_create("mkstemp64", tmpl)) return -1;
  REAL(int, mkstemp64, char*);
  const int fd = real_mkstemp64(tmpl);
  remember(fd, tmpl);
  return fd;
}

int mkostemp(char* tmpl, int flags) {
  if (fail_create("mkostemp", tmpl)) return -1;
  REAL(int, mkostemp, char*, int);
  const int fd = real_mkostemp(tmpl, flags);
  remember(fd, tmpl);
  return fd;
}

int mkostemp64(char* tmpl, int flags) {
  if (fail_create("mkostemp64", tmpl)) return -1;
  REAL(int, mkostemp64, char*, int);
  const int fd = real_mkostemp64(tmpl, flags);
  remember(fd, tmpl);
  return fd;
}

int mkostemps(char* tmpl, int suffixlen, int flags) {
  if (fail_create("mkostemps", tmpl)) return -1;
  REAL(int, mkostemps, char*, int, int);
  const int fd = real_mkostemps(tmpl, suffixlen, flags);
  remember(fd, tmpl);
  return fd;
}

int mkdir(const char* path, mode_t mode) {
  if (fail_create("mkdir", path)) return -1;
  REAL(int, mkdir, const char*, mode_t);
  return real_mkdir(path, mode);
}

int mkdirat(int dirfd, const char* path, mode_t mode) {
  if (fail_create("mkdirat", path)) return -1;
  REAL(int, mkdirat, int, const char*, mode_t);
  return real_mkdirat(dirfd, path, mode);
}

int close(int fd) {
  if (fd >= 0 && fd < kMaxFds) atomic_store(&matching[fd], 0);
  REAL(int, close, int);
  return real_close(fd);
}

// --- writes ---------------------------------------------------------------------------------

ssize_t write(int fd, const void* buf, size_t count) {
  const ssize_t allowed = allowance("write", fd, count);
  if (allowed < 0) return -1;
  REAL(ssize_t, write, int, const void*, size_t);
  return real_write(fd, buf, (size_t)allowed);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  const ssize_t allowed = allowance("pwrite", fd, count);
  if (allowed < 0) return -1;
  REAL(ssize_t, pwrite, int, const void*, size_t, off_t);
  return real_pwrite(fd, buf, (size_t)allowed, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
  const ssize_t allowed = allowance("pwrite64", fd, count);
  if (allowed < 0) return -1;
  REAL(ssize_t, pwrite64, int, const void*, size_t, off_t);
  return real_pwrite64(fd, buf, (size_t)allowed, offset);
}

// The vector calls write at most the allowance: the iovec list is cut to it.
static int cut_iov(const struct iovec* iov, int count, size_t allowed, struct iovec* out) {
  int n = 0;
  for (int i = 0; i < count && allowed > 0; ++i) {
    out[n] = iov[i];
    if (out[n].iov_len > allowed) out[n].iov_len = allowed;
    allowed -= out[n].iov_len;
    ++n;
  }
  return n;
}

static size_t iov_total(const struct iovec* iov, int count) {
  size_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  return total;
}

// The iovec list `iov` (`*count` entries) cut to `allowed` bytes in `cut` (at most kMaxCut);
// returns the list to write.
enum { kMaxCut = 1024 };
static const struct iovec* limit_iov(const struct iovec* iov, int* count, size_t total,
                                     size_t allowed, struct iovec* cut) {
  if (allowed == total) return iov;
  *count = cut_iov(iov, *count < kMaxCut ? *count : kMaxCut, allowed, cut);
  return cut;
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  const size_t total = iov_total(iov, count);
  const ssize_t allowed = allowance("writev", fd, total);
  if (allowed < 0) return -1;
  struct iovec cut[kMaxCut];
  iov = limit_iov(iov, &count, total, (size_t)allowed, cut);
  REAL(ssize_t, writev, int, const struct iovec*, int);
  return real_writev(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  const size_t total = iov_total(iov, count);
  const ssize_t allowed = allowance("pwritev", fd, total);
  if (allowed < 0) return -1;
  struct iovec cut[kMaxCut];
  iov = limit_iov(iov, &count, total, (size_t)allowed, cut);
  REAL(ssize_t, pwritev, int, const struct iovec*, int, off_t);
  return real_pwritev(fd, iov, count, offset);
}

ssize_t copy_file_range(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t len,
                        unsigned int flags) {
  const ssize_t allowed = allowance("copy_file_range", fd_out, len);
  if (allowed < 0) return -1;
  REAL(ssize_t, copy_file_range, int, off_t*, int, off_t*, size_t, unsigned int);
  return real_copy_file_range(fd_in, off_in, fd_out, off_out, (size_t)allowed, flags);
}

// Reserving space: fails as soon as the budget cannot hold it.
static int reserve_fails(const char* call, int fd, off_t len) {
  if (!(ops & kOpWrite) || !fd_matches(fd)) return 0;
  if (atomic_load(&written) + (uint64_t)len <= budget) return 0;
  note_fd(call, fd);
  return 1;
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
  if (reserve_fails("fallocate", fd, len)) {
    errno = fault_errno;
    return -1;
  }
  REAL(int, fallocate, int, int, off_t, off_t);
  return real_fallocate(fd, mode, offset, len);
}

int posix_fallocate(int fd, off_t offset, off_t len) {
  if (reserve_fails("posix_fallocate", fd, len)) return fault_errno;  // returns, not errno
  REAL(int, posix_fallocate, int, off_t, off_t);
  return real_posix_fallocate(fd, offset, len);
}

// --- syncs: with writes failing, once the budget is spent (data that did not fit cannot be
// flushed); alone, every flush (a device or network file system failing late) ----------------

static int sync_fails(const char* call, int fd) {
  if (!(ops & kOpSync) || !fd_matches(fd)) return 0;
  if ((ops & kOpWrite) && atomic_load(&written) < budget) return 0;
  note_fd(call, fd);
  errno = fault_errno;
  return 1;
}

int fsync(int fd) {
  if (sync_fails("fsync", fd)) return -1;
  REAL(int, fsync, int);
  return real_fsync(fd);
}

int fdatasync(int fd) {
  if (sync_fails("fdatasync", fd)) return -1;
  REAL(int, fdatasync, int);
  return real_fdatasync(fd);
}
