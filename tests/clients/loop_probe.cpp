// Measures how long the compositor's event loop takes to answer: a
// wl_display.sync round trip every 2 ms for a while. A loop blocked for B ms
// (a CPU wait, a long callback) shows as a round trip of about B ms; an idle
// loop answers in well under a millisecond.
//
//   baton-loop-probe SECONDS
// Prints "loop-probe: N round trips, median X ms, p99 Y ms, max Z ms".
#include <poll.h>
#include <wayland-client.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  wl_display* display = wl_display_connect(nullptr);
  if (display == nullptr) {
    std::fprintf(stderr, "loop-probe: cannot connect to the compositor\n");
    return 1;
  }
  using Clock = std::chrono::steady_clock;
  std::vector<double> rtt_ms;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    if (wl_display_roundtrip(display) < 0) {
      std::fprintf(stderr, "loop-probe: the connection died\n");
      return 1;
    }
    rtt_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  wl_display_disconnect(display);
  if (rtt_ms.empty()) return 1;
  std::sort(rtt_ms.begin(), rtt_ms.end());
  auto at = [&](double q) { return rtt_ms[static_cast<size_t>(q * double(rtt_ms.size() - 1))]; };
  std::printf("loop-probe: %zu round trips, median %.2f ms, p99 %.2f ms, max %.2f ms\n",
              rtt_ms.size(), at(0.5), at(0.99), rtt_ms.back());
  return 0;
}
