#include "compositor/gpu_loss_drill.hpp"

#include <cstdlib>

#include "compositor/server.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

std::unique_ptr<GpuLossDrill> GpuLossDrill::from_environment(Server& server) {
  const char* value = std::getenv("BATON_TEST_GPU_LOSS_MS");
  if (value == nullptr) return nullptr;
  return std::unique_ptr<GpuLossDrill>(new GpuLossDrill(server, std::atoi(value)));
}

GpuLossDrill::GpuLossDrill(Server& server, int after_ms) : server_(server), after_ms_(after_ms) {
  timer_ = EventSource::timer(server.event_loop(), [this] { tick(); });
  if (timer_) timer_->arm_ms(100);
}

void GpuLossDrill::tick() {
  // Counted from the first client's connection: the drill wants windows up.
  if (!armed_) {
    armed_ = !wl_list_empty(wl_display_get_client_list(server_.display()));
    timer_->arm_ms(armed_ ? after_ms_ : 100);
    return;
  }
  if (!vulkan::is_vulkan_renderer(server_.renderer())) {
    LOG_ERROR("BATON_TEST_GPU_LOSS_MS: the %s renderer cannot simulate a lost device",
              server_.renderer_name());
    return;
  }
  LOG_INFO("renderer: BATON_TEST_GPU_LOSS_MS: simulating a lost device");
  vulkan::renderer_simulate_device_lost(server_.renderer());
}

}  // namespace baton
