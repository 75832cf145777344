// A frame trace in Chrome/Perfetto's JSON array format ("traceEvents" as a
// bare array), written as events happen so a crash keeps what came before.
// One track (a Perfetto row) per output and per client surface; times are
// CLOCK_MONOTONIC, the clock of presentation feedback and DRM events.
// Cheap enough to leave on: a buffered fwrite per event, no allocation kept.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace baton {

class Trace {
 public:
  [[nodiscard]] static Result<std::unique_ptr<Trace>> open(const std::string& path);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  /// A new track named `name`; events on it share one row.
  int track(std::string_view name);
  /// Something that happened at `ns`; `args` is a JSON object body
  /// (`"k":1,"j":"v"`) or empty.
  void instant(int track, std::string_view name, int64_t ns, std::string_view args = {});
  /// Something that lasted from `begin_ns` to `end_ns`.
  void span(int track, std::string_view name, int64_t begin_ns, int64_t end_ns,
            std::string_view args = {});
  /// CLOCK_MONOTONIC now, in nanoseconds.
  [[nodiscard]] static int64_t now();
  /// `"text"` with JSON escapes, for args.
  [[nodiscard]] static std::string quote(std::string_view text);

 private:
  explicit Trace(std::FILE* file) : file_(file) {}
  void event(char phase, int track, std::string_view name, int64_t ns, int64_t dur_ns,
             std::string_view args);

  std::FILE* file_;
  int tracks_ = 0;
};

}  // namespace baton
