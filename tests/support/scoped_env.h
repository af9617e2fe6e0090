#pragma once
// Set an environment variable for the life of a scope (tests run their cases one at a time in
// a process, so changing the environment there is safe).
#include <cstdlib>
#include <optional>
#include <string>

namespace fitsasdf::test {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// Within its scope, writes are not validated (FITSASDF_VALIDATE_WRITES=0): for the tests that
/// make non-conforming files on purpose (what older writers produced, trees a reader must cope
/// with).
class WritesUnvalidated : public ScopedEnv {
 public:
  WritesUnvalidated() : ScopedEnv("FITSASDF_VALIDATE_WRITES", "0") {}
};

}  // namespace fitsasdf::test
