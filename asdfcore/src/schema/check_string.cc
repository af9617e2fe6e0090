// minLength, maxLength (in code points, as python's len counts) and pattern.

#include "schema/evaluate.h"

namespace asdfcore::schema::detail {
namespace {

std::uint64_t code_points(const std::string& text) {
  std::uint64_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

bool check_string(const Schema& s, const tree::Node& instance, Context& ctx) {
  if (!instance.is_string()) return true;
  if (!s.min_length && !s.max_length && !s.pattern) return true;
  bool ok = true;
  const std::string& text = instance.as_string();
  if (s.min_length || s.max_length) {
    const std::uint64_t length = code_points(text);
    if (s.min_length && length < *s.min_length) {
      ok = fail(ctx, s, "minLength", show(instance) + " is too short", instance);
      if (ctx.verdict_only()) return false;
    }
    if (s.max_length && length > *s.max_length) {
      ok = fail(ctx, s, "maxLength", show(instance) + " is too long", instance);
      if (ctx.verdict_only()) return false;
    }
  }
  if (s.pattern) {
    const auto matched = s.pattern->search(text);
    if (!matched) {
      ok = fail(ctx, s, "pattern",
                "cannot decide whether " + show(instance) + " matches '" + s.pattern->pattern() +
                    "' (invalid UTF-8, or the match limit was reached)",
                instance);
    } else if (!*matched) {
      ok = fail(ctx, s, "pattern",
                show(instance) + " does not match '" + s.pattern->pattern() + "'", instance);
    }
  }
  return ok;
}

}  // namespace asdfcore::schema::detail
