// Where a desktop session's user looks when baton fails: the log file of the
// session ($XDG_STATE_HOME/baton/log), and a crash report in it and on
// stderr (which a display manager sends to its log or the journal).
#pragma once

#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton {

/// $XDG_STATE_HOME/baton/log, or ~/.local/state/baton/log.
[[nodiscard]] std::string session_log_path();

/// Creates the session's log file (its folder too), keeping the previous
/// run's as log.old, for log::also_to.
Result<UniqueFd> open_session_log(const std::string& path);

/// On SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT: writes "baton crashed"
/// with the signal and a backtrace to stderr and to the session log, then
/// lets the signal take its default course (a core dump where enabled).
void report_crashes();

}  // namespace baton
