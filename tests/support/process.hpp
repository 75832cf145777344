// Child processes for end-to-end tests: baton itself, Xvfb, real clients.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/image.hpp"

namespace baton::test {

class Process {
 public:
  /// Starts `argv` with `env` changes (an empty value unsets), stdout and
  /// stderr appended to `log_path`.
  Process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
          const std::string& log_path);
  /// If still running: SIGTERM, so a sanitized program exits cleanly and
  /// runs its leak check, then SIGKILL to whatever is left of the group.
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  /// The exit status if it exits within `timeout` (128+N when killed by N).
  /// Once it has exited, a sanitizer report in what it wrote to the log is a
  /// test failure (with the report), whatever the status.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  void signal(int sig);
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  /// Whether it has exited (a zombie until reaped).
  bool exited();
  void reap();

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string program_;
  std::string log_path_;
  std::streamoff log_start_ = 0;  // where its output begins in the log
};

/// Runs baton from BATON_EXE with `args`; returns its exit status (nullopt on
/// timeout, after killing it). Output goes to `log_path`.
std::optional<int> run_baton(const std::vector<std::string>& args, const std::string& log_path,
                             std::chrono::milliseconds timeout,
                             const std::map<std::string, std::string>& env = {});

/// Runs baton from BATON_EXE with `args`, which name `--screenshot PNG`,
/// until a screenshot at PNG satisfies `shown`, asking for a new one
/// (SIGUSR1) each time one does not, for `limit` at most; then ends it with
/// SIGTERM. Returns its exit status (nullopt if it did not exit). A busy
/// machine takes longer to show everything: the test waits for the picture,
/// not for a fixed delay, and then judges the last screenshot.
std::optional<int> run_baton_until_shown(const std::vector<std::string>& args,
                                         const std::string& png,
                                         const std::function<bool(const Image&)>& shown,
                                         const std::string& log_path,
                                         std::chrono::milliseconds limit,
                                         const std::map<std::string, std::string>& env = {});

std::string baton_exe();
/// A fresh per-test directory under the build tree.
std::string scratch_dir(const std::string& name);
std::string read_file(const std::string& path);
/// Polls until `path` contains `needle` or `timeout` passes.
bool wait_for_text(const std::string& path, const std::string& needle,
                   std::chrono::milliseconds timeout);
Image load_png_or_fail(const std::string& path);

/// Pixels in `image` for which `match` holds, within [x0,x1)x[y0,y1) (whole
/// image by default).
struct Box {
  int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
};
long count_pixels(const Image& image, uint32_t argb, Box box = {});
long count_other_pixels(const Image& image, uint32_t argb, Box box = {});
/// The bounding box of pixels equal to `argb`.
Box bounding_box(const Image& image, uint32_t argb);
long distinct_colours(const Image& image, Box box = {});

/// Checks a 1920x1080 parent's screenshot showing a nested baton: its
/// 1280x720 output centred (filled with `nested_background` around the
/// client), weston-simple-shm's rings in the middle, the parent's own
/// background outside. Reports through GoogleTest expectations.
void expect_nested_output_with_client(const Image& shot, uint32_t nested_background,
                                      uint32_t parent_background);
/// The same check as a predicate (for run_baton_until_shown).
bool shows_nested_output_with_client(const Image& shot, uint32_t nested_background,
                                     uint32_t parent_background);

}  // namespace baton::test
