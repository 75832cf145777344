#include "renderer/render_stack.hpp"

#include <cstdlib>
#include <utility>

#include "renderer/renderer_factory.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

void AllocatorDestroyer::operator()(wlr_allocator* allocator) const {
  wlr_allocator_destroy(allocator);
}

OutputAllocator RenderStack::allocator_for_output() const {
  return OutputAllocator(vulkan::create_output_allocator(allocator_));
}

RenderStack::RenderStack(wl_display* display, wlr_backend* backend, RenderOptions options)
    : display_(display), backend_(backend), options_(std::move(options)) {}

RenderStack::~RenderStack() {
  if (idle_ != nullptr) wl_event_source_remove(idle_);
  lost_.disconnect();
  if (allocator_ != nullptr) wlr_allocator_destroy(allocator_);
  if (renderer_ != nullptr) wlr_renderer_destroy(renderer_);
}

Status RenderStack::create(const char* backend_label) {
  auto created = create_renderer(backend_, options_, wl_display_get_event_loop(display_));
  if (!created) return failure("renderer unavailable", created.error().describe());
  renderer_ = created->renderer;
  name_ = created->name;
  auto allocator = create_allocator(backend_, renderer_, options_);
  if (!allocator)
    return failure("the buffer allocator", std::string("none fits the ") + backend_label +
                                               " backend and the " + name_ + " renderer (" +
                                               allocator.error().describe() + ")");
  allocator_ = *allocator;
  watch(renderer_);
  return {};
}

void RenderStack::watch(wlr_renderer* renderer) {
  lost_.connect(&renderer->events.lost, [this](void*) { schedule_rebuild(); });
}

void RenderStack::schedule_rebuild() {
  if (idle_ != nullptr) return;
  idle_ = wl_event_loop_add_idle(wl_display_get_event_loop(display_), &RenderStack::on_idle, this);
  if (idle_ == nullptr) LOG_ERROR("renderer: wl_event_loop_add_idle failed; cannot rebuild");
}

void RenderStack::on_idle(void* data) {
  auto* self = static_cast<RenderStack*>(data);
  self->idle_ = nullptr;  // an idle source removes itself after running
  self->rebuild();
}

void RenderStack::rebuild() {
  LOG_ERROR("renderer: the %s renderer lost its GPU; building a new one", name_);
  Result<CreatedRenderer> created =
      create_renderer(backend_, options_, wl_display_get_event_loop(display_));
  if (!created && options_.renderer != RendererChoice::pixman) {
    // A running session outlives its GPU: software rendering beats a black screen.
    LOG_ERROR("renderer: no new %s renderer (%s); continuing on pixman",
              options_.renderer == RendererChoice::vulkan ? "Vulkan" : "GPU",
              created.error().describe().c_str());
    RenderOptions software = options_;
    software.renderer = RendererChoice::pixman;
    created = create_renderer(backend_, software, wl_display_get_event_loop(display_));
  }
  if (!created) {
    LOG_ERROR("renderer: rebuild failed: %s; outputs stay dark",
              created.error().describe().c_str());
    return;
  }
  auto made = create_allocator(backend_, created->renderer, options_);
  if (!made) {
    LOG_ERROR("renderer: no allocator for the new %s renderer (%s); outputs stay dark",
              created->name, made.error().describe().c_str());
    wlr_renderer_destroy(created->renderer);
    return;
  }
  wlr_allocator* allocator = *made;

  // Nothing draws between here and the callback, so wlroots objects that
  // still point at the old pair (outputs) are moved over before they use it.
  lost_.disconnect();
  wlr_allocator_destroy(allocator_);
  wlr_renderer_destroy(renderer_);
  renderer_ = created->renderer;
  allocator_ = allocator;
  name_ = created->name;
  ++rebuilds_;
  watch(renderer_);
  ReuploadCount count = client_textures_.reupload(display_, renderer_);
  LOG_INFO(
      "renderer: %d surface(s): %d client buffer(s) uploaded again, %d gone until their "
      "next commit, %d without a buffer, %d kept",
      count.surfaces, count.reuploaded, count.gone, count.without_buffer, count.kept);
  if (rebuilt_) rebuilt_(renderer_, allocator_);
  // tests grep this line: tests/vm/baton_drm_test.sh, tests/renderer/nested_test.cpp
  LOG_INFO("renderer: rebuilt on %s (rebuild %d)", name_, rebuilds_);
}

}  // namespace baton
