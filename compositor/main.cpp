// baton's entry point: parse the command line, build a Server, run it.
#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "compositor/gpu_loss_drill.hpp"
#include "compositor/server.hpp"
#include "compositor/session_log.hpp"
#include "util/event_source.hpp"
#include "util/log.hpp"

namespace {

int run(int argc, char** argv) {
  std::vector<std::string_view> args(argv, argv + argc);
  auto parsed_or_error = baton::parse_command_line(args);
  if (!parsed_or_error) {
    std::fprintf(stderr, "baton: %s\n\n%s", parsed_or_error.error().describe().c_str(),
                 baton::usage_text(args[0]).c_str());
    return 2;
  }
  baton::ParsedCommandLine& parsed = *parsed_or_error;
  switch (parsed.action) {
    case baton::ParsedCommandLine::Action::help:
      std::fputs(baton::usage_text(args[0]).c_str(), stdout);
      return 0;
    case baton::ParsedCommandLine::Action::version:
      std::printf("baton %s\n", BATON_VERSION);
      return 0;
    case baton::ParsedCommandLine::Action::run:
      break;
  }

  baton::log::set_level(parsed.options.debug ? baton::log::Level::debug : baton::log::Level::info);
  // A session's log file, for the user who logged in and saw baton fail.
  baton::UniqueFd session_log;
  if (parsed.options.session) {
    const std::string path = baton::session_log_path();
    if (auto fd = baton::open_session_log(path)) {
      session_log = std::move(*fd);
      baton::log::also_to(session_log.get());
      LOG_INFO("baton %s: this session's log is %s", BATON_VERSION, path.c_str());
    } else {
      LOG_ERROR("no session log: %s", fd.error().describe().c_str());
    }
  }
  baton::report_crashes();
  struct StopLogging {
    ~StopLogging() { baton::log::also_to(-1); }
  } stop_logging;
  if (parsed.options.config_path) {
    if (!std::ifstream(*parsed.options.config_path).good()) {
      LOG_ERROR("cannot read config file %s", parsed.options.config_path->c_str());
      return 1;
    }
  }

  // Block the signals baton handles before anything starts: the event loop
  // reads them from a signalfd, which works only if every thread blocks
  // them, and the renderer's driver starts threads (llvmpipe does) that
  // inherit this mask. An early signal then waits instead of killing baton
  // with its default action. Children get a clean mask.
  sigset_t handled_signals;
  sigemptyset(&handled_signals);
  // SIGUSR1 asks for a screenshot now (--screenshot).
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) sigaddset(&handled_signals, sig);
  sigprocmask(SIG_BLOCK, &handled_signals, nullptr);

  baton::Server server(std::move(parsed.options));
  if (baton::Status started = server.start(); !started) {
    LOG_ERROR("cannot start: %s", started.error().describe().c_str());
    return 1;
  }
  auto drill = baton::GpuLossDrill::from_environment(server);
  auto on_signal = [&server]() { server.terminate(0); };
  auto sigint = baton::EventSource::signal(server.event_loop(), SIGINT, on_signal);
  auto sigterm = baton::EventSource::signal(server.event_loop(), SIGTERM, on_signal);
  // SIGHUP re-reads the configuration, as sway and most daemons do.
  auto sighup = baton::EventSource::signal(server.event_loop(), SIGHUP,
                                           [&server]() { server.reload_config(); });
  int code = server.run();
  // tests grep this line: tests/vm/login_test.sh, tests/integration/test_nested.cpp
  LOG_INFO("baton exits (status %d)", code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baton: %s\n", e.what());
    return 1;
  }
}
