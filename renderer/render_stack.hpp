// The renderer and allocator a Server draws with, and their rebuild after a
// GPU loss.
//
// A lost device cannot be repaired: its renderer, its textures and the
// swapchain images it allocated are all dead. When the renderer emits
// wlroots' `lost` signal the stack builds a fresh renderer + allocator (on
// the next idle of the event loop: the signal fires from inside the old
// renderer's own calls), destroys the old pair, uploads the clients' buffers
// again and tells the owner through `Rebuilt` so it moves every user over.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "renderer/client_buffers.hpp"
#include "renderer/renderer_factory.hpp"
#include "util/event_source.hpp"
#include "util/listener.hpp"
#include "util/result.hpp"

struct wl_display;
struct wl_event_loop;
struct wl_event_source;
struct wlr_allocator;
struct wlr_backend;
struct wlr_renderer;

namespace baton {

struct AllocatorDestroyer {
  void operator()(wlr_allocator* allocator) const;
};
using OutputAllocator = std::unique_ptr<wlr_allocator, AllocatorDestroyer>;

class RenderStack {
 public:
  /// Called with the new pair once the old one is gone (nothing ran between).
  using Rebuilt = std::function<void(wlr_renderer* renderer, wlr_allocator* allocator)>;

  RenderStack(wl_display* display, wlr_backend* backend, RenderOptions options);
  ~RenderStack();
  RenderStack(const RenderStack&) = delete;
  RenderStack& operator=(const RenderStack&) = delete;

  /// Creates the first renderer and allocator; on failure `error` says why
  /// (`backend_label` names the backend in it).
  [[nodiscard]] Status create(const char* backend_label);
  void on_rebuilt(Rebuilt callback) { rebuilt_ = std::move(callback); }

  [[nodiscard]] wlr_renderer* renderer() const { return renderer_; }
  [[nodiscard]] wlr_allocator* allocator() const { return allocator_; }
  /// An allocator of one output's own, destroyed with it: the Vulkan
  /// renderer's slot budget (swapchain-slots) is per allocator and buffer
  /// size, so two outputs of one size sharing allocator() would share one
  /// budget and the second would get no buffer. Null for other renderers,
  /// whose allocator() serves every output.
  [[nodiscard]] OutputAllocator allocator_for_output() const;
  [[nodiscard]] const char* name() const { return name_; }
  /// How many times the pair was rebuilt after a loss.
  [[nodiscard]] int rebuilds() const { return rebuilds_; }

 private:
  void watch(wlr_renderer* renderer);
  void schedule_rebuild();
  static void on_idle(void* data);
  void rebuild();

  wl_display* display_;
  wlr_backend* backend_;
  RenderOptions options_;
  wlr_renderer* renderer_ = nullptr;
  wlr_allocator* allocator_ = nullptr;
  const char* name_ = "";
  int rebuilds_ = 0;
  wl_event_source* idle_ = nullptr;
  Rebuilt rebuilt_;
  Listener<void> lost_;
  ClientTextures client_textures_;
};

}  // namespace baton
