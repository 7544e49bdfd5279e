// Child processes with a time limit (see ChildPool.h).
#include "ChildPool.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace fp8c::fuzz {

bool ChildPool::start(uint64_t tag, const std::vector<std::string> &argv,
                      const std::string &stdoutPath, const std::string &stderrPath,
                      double timeoutSeconds) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return false;
  }
  auto now = std::chrono::steady_clock::now();
  children_.push_back({pid, tag, now,
                       now + std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000))});
  return true;
}

std::optional<ChildResult> ChildPool::waitAny() {
  while (!children_.empty()) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    auto now = std::chrono::steady_clock::now();
    if (pid > 0) {
      for (size_t i = 0; i < children_.size(); ++i) {
        if (children_[i].pid != pid)
          continue;
        Child c = children_[i];
        children_.erase(children_.begin() + static_cast<long>(i));
        // Whatever the child left in its process group goes with it.
        kill(-pid, SIGKILL);
        ChildResult r;
        r.tag = c.tag;
        r.seconds = std::chrono::duration<double>(now - c.start).count();
        r.timedOut = c.killed;
        if (WIFEXITED(status)) {
          r.exitCode = WEXITSTATUS(status);
          // posix_spawn reports an exec failure as exit 127 of the child.
          r.spawnFailed = r.exitCode == 127;
        } else if (WIFSIGNALED(status)) {
          r.signal = WTERMSIG(status);
        }
        return r;
      }
      continue; // not ours
    }
    if (pid < 0 && errno != EINTR && errno != ECHILD)
      return std::nullopt;
    for (Child &c : children_)
      if (!c.killed && now >= c.deadline) {
        kill(-c.pid, SIGKILL);
        c.killed = true;
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

void ChildPool::killAll() {
  for (Child &c : children_)
    kill(-c.pid, SIGKILL);
  while (waitAny()) {
  }
}

} // namespace fp8c::fuzz
