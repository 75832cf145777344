#include "compositor/launcher.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/log.hpp"

namespace baton {

Launcher::Launcher(wl_event_loop* loop, std::string socket_name, ExitCallback on_exit)
    : loop_(loop), socket_name_(std::move(socket_name)), on_exit_(std::move(on_exit)) {
  rlimit started{};
  if (getrlimit(RLIMIT_NOFILE, &started) != 0) {
    LOG_ERROR("getrlimit(RLIMIT_NOFILE): %s", last_error("").describe().c_str());
    return;
  }
  if (started.rlim_cur >= started.rlim_max) return;
  const rlimit raised = {started.rlim_max, started.rlim_max};
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    LOG_ERROR("cannot raise the fd limit from %llu: %s",
              static_cast<unsigned long long>(started.rlim_cur), last_error("").describe().c_str());
    return;
  }
  child_fd_limit_ = started;
  LOG_INFO("fd limit raised from %llu to %llu (children get %llu)",
           static_cast<unsigned long long>(started.rlim_cur),
           static_cast<unsigned long long>(raised.rlim_cur),
           static_cast<unsigned long long>(started.rlim_cur));
}

Launcher::~Launcher() = default;

Result<pid_t> Launcher::spawn(const std::string& command, const Env& extra) {
  pid_t pid = fork();
  if (pid < 0) return last_error("fork");
  if (pid == 0) {
    // The event loop blocks the signals it handles; children start clean.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // The fd limit baton started with (it raised its own).
    if (child_fd_limit_) (void)setrlimit(RLIMIT_NOFILE, &*child_fd_limit_);
    setsid();
    setenv("WAYLAND_DISPLAY", socket_name_.c_str(), 1);
    // "wlroots" too: xdg-desktop-portal 1.16 (Debian 12) picks the backends
    // whose UseIn lists a desktop named here, and xdg-desktop-portal-wlr's
    // lists wlroots (screen sharing, screenshots). 1.17 and later read
    // baton-portals.conf (installed beside the session file).
    setenv("XDG_CURRENT_DESKTOP", "baton:wlroots", 1);
    setenv("XDG_SESSION_TYPE", "wayland", 1);
    unsetenv("WAYLAND_SOCKET");
    auto apply = [](const Env& env) {
      for (const auto& [name, value] : env) {
        if (value.empty())
          unsetenv(name.c_str());
        else
          setenv(name.c_str(), value.c_str(), 1);
      }
    };
    apply(env_);
    apply(extra);
    execl("/bin/sh", "/bin/sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto child = std::make_unique<Child>();
  child->pid = pid;
  child->pidfd = UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!child->pidfd) {
    LOG_ERROR("pidfd_open for '%s' failed: %s; its exit will not be noticed", command.c_str(),
              last_error("").describe().c_str());
  } else {
    child->watch = EventSource::fd(loop_, child->pidfd.get(), WL_EVENT_READABLE,
                                   [this, pid](uint32_t) { reap(pid); });
  }
  LOG_INFO("started '%s' (pid %d)", command.c_str(), pid);
  children_.push_back(std::move(child));
  return pid;
}

void Launcher::set_env(const std::string& name, const std::string& value) {
  std::erase_if(env_, [&](const auto& e) { return e.first == name; });
  env_.emplace_back(name, value);
}

void Launcher::reap(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return;
  std::erase_if(children_, [pid](const auto& c) { return c->pid == pid; });
  if (WIFEXITED(status))
    LOG_INFO("pid %d exited with status %d", pid, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    LOG_INFO("pid %d was killed by signal %d", pid, WTERMSIG(status));
  if (on_exit_) on_exit_(pid, status);
}

}  // namespace baton
