#pragma once
// A test hook for the kill test: FITSASDF_TEST_CRASH_AT=N makes the process kill itself with
// SIGKILL at the Nth crash point a commit passes (between its writes and syncs), so that a test
// can stop a commit at every step and check what the file holds afterwards. Unset (always, in
// normal use) it costs one branch per step.
namespace asdfcore::update_detail {

/// Count one crash point; die here with SIGKILL when it is the one the environment names.
void crash_point();

}  // namespace asdfcore::update_detail
