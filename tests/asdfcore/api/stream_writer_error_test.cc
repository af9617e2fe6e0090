// StreamWriter's failures as documented in stream_writer.h: a pending array closed early or
// given too many elements, a streamed one with a partial frame, a writer destroyed without
// close, a wrong element type, a tree without exactly one streamed or pending array. A failed
// or abandoned writer leaves no file and no temporary file in the folder.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/asdfcore.h"
#include "support/catch.h"
#include "api_support.h"
#include "support/temp_dir.h"

using asdfcore::Array;
using asdfcore::StreamWriter;
using asdfcore::Tree;
using fitsasdf::test::TempDir;
using fitsasdf::test::api::folder;
namespace fs = std::filesystem;

namespace {

void expect_invalid_argument(const std::function<void()>& f) {
  try {
    f();
    FAIL("no error");
  } catch (const asdfcore::Error& e) {
    INFO(e.what());
    CHECK(asdfcore::error_code_name(e.code()) == "invalid-argument");
  }
}

}  // namespace

TEST_CASE("a stream writer that fails or is abandoned leaves nothing behind", "[api][stream]") {
  TempDir dir;
  const std::vector<float> f(32 * 48, 1.5f);
  SECTION("a pending array closed early") {
    Tree tree;
    tree["p"] = Array::pending<float>({10, 32 * 48});
    StreamWriter out((dir / "early.asdf").string(), tree);
    out.append(std::span<const float>(f));
    expect_invalid_argument([&] { out.close(); });
    CHECK(folder(dir.path()).empty());
  }
  SECTION("a pending array given too many elements") {
    Tree tree;
    tree["p"] = Array::pending<float>({10});
    StreamWriter out((dir / "over.asdf").string(), tree);
    expect_invalid_argument([&] { out.append(std::span<const float>(f).first(11)); });
  }
  SECTION("a streamed array with a partial frame") {
    Tree tree;
    tree["s"] = Array::streamed<float>({32, 48});
    StreamWriter out((dir / "partial.asdf").string(), tree);
    out.append(std::span<const float>(f));
    out.append(std::span<const float>(f).first(10));
    expect_invalid_argument([&] { out.close(); });
    CHECK(folder(dir.path()).empty());
  }
  SECTION("a writer destroyed without close") {
    {
      Tree tree;
      tree["s"] = Array::streamed<float>({32, 48});
      StreamWriter out((dir / "abandoned.asdf").string(), tree);
      out.append(std::span<const float>(f));
    }
    CHECK(folder(dir.path()).empty());
  }
  SECTION("the wrong element type") {
    Tree tree;
    tree["s"] = Array::streamed<float>({4});
    StreamWriter out((dir / "type.asdf").string(), tree);
    const std::vector<double> d(4, 1.0);
    try {
      out.append(std::span<const double>(d));
      FAIL("a double appended to a float32 array");
    } catch (const asdfcore::Error& e) {
      CHECK(e.code() == asdfcore::ErrorCode::kWrongType);
      CHECK_THAT(e.what(), Catch::Matchers::Contains("float32") &&
                               Catch::Matchers::Contains("float64"));
    }
  }
  SECTION("no placeholder, or two") {
    Tree none;
    none["a"] = 1;
    expect_invalid_argument([&] { StreamWriter out((dir / "none.asdf").string(), none); });
    Tree two;
    two["a"] = Array::streamed<float>({4});
    two["b"] = Array::pending<float>({4});
    expect_invalid_argument([&] { StreamWriter out((dir / "two.asdf").string(), two); });
  }
  CHECK(folder(dir.path()).empty());
}
