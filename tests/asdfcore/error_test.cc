// Error: codes, context merging, and the "file: at ...: message" form of what().
#include "asdfcore/error.h"
#include "support/catch.h"

using namespace asdfcore;

TEST_CASE("what() names the file, the place and the problem", "[error]") {
  const Error e(ErrorCode::kChecksum, "checksum mismatch",
                ErrorContext{.file = "a.asdf", .offset = 373, .block = 0});
  CHECK(std::string(e.what()) == "a.asdf: at block 0, byte 373: checksum mismatch");
  CHECK(e.code() == ErrorCode::kChecksum);
  CHECK(e.message() == "checksum mismatch");
  CHECK(error_code_name(e.code()) == "checksum");
}

TEST_CASE("with_context fills only the fields that are missing", "[error]") {
  const Error inner(ErrorCode::kCompression, "zlib: corrupt", ErrorContext{.offset = 10});
  const Error outer = inner.with_context(ErrorContext{.file = "f.asdf", .offset = 99, .block = 2});
  CHECK(outer.context().file == "f.asdf");
  CHECK(outer.context().offset == 10u);
  CHECK(outer.context().block == 2u);
  CHECK(std::string(outer.what()) == "f.asdf: at block 2, byte 10: zlib: corrupt");
}

TEST_CASE("an error without context is just its message", "[error]") {
  const Error e(ErrorCode::kIo, "disk full");
  CHECK(std::string(e.what()) == "disk full");
  const std::runtime_error& base = e;  // one root for everything the library throws
  CHECK(std::string(base.what()) == "disk full");
}
