// baton's logging: printf-style, levelled, one line per message on stderr.
//
// The verbosity is process-wide on purpose: wlroots' own log (which is routed
// here by route_wlroots_log) is process-wide too, so a per-Server level could
// not be honoured for half of the messages anyway. It is set once by main.
#pragma once

#include <cstdarg>

namespace baton::log {

enum class Level { error = 1, info = 2, debug = 3 };

void set_level(Level level);
[[nodiscard]] Level level();

/// Sends wlroots' log messages through baton's logger at the current level.
void route_wlroots_log();

/// Also writes every line to `fd` (not owned; -1 stops), e.g. the session's
/// log file. Process-wide for the same reason as the level.
void also_to(int fd);
/// The fd of also_to (-1: none); the crash report writes there too.
[[nodiscard]] int also_fd();

void write(Level level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void vwrite(Level level, const char* fmt, va_list args);

}  // namespace baton::log

#define BATON_LOG(lvl, ...)                                               \
  do {                                                                    \
    if (static_cast<int>(lvl) <= static_cast<int>(::baton::log::level())) \
      ::baton::log::write(lvl, __VA_ARGS__);                              \
  } while (0)
#define LOG_ERROR(...) BATON_LOG(::baton::log::Level::error, __VA_ARGS__)
#define LOG_INFO(...) BATON_LOG(::baton::log::Level::info, __VA_ARGS__)
#define LOG_DEBUG(...) BATON_LOG(::baton::log::Level::debug, __VA_ARGS__)
