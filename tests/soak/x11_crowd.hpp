// X11 windows in the soak: baton-x11-window processes under baton's
// Xwayland, started and ended (killed as a crash, or terminated) while the
// Wayland crowd runs, so that Xwayland's surfaces, the X11 window manager
// side and their teardown are part of what must stay flat.
#pragma once

#include <sys/types.h>

#include <random>
#include <string>
#include <vector>

namespace baton {
class Server;
}

namespace baton::test {

class X11Crowd {
 public:
  /// Up to `size` windows of `exe` (tests/clients/x11_window.cpp) at a time.
  X11Crowd(Server& server, std::string exe, int size);
  ~X11Crowd();
  X11Crowd(const X11Crowd&) = delete;
  X11Crowd& operator=(const X11Crowd&) = delete;

  /// Starts a window, or ends one.
  void act(std::mt19937& random);
  /// Ends every window, each killed or terminated as the dice say.
  void end_all(std::mt19937& random);
  /// How many of its windows baton shows now.
  [[nodiscard]] int mapped() const;
  /// Whether nothing of the ended windows is left in baton: every process
  /// reaped (by baton's launcher) and every window gone from its list.
  [[nodiscard]] bool all_gone();

  int started = 0, killed = 0, terminated = 0, most_mapped = 0;

 private:
  Server& server_;
  std::string exe_;
  size_t size_;
  void end(size_t index, std::mt19937& random);
  std::vector<pid_t> running_;
  std::vector<pid_t> ended_;  // not yet known to be reaped
};

}  // namespace baton::test
