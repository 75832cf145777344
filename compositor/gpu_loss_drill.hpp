// A fault drill for whole-system tests of the renderer rebuild on real
// backends: with BATON_TEST_GPU_LOSS_MS=N in its environment, baton loses its
// Vulkan device (simulated) N ms after the first client connected. main.cpp
// starts it; nothing else in baton knows about it.
#pragma once

#include <memory>

#include "util/event_source.hpp"

namespace baton {

class Server;

class GpuLossDrill {
 public:
  /// Null unless BATON_TEST_GPU_LOSS_MS is set.
  [[nodiscard]] static std::unique_ptr<GpuLossDrill> from_environment(Server& server);
  GpuLossDrill(const GpuLossDrill&) = delete;
  GpuLossDrill& operator=(const GpuLossDrill&) = delete;

 private:
  GpuLossDrill(Server& server, int after_ms);
  void tick();

  Server& server_;
  int after_ms_;
  bool armed_ = false;  // a client is connected: the countdown runs
  std::unique_ptr<EventSource> timer_;
};

}  // namespace baton
