#include "renderer/gpu_reads.hpp"

#include "renderer/vulkan/texture/reads_watch.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"

namespace baton {

// Only the Vulkan renderer reads textures after a draw call returns (pixman
// reads them on the CPU inside it): its watch answers for every texture.
std::unique_ptr<GpuReadsWatch> make_gpu_reads_watch(wl_event_loop* loop) {
  return std::make_unique<vulkan::TextureReadsWatch>(loop, vulkan::texture_reads);
}

}  // namespace baton
