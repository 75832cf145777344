#include "util/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "util/wlr.hpp"

namespace baton::log {
namespace {

std::atomic<Level> current_level{Level::info};
std::atomic<int> extra_fd{-1};

const char* tag(Level level) {
  switch (level) {
    case Level::error:
      return "E";
    case Level::info:
      return "I";
    case Level::debug:
      return "D";
  }
  return "?";
}

void emit(Level level, const char* origin, const char* fmt, va_list args) {
  // Format into one buffer so concurrent writers never interleave a line.
  char line[1024];
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  int n = std::snprintf(line, sizeof line, "%05ld.%03ld %s [%s] ",
                        static_cast<long>(now.tv_sec % 100000), now.tv_nsec / 1000000, tag(level),
                        origin);
  if (n < 0) return;
  std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n), fmt, args);
  std::fprintf(stderr, "%s\n", line);
  if (const int fd = extra_fd.load(); fd >= 0) {
    const size_t len = std::strlen(line);
    line[len < sizeof line - 1 ? len : sizeof line - 2] = '\n';
    (void)!::write(fd, line, std::min(len + 1, sizeof line - 1));
  }
}

Level from_wlr(wlr_log_importance importance) {
  switch (importance) {
    case WLR_ERROR:
      return Level::error;
    case WLR_INFO:
      return Level::info;
    default:
      return Level::debug;
  }
}

void wlroots_callback(wlr_log_importance importance, const char* fmt, va_list args) {
  Level level = from_wlr(importance);
  if (static_cast<int>(level) > static_cast<int>(current_level.load())) return;
  emit(level, "wlr", fmt, args);
}

wlr_log_importance to_wlr(Level level) {
  switch (level) {
    case Level::error:
      return WLR_ERROR;
    case Level::info:
      return WLR_INFO;
    case Level::debug:
      return WLR_DEBUG;
  }
  return WLR_INFO;
}

}  // namespace

void set_level(Level level) {
  current_level = level;
  route_wlroots_log();
}

Level level() { return current_level.load(std::memory_order_relaxed); }

void also_to(int fd) { extra_fd = fd; }
int also_fd() { return extra_fd.load(); }

void route_wlroots_log() { wlr_log_init(to_wlr(current_level.load()), wlroots_callback); }

void vwrite(Level lvl, const char* fmt, va_list args) { emit(lvl, "baton", fmt, args); }

void write(Level lvl, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vwrite(lvl, fmt, args);
  va_end(args);
}

}  // namespace baton::log
