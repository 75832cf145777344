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
    : loop_(loop), socket_name_(std::move(socket_name)), on_exit_(std::move(on_exit)) {}

Launcher::~Launcher() = default;

Result<pid_t> Launcher::spawn(const std::string& command, const Env& extra) {
  pid_t pid = fork();
  if (pid < 0) return last_error("fork");
  if (pid == 0) {
    // The event loop blocks the signals it handles; children start clean.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
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
