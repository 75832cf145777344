#include "compositor/session_log.hpp"

#include <execinfo.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "util/log.hpp"

namespace baton {
namespace {

// Only async-signal-safe calls below: write, backtrace_symbols_fd, sigaction,
// raise.
void write_all(int fd, const char* text) {
  if (fd >= 0) (void)!::write(fd, text, std::strlen(text));
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGFPE:
      return "SIGFPE (arithmetic error)";
    case SIGABRT:
      return "SIGABRT (aborted: a failed check or an unhandled exception)";
    default:
      return "a fatal signal";
  }
}

void on_crash(int sig) {
  void* frames[48];
  const int depth = backtrace(frames, 48);
  for (int fd : {STDERR_FILENO, log::also_fd()}) {
    // tests grep this line: tests/vm/login_test.sh (that it is absent)
    write_all(fd, "baton crashed: ");
    write_all(fd, signal_name(sig));
    write_all(fd, "\nbacktrace (addresses resolve with addr2line -e baton):\n");
    if (fd >= 0) backtrace_symbols_fd(frames, depth, fd);
  }
  // SA_RESETHAND put the default action back: the signal ends the process.
  raise(sig);
}

}  // namespace

std::string session_log_path() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state == '/')
    return std::string(state) + "/baton/log";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.local/state/baton/log";
}

Result<UniqueFd> open_session_log(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return failure("session log", path + ": " + ec.message());
  // The last run's log is what a user reads after a crash: keep it.
  std::filesystem::rename(path, path + ".old", ec);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
  if (!fd) return last_error("session log: " + path);
  return fd;
}

void report_crashes() {
  // Loaded now: backtrace() may allocate the first time, which a crashed
  // heap cannot afford.
  void* warm[1];
  (void)backtrace(warm, 1);
  struct sigaction action {};
  action.sa_handler = on_crash;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &action, nullptr);
}

}  // namespace baton
