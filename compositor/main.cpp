// baton's entry point: parse the command line, build a Server, run it.
#include <csignal>
#include <cstdio>
#include <string_view>
#include <vector>

#include "compositor/event_source.hpp"
#include "compositor/log.hpp"
#include "compositor/server.hpp"

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv, argv + argc);
  baton::ParsedCommandLine parsed = baton::parse_command_line(args);
  switch (parsed.action) {
    case baton::ParsedCommandLine::Action::help:
      std::fputs(baton::usage_text(args[0]).c_str(), stdout);
      return 0;
    case baton::ParsedCommandLine::Action::version:
      std::printf("baton %s\n", BATON_VERSION);
      return 0;
    case baton::ParsedCommandLine::Action::error:
      std::fprintf(stderr, "baton: %s\n\n%s", parsed.error.c_str(), baton::usage_text(args[0]).c_str());
      return 2;
    case baton::ParsedCommandLine::Action::run:
      break;
  }

  baton::log::set_level(parsed.options.debug ? baton::log::Level::debug : baton::log::Level::info);
  if (parsed.options.config_path) {
    if (FILE* f = std::fopen(parsed.options.config_path->c_str(), "r"); f != nullptr) {
      std::fclose(f);
    } else {
      LOG_ERROR("cannot read config file %s", parsed.options.config_path->c_str());
      return 1;
    }
  }

  // Block the shutdown signals before anything can announce the socket: one
  // that arrives early then waits for the event loop's signalfd instead of
  // killing baton with its default action. Children get a clean mask.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  // SIGUSR1 asks for a screenshot (--screenshot): blocked before the
  // renderer starts threads, which would otherwise die of it.
  sigaddset(&shutdown_signals, SIGUSR1);
  sigprocmask(SIG_BLOCK, &shutdown_signals, nullptr);

  baton::Server server(std::move(parsed.options));
  if (!server.start()) {
    LOG_ERROR("cannot start: %s", server.start_error().c_str());
    return 1;
  }
  auto on_signal = [&server]() { server.terminate(0); };
  auto sigint = baton::EventSource::signal(server.event_loop(), SIGINT, on_signal);
  auto sigterm = baton::EventSource::signal(server.event_loop(), SIGTERM, on_signal);
  int code = server.run();
  LOG_INFO("baton exits (status %d)", code);
  return code;
}
