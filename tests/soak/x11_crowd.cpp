#include "tests/soak/x11_crowd.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"

namespace baton::test {

constexpr const char* kClassPrefix = "BatonSoakX";

X11Crowd::X11Crowd(Server& server, std::string exe, int size)
    : server_(server), exe_(std::move(exe)), size_(static_cast<size_t>(size)) {}

X11Crowd::~X11Crowd() {
  // baton reaps its children (pidfds in its loop); these are left to it.
  for (pid_t pid : running_) kill(pid, SIGKILL);
}

void X11Crowd::act(std::mt19937& random) {
  if (running_.size() < size_ && (running_.empty() || random() % 2 == 0)) {
    // exec: the pid baton returns is the window's, not a shell's.
    const std::string command =
        "exec " + exe_ + " --class " + kClassPrefix + std::to_string(started) + " --width " +
        std::to_string(100 + random() % 300) + " --height " + std::to_string(80 + random() % 200) +
        (random() % 3 == 0 ? " --animate" : "") + " >/dev/null";
    if (auto pid = server_.spawn(command); pid.ok()) {
      running_.push_back(*pid);
      ++started;
    }
    return;
  }
  if (running_.empty()) return;
  end(random() % running_.size(), random);
}

void X11Crowd::end_all(std::mt19937& random) {
  while (!running_.empty()) end(running_.size() - 1, random);
}

void X11Crowd::end(size_t index, std::mt19937& random) {
  const bool crash = random() % 2 == 0;
  kill(running_[index], crash ? SIGKILL : SIGTERM);
  ++(crash ? killed : terminated);
  ended_.push_back(running_[index]);
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
}

bool X11Crowd::all_gone() {
  // Until baton's launcher reaps a child, the pid names its zombie.
  std::erase_if(ended_, [](pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; });
  const auto& views = server_.windows().views();
  return ended_.empty() && std::none_of(views.begin(), views.end(), [](const auto& v) {
           return v->app_id().rfind(kClassPrefix, 0) == 0;
         });
}

int X11Crowd::mapped() const {
  const auto& views = server_.windows().views();
  return static_cast<int>(std::count_if(views.begin(), views.end(), [](const auto& v) {
    return v->mapped() && v->app_id().rfind(kClassPrefix, 0) == 0;
  }));
}

}  // namespace baton::test
