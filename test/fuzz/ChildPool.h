// Child processes run with a time limit, a bounded number at once (fp8c-graph-fuzz runs fp8c
// through it). Each child gets its own process group, so a timeout kills what it started too
// (fp8c compiles with NVRTC in a forked process).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace fp8c::fuzz {

struct ChildResult {
  uint64_t tag = 0;        ///< the caller's tag given to start()
  int exitCode = -1;       ///< the exit status, or -1 when killed by a signal
  int signal = 0;          ///< the signal that ended it, 0 when it exited
  bool timedOut = false;   ///< killed after its time limit
  bool spawnFailed = false;
  double seconds = 0;
};

class ChildPool {
public:
  /// Starts `argv` (argv[0] a path) with stdin from /dev/null and stdout / stderr to the files
  /// (created, truncated; "/dev/null" discards). False with errno when it could not start.
  bool start(uint64_t tag, const std::vector<std::string> &argv, const std::string &stdoutPath,
             const std::string &stderrPath, double timeoutSeconds);
  size_t running() const { return children_.size(); }
  /// Waits for any child to end (killing those past their limit); nullopt when none runs.
  std::optional<ChildResult> waitAny();
  /// Kills every running child and reaps it.
  void killAll();

private:
  struct Child {
    pid_t pid;
    uint64_t tag;
    std::chrono::steady_clock::time_point start, deadline;
    bool killed = false;
  };
  std::vector<Child> children_;
};

} // namespace fp8c::fuzz
