#include "support/run.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

#include "support/paths.h"

extern char** environ;

namespace fitsasdf::test {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

RunResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path().string());
  return run(args);
}

namespace {

/// Our environment with the "NAME=VALUE" entries of `extra` set (replacing ours of that NAME).
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.rfind(name, 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

}  // namespace

RunResult run(const std::vector<std::string>& argv, const std::string& input,
              const std::vector<std::string>& env) {
  std::signal(SIGPIPE, SIG_IGN);  // a child that does not read its input must not kill us
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_entries;
  std::vector<char*> env_pointers;
  char** child_env = environ;
  if (!env.empty()) {
    env_entries = environment_with(env);
    for (auto& e : env_entries) env_pointers.push_back(e.data());
    env_pointers.push_back(nullptr);
    child_env = env_pointers.data();
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), child_env);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    throw std::runtime_error("cannot run " + join(argv));
  }
  // Feed stdin and drain both outputs together so neither pipe can fill up and block.
  RunResult result;
  std::size_t written = 0;
  if (input.empty()) {
    close(in[1]);
    in[1] = -1;
  }
  pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
  int open_reads = 2;
  char buf[65536];
  while (open_reads > 0 || fds[2].fd >= 0) {
    if (poll(fds, 3, -1) < 0) continue;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP))) {
        const ssize_t n = read(fds[k].fd, buf, sizeof buf);
        if (n > 0) {
          (k == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
        } else {
          close(fds[k].fd);
          fds[k].fd = -1;
          --open_reads;
        }
      }
    }
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(fds[2].fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n <= 0 || written == input.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace fitsasdf::test
