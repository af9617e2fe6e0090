#pragma once
// ECMA-262 regular expressions for `pattern` and `patternProperties`, through PCRE2 (Debian's
// libpcre2-8) in its JavaScript-compatible settings: UTF-8 code points, `$` only at the end,
// `\uXXXX` escapes, `[]` and `[^]` classes. Matching is bounded (PCRE2's match limits), so a
// hostile pattern or string gives a finding, never a hang or a stack overflow.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace asdfcore::schema::detail {

class Regex {
 public:
  // Compile `pattern`. Throws `Error` (malformed) naming the pattern when it does not compile.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Return whether the expression matches somewhere in `subject`; nullopt when the match
  // could not be decided (invalid UTF-8, or a match limit reached).
  std::optional<bool> search(std::string_view subject) const;
  const std::string& pattern() const noexcept { return pattern_; }

 private:
  std::string pattern_;
  struct Code;
  std::unique_ptr<Code> code_;
};

}  // namespace asdfcore::schema::detail
