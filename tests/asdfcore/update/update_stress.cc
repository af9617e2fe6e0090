// The helper process of the kill test (update_kill_test.cc): commits updates of one kind, one
// after another, so that the test can kill it at any instant (or at a chosen crash point,
// FITSASDF_TEST_CRASH_AT) and check that the file is then exactly one of the versions.
//
//   update_stress FILE KIND FIRST COUNT
//
// Version i of the file (i = FIRST .. FIRST+COUNT-1) is made from version i-1 by one commit;
// `expected_version` in update_versions.h says what version i holds, for every KIND.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/update.h"
#include "update_versions.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: update_stress FILE KIND FIRST COUNT\n");
    return 4;
  }
  const std::string path = argv[1];
  const std::string kind = argv[2];
  const long first = std::strtol(argv[3], nullptr, 10);
  const long count = std::strtol(argv[4], nullptr, 10);
  try {
    for (long i = first; i < first + count; ++i) {
      asdfcore::UpdateOptions options;
      options.durable = std::getenv("UPDATE_STRESS_NO_SYNC") == nullptr;
      options.checksum = asdfcore::format::ChecksumConvention::kDecodedData;  // python checks those
      asdfcore::Update update = asdfcore::Update::open(path, options);
      fitsasdf::test::apply_version(update, kind, static_cast<int>(i));
      update.commit();
    }
  } catch (const asdfcore::Error& e) {
    std::fprintf(stderr, "update_stress: %s\n", e.what());
    return 2;
  }
  return 0;
}
