// Starts client processes with this server's environment and notices when
// they exit (through a pidfd in the event loop: no SIGCHLD handler, so several
// Servers can live in one process).
//
// It also raises baton's own soft limit on open fds to the hard limit, as
// sway does: clients make baton hold fds (shm pools, dma-bufs, timelines,
// fences; a client's queued commits alone may hold 1024, HoldBudget), and
// the common soft limit of 1024 would run out before any bound per client
// does. Children get the soft limit baton started with (programs that use
// select() break above 1024).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/event_source.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

struct wl_event_loop;

namespace baton {

class Launcher {
 public:
  using ExitCallback = std::function<void(pid_t pid, int wait_status)>;

  Launcher(wl_event_loop* loop, std::string socket_name, ExitCallback on_exit);
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  using Env = std::vector<std::pair<std::string, std::string>>;

  /// Runs `command` through /bin/sh -c, with `extra` set in its environment
  /// on top of set_env()'s. The child's pid, or why it could not start.
  [[nodiscard]] Result<pid_t> spawn(const std::string& command, const Env& extra = {});
  /// Sets (or, with an empty value, unsets) a variable for later children.
  void set_env(const std::string& name, const std::string& value);

 private:
  struct Child {
    pid_t pid;
    UniqueFd pidfd;
    std::unique_ptr<EventSource> watch;
  };
  void reap(pid_t pid);

  wl_event_loop* loop_;
  std::string socket_name_;
  ExitCallback on_exit_;
  std::optional<rlimit> child_fd_limit_;  // RLIMIT_NOFILE as baton started, if it raised it
  std::vector<std::unique_ptr<Child>> children_;
  Env env_;
};

}  // namespace baton
