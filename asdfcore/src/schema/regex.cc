#include "schema/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "asdfcore/error.h"

namespace asdfcore::schema::detail {

struct Regex::Code {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  ~Code() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

Regex::Regex(std::string_view pattern) : pattern_(pattern), code_(std::make_unique<Code>()) {
  pcre2_compile_context* compile = pcre2_compile_context_create(nullptr);
  // \uXXXX and \x{...} as JavaScript writes them.
  pcre2_set_compile_extra_options(compile, PCRE2_EXTRA_ALT_BSUX);
  int error = 0;
  PCRE2_SIZE offset = 0;
  const std::uint32_t options =
      PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              options, &error, &offset, compile);
  pcre2_compile_context_free(compile);
  if (code_->code == nullptr) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(error, buffer, sizeof buffer);
    throw Error(ErrorCode::kMalformed, "the regular expression '" + pattern_ +
                                           "' does not compile (at character " +
                                           std::to_string(offset) + "): " +
                                           reinterpret_cast<const char*>(buffer));
  }
  code_->context = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(code_->context, 10'000'000);
  pcre2_set_depth_limit(code_->context, 100'000);
  pcre2_set_heap_limit(code_->context, 64 * 1024);  // KiB
}

Regex::~Regex() = default;

std::optional<bool> Regex::search(std::string_view subject) const {
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  const int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                             subject.size(), 0, 0, data, code_->context);
  pcre2_match_data_free(data);
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  return std::nullopt;
}

}  // namespace asdfcore::schema::detail
