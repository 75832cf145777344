#include "renderer/vulkan/renderer.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <xf86drm.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/texture/dmabuf_import.hpp"
#include "renderer/vulkan/texture/plane_layout.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

Renderer* get(wlr_renderer* r) { return Renderer::from(r); }

const wlr_drm_format_set* get_texture_formats(wlr_renderer* r, uint32_t caps) {
  if (caps == WLR_BUFFER_CAP_DATA_PTR) return &get(r)->shm_formats();
  if (caps == WLR_BUFFER_CAP_DMABUF) {
    wlr_drm_format_set& set = get(r)->dmabuf_formats();
    return set.len > 0 ? &set : nullptr;
  }
  return nullptr;
}

const wlr_drm_format_set* get_render_formats(wlr_renderer* r) { return &get(r)->render_formats(); }

void destroy(wlr_renderer* r) { delete get(r); }

int get_drm_fd(wlr_renderer* r) { return get(r)->drm_fd(); }

// wlroots' interface takes null for "could not": the reason is logged here.
wlr_texture* texture_from_buffer(wlr_renderer* r, wlr_buffer* buffer) {
  Result<Texture*> texture = get(r)->texture_from_buffer(buffer);
  if (texture) return &(*texture)->base;
  LOG_ERROR("%s", texture.error().describe().c_str());
  return nullptr;
}

wlr_render_pass* begin_buffer_pass(wlr_renderer* r, wlr_buffer* buffer,
                                   const wlr_buffer_pass_options* options) {
  Renderer& renderer = *get(r);
  Result<Pass*> pass = renderer.begin_pass(buffer, options);
  if (pass) return &(*pass)->base;
  // A lost device is told once, through wlroots' lost signal, not per frame.
  if (!renderer.device().lost()) LOG_ERROR("%s", pass.error().describe().c_str());
  return nullptr;
}

int timer_duration(wlr_render_timer* base) {
  auto* timer = reinterpret_cast<Timer*>(base);
  if (timer->point == 0 || timer->renderer == nullptr) return -1;
  Device& device = timer->renderer->device();
  if (Status waited = device.wait(timer->point, "render timer"); !waited) {
    LOG_ERROR("vulkan: render timer: %s", waited.error().describe().c_str());
    return -1;
  }
  // Query 2 (when written) starts the uploads submitted ahead of the pass.
  uint64_t stamps[3] = {};
  const uint32_t count = timer->uploads_stamped ? 3 : 2;
  VkResult result = vkGetQueryPoolResults(device.get(), timer->pool.get(), 0, count, sizeof(stamps),
                                          stamps, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
  if (Status read = device.check(result, "vkGetQueryPoolResults"); !read) {
    LOG_ERROR("vulkan: render timer: %s", read.error().describe().c_str());
    return -1;
  }
  const uint64_t start = count == 3 ? std::min(stamps[0], stamps[2]) : stamps[0];
  double ns = double(stamps[1] - start) * device.properties().limits.timestampPeriod;
  return static_cast<int>(ns);
}

void timer_destroy(wlr_render_timer* base) {
  auto* timer = reinterpret_cast<Timer*>(base);
  if (timer->renderer != nullptr) {
    timer->renderer->forget_timer(timer);
    timer->renderer->recycle_query_pool(std::move(timer->pool), timer->point);
  }
  delete timer;
}

const wlr_render_timer_impl kTimerImpl = {
    .get_duration_ns = timer_duration,
    .destroy = timer_destroy,
};

wlr_render_timer* render_timer_create(wlr_renderer* r) {
  Renderer* self = get(r);
  Device& device = self->device();
  if (device.properties().limits.timestampComputeAndGraphics == VK_FALSE) return nullptr;
  auto pool = self->take_query_pool();
  if (!pool) {
    LOG_ERROR("vulkan: no render timer: %s", pool.error().describe().c_str());
    return nullptr;
  }
  auto* timer = new Timer();  // freed by timer_destroy
  timer->base.impl = &kTimerImpl;
  timer->renderer = self;
  timer->pool = std::move(*pool);
  self->track_timer(timer);
  return &timer->base;
}

const wlr_renderer_impl kRendererImpl = {
    .get_texture_formats = get_texture_formats,
    .get_render_formats = get_render_formats,
    .destroy = destroy,
    .get_drm_fd = get_drm_fd,
    .texture_from_buffer = texture_from_buffer,
    .begin_buffer_pass = begin_buffer_pass,
    .render_timer_create = render_timer_create,
};

}  // namespace

int64_t render_timer_duration_if_done(wlr_render_timer* base) {
  if (base == nullptr || base->impl != &kTimerImpl) return -1;
  auto* timer = reinterpret_cast<Timer*>(base);
  if (timer->point == 0 || timer->renderer == nullptr) return -1;
  if (timer->renderer->device().completed() < timer->point) return -1;
  return timer_duration(base);  // finished: its wait returns at once
}

Renderer::Renderer(std::shared_ptr<Device> device)
    : device_(std::move(device)),
      pipelines_(*device_),
      render_done_(*device_),
      compute_(*device_),
      ring_(*device_),
      uploader_(*device_) {
  wlr_.self = this;
}

Renderer* Renderer::from(wlr_renderer* renderer) { return reinterpret_cast<Wlr*>(renderer)->self; }

Status Renderer::open_drm_node(const std::optional<std::string>& fallback) {
  std::string path;
  if (const auto& node = device_->render_node(); node) {
    drmDevice* found = nullptr;
    if (drmGetDeviceFromDevId(*node, 0, &found) == 0) {
      if ((found->available_nodes & (1 << DRM_NODE_RENDER)) != 0)
        path = found->nodes[DRM_NODE_RENDER];
      drmFreeDevice(&found);
    }
    if (path.empty()) LOG_ERROR("vulkan: the device's render node is not found under /dev/dri");
  }
  if (path.empty() && fallback) path = *fallback;
  if (path.empty()) return {};  // no DRM node: no dma-buf capture offers
  drm_fd_ = UniqueFd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!drm_fd_) return last_error("opening the DRM node " + path);
  LOG_INFO("vulkan: the renderer's DRM device is %s", path.c_str());
  return {};
}

CompletionWatch* Renderer::completion() {
  if (completion_ || loop_ == nullptr) return completion_.get();
  auto created = CompletionWatch::of(device_, loop_);
  if (!created) {
    LOG_ERROR("vulkan: %s", created.error().describe().c_str());
    loop_ = nullptr;  // logged once
    return nullptr;
  }
  completion_ = std::move(*created);
  return completion_.get();
}

Status Renderer::init(const std::string& pipeline_cache_path, Compositing compositing) {
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = device_->queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  if (Status s = device_->check(vkCreateCommandPool(device_->get(), &pool_info, nullptr, &pool),
                                "vkCreateCommandPool");
      !s)
    return s;
  pool_ = UniqueCommandPool(device_->get(), pool);
  if (Status s = pipelines_.create(pipeline_cache_path); !s) return s;
  // Measured (bench/): on a discrete GPU the compute path spares the ROPs; on
  // lavapipe it is 10-20 times slower than llvmpipe's tiled rasterizer.
  if (compositing == Compositing::automatic &&
      device_->properties().deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
    compositing = Compositing::raster;
  if (compositing != Compositing::raster) {
    if (!device_->features().compute_composite) {
      if (compositing == Compositing::compute)
        return failure("compute compositing",
                       "it needs format-less storage images, non-uniformly indexed sampler "
                       "arrays and partially bound descriptors; '" +
                           device_->name() + "' lacks one");
    } else if (Status built = compute_.create(pipelines_.cache()); !built) {
      if (compositing == Compositing::compute) return built;
      LOG_INFO("vulkan: the compute compositor failed to build (%s); compositing with raster draws",
               built.error().describe().c_str());
    } else {
      compute_enabled_ = true;
    }
  }
  LOG_INFO("vulkan: compositing with %s", compute_enabled_ ? "compute dispatches" : "raster draws");
  // Small uploads by dispatch where the GPU pays per transfer command (the
  // devices the compute path is for); where they cannot, copies still work.
  if (compute_enabled_ && device_->features().compute_upload) {
    Status built = uploader_.create(pipelines_.cache());
    uploads_by_dispatch_ = built.ok();
    if (!built)
      LOG_INFO("vulkan: the upload dispatch failed to build (%s); copying",
               built.error().describe().c_str());
    ring_.set_placement(HostBuffer::Placement::device_local);
  }
  build_format_sets();
  // Render targets are the swapchain's own slots only: host memory handed
  // out by pointer, or (DRM) dumb buffers shared as dma-bufs.
  uint32_t caps = WLR_BUFFER_CAP_DATA_PTR;
  if (device_->features().dmabuf_import) caps |= WLR_BUFFER_CAP_DMABUF;
  wlr_renderer_init(&wlr_.base, &kRendererImpl, caps);
  return {};
}

Renderer::~Renderer() {
  // Timers outliving the renderer (an output's, across a GPU loss) give
  // their query pools back now; destroying them later touches nothing of ours.
  for (Timer* timer : std::exchange(timers_, {})) {
    recycle_query_pool(std::move(timer->pool), timer->point);
    timer->renderer = nullptr;
  }
  // Our share of the device's watch: callbacks still waiting run later from
  // the loop if the release points' watch holds it too, else are dropped.
  completion_.reset();
  // Teardown may wait: nothing may be in flight when the device objects go
  // (on a really lost device this returns at once).
  vkDeviceWaitIdle(device_->get());
  device_->collect_freed();  // slots freed while their last pass ran
  const ImportCache::Counts& imports = imports_.counts();
  // Tests grep this line (tests/vm/vk_client_test.sh, video_test.sh): which
  // way clients' pixels came, dma-bufs or copies.
  LOG_INFO(
      "vulkan: %llu client dma-bufs imported, %llu commits reused an earlier import; "
      "%llu texture rectangles uploaded",
      static_cast<unsigned long long>(imports.imports),
      static_cast<unsigned long long>(imports.reuses),
      static_cast<unsigned long long>(upload_counts_.copied + upload_counts_.dispatched));
  // Tests grep this line (tests/vm/late_gpu_test.sh): the event loop's
  // thread never waits on the GPU while frames flow.
  uint64_t loop_waits = 0;
  std::string sites;
  for (const auto& [site, count] : device_->loop_waits()) {
    loop_waits += count;
    sites += (sites.empty() ? " (" : ", ") + site + ": " + std::to_string(count);
  }
  if (!sites.empty()) sites += ")";
  LOG_INFO("vulkan: the event loop's thread blocked on the GPU %llu times%s",
           static_cast<unsigned long long>(loop_waits), sites.c_str());
  LOG_INFO("vulkan: render-done joined sampled client dma-bufs' fences as a reader's %llu times",
           static_cast<unsigned long long>(read_fences_));
  imports_.clear();  // before the textures: their buffers' addons go with them
  dmabuf_targets_.clear();
  // A texture still here has no holder left: wlroots 0.19's users drop theirs
  // on the renderer's destroy signal, which wlr_renderer_destroy emitted
  // before this ran (a wlr_client_buffer hands its texture to the renderer
  // that way). Freed here, as wlroots' own renderers do.
  for (Texture* texture : std::exchange(textures_, {})) {
    texture->renderer = nullptr;  // no retiring: nothing is in flight
    wlr_texture_destroy(&texture->base);
  }
  retired_.clear();
  retire_after_passes_.clear();
  // Passes never submitted never run; everything submitted finished above.
  if (open_passes_end_) open_passes_end_->ended = true;
  wlr_drm_format_set_finish(&shm_formats_);
  wlr_drm_format_set_finish(&render_formats_);
  wlr_drm_format_set_finish(&dmabuf_formats_);
}

void Renderer::build_format_sets() {
  const VkFormatFeatureFlags sample = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  for (const FormatInfo& f : known_formats()) {
    VkFormatProperties props{};
    vkGetPhysicalDeviceFormatProperties(device_->physical(), f.vk, &props);
    if ((props.optimalTilingFeatures & sample) == sample)
      wlr_drm_format_set_add(&shm_formats_, f.drm, DRM_FORMAT_MOD_INVALID);
    if (f.renderable && pipelines_.get(f.vk, DrawKind::solid, Blend::none) != VK_NULL_HANDLE) {
      // Slots are our own images: implicit (INVALID) and LINEAR both describe them.
      wlr_drm_format_set_add(&render_formats_, f.drm, DRM_FORMAT_MOD_INVALID);
      wlr_drm_format_set_add(&render_formats_, f.drm, DRM_FORMAT_MOD_LINEAR);
    }
  }
  // YUV through wl_shm: each plane is uploaded into an image of its own.
  for (const PlaneLayout& layout : plane_layouts()) {
    bool sampled = true;
    for (uint8_t i = 0; i < layout.image_count; ++i) {
      VkFormatProperties props{};
      vkGetPhysicalDeviceFormatProperties(device_->physical(), layout.images[i].format, &props);
      sampled = sampled && (props.optimalTilingFeatures & sample) == sample;
    }
    if (sampled) wlr_drm_format_set_add(&shm_formats_, layout.info.drm, DRM_FORMAT_MOD_INVALID);
  }
  query_dmabuf_formats(*device_, dmabuf_formats_);
  LOG_INFO("vulkan: %zu dma-buf formats importable%s", dmabuf_formats_.len,
           device_->features().dmabuf_import ? "" : " (the device lacks dma-buf import)");
}

Result<VkCommandBuffer> Renderer::begin_commands() {
  uint64_t done = device_->completed();
  Recorder* free = nullptr;
  for (Recorder& r : recorders_) {
    if (!r.recording && r.point <= done) {
      free = &r;
      break;
    }
  }
  if (free == nullptr) {
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = pool_.get();
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    if (Status s = device_->check(vkAllocateCommandBuffers(device_->get(), &info, &cb),
                                  "vkAllocateCommandBuffers");
        !s)
      return s.error();
    recorders_.push_back({cb, 0, false});
    free = &recorders_.back();
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (Status s = device_->check(vkBeginCommandBuffer(free->cb, &begin), "vkBeginCommandBuffer"); !s)
    return s.error();
  free->recording = true;
  return free->cb;
}

Result<uint64_t> Renderer::submit(VkCommandBuffer cb, std::span<const VkSemaphoreSubmitInfo> waits,
                                  Timer* timer, VkSemaphore also_signal) {
  VkCommandBuffer cbs[2]{};
  uint32_t count = 0;
  Status ok;
  // Uploads that could not be recorded stay pending for the next submission.
  Result<VkCommandBuffer> recorded = record_uploads(timer);
  if (!recorded)
    LOG_ERROR("vulkan: uploads wait for a later submission: %s",
              recorded.error().describe().c_str());
  const VkCommandBuffer uploads = recorded ? *recorded : VK_NULL_HANDLE;
  for (VkCommandBuffer c : {uploads, cb}) {
    if (c == VK_NULL_HANDLE) continue;
    if (Status ended = device_->check(vkEndCommandBuffer(c), "vkEndCommandBuffer"); !ended && ok)
      ok = ended;
    cbs[count++] = c;
  }
  const uint64_t point = device_->next_point();
  VkSemaphore timeline = device_->timeline();
  // As many waits as the pass has (one per sampled buffer still written).
  std::vector<VkSemaphore> wait_semaphores(waits.size());
  std::vector<uint64_t> wait_values(waits.size());
  std::vector<VkPipelineStageFlags> wait_stages(waits.size(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  const uint32_t wait_count = static_cast<uint32_t>(waits.size());
  for (uint32_t i = 0; i < wait_count; ++i) {
    wait_semaphores[i] = waits[i].semaphore;
    wait_values[i] = waits[i].value;
  }
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = wait_count;
  values.pWaitSemaphoreValues = wait_values.data();
  // A binary semaphore's value is ignored; it goes second.
  const std::array<uint64_t, 2> signal_values{point, 0};
  const std::array<VkSemaphore, 2> signals{timeline, also_signal};
  const uint32_t signal_count = also_signal != VK_NULL_HANDLE ? 2 : 1;
  values.signalSemaphoreValueCount = signal_count;
  values.pSignalSemaphoreValues = signal_values.data();
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  info.waitSemaphoreCount = wait_count;
  info.pWaitSemaphores = wait_semaphores.data();
  info.pWaitDstStageMask = wait_stages.data();
  info.commandBufferCount = count;
  info.pCommandBuffers = cbs;
  info.signalSemaphoreCount = signal_count;
  info.pSignalSemaphores = signals.data();
  if (ok)
    ok = device_->check(vkQueueSubmit(device_->queue(), 1, &info, VK_NULL_HANDLE), "vkQueueSubmit");
  // Whatever happened, these command buffers are no longer recording.
  for (Recorder& r : recorders_) {
    if (r.cb == cb || r.cb == uploads) {
      r.recording = false;
      r.point = ok ? point : 0;
    }
  }
  if (!ok) {
    check_lost();
    return ok.error();
  }
  device_->advance();
  ring_.commit(point);
  return point;
}

Result<VkSemaphore> Renderer::import_fence(UniqueFd sync_file) {
  if (!device_->features().semaphore_sync_fd || device_->import_semaphore_fd == nullptr)
    return failure("a fence cannot be waited on the GPU", "no VK_KHR_external_semaphore_fd");
  const uint64_t done = device_->completed();
  FenceSemaphore* slot = nullptr;
  for (FenceSemaphore& f : fence_semaphores_)
    if (!f.in_use && f.point <= done) slot = &f;
  if (slot == nullptr) {
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    if (Status s = device_->check(vkCreateSemaphore(device_->get(), &info, nullptr, &semaphore),
                                  "vkCreateSemaphore (reuse fence)");
        !s)
      return s.error();
    fence_semaphores_.push_back({UniqueSemaphore(device_->get(), semaphore), 0, false});
    slot = &fence_semaphores_.back();
  }
  VkImportSemaphoreFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
  import.semaphore = slot->semaphore.get();
  import.flags = VK_SEMAPHORE_IMPORT_TEMPORARY_BIT;  // SYNC_FD requires temporary
  import.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  import.fd = sync_file.get();
  if (Status s = device_->check(device_->import_semaphore_fd(device_->get(), &import),
                                "vkImportSemaphoreFdKHR (SYNC_FD)");
      !s)
    return s.error();
  (void)sync_file.release();  // Vulkan owns it now
  slot->in_use = true;
  return slot->semaphore.get();
}

void Renderer::fence_waited(VkSemaphore semaphore, uint64_t point) {
  if (semaphore == VK_NULL_HANDLE) return;
  for (FenceSemaphore& f : fence_semaphores_) {
    if (f.semaphore.get() != semaphore) continue;
    f.in_use = false;
    // Not submitted: the payload was never waited on; a new import replaces it.
    f.point = point;
  }
}

void Renderer::collect() {
  uint64_t done = device_->completed();
  ring_.reclaim(done);
  std::erase_if(retired_, [&](const Retired& r) { return r.point <= done; });
  device_->collect_freed();
}

void Renderer::retire(Retired resources) {
  if (open_passes_ > 0) {
    retire_after_passes_.push_back(std::move(resources));
    return;
  }
  if (resources.point <= device_->completed()) return;  // destroyed right here
  retired_.push_back(std::move(resources));
}

void Renderer::drop_from_passes(Texture* texture) {
  if (open_passes_ == 0) return;
  for (auto& pass : passes_) std::erase(pass->used, texture);
}

std::shared_ptr<const OpenPasses> Renderer::open_passes() {
  if (open_passes_ == 0) return nullptr;
  if (!open_passes_end_) open_passes_end_ = std::make_shared<OpenPasses>();
  return open_passes_end_;
}

Result<UniqueQueryPool> Renderer::take_query_pool() {
  const uint64_t done = device_->completed();
  for (auto it = spare_query_pools_.begin(); it != spare_query_pools_.end(); ++it) {
    if (it->point > done) continue;
    UniqueQueryPool pool = std::move(it->pool);
    spare_query_pools_.erase(it);
    return pool;
  }
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 3;  // pass start, pass end, uploads start
  VkQueryPool pool = VK_NULL_HANDLE;
  if (Status s = device_->check(vkCreateQueryPool(device_->get(), &info, nullptr, &pool),
                                "vkCreateQueryPool");
      !s)
    return s.error();
  return UniqueQueryPool(device_->get(), pool);
}

void Renderer::recycle_query_pool(UniqueQueryPool pool, uint64_t point) {
  if (pool) spare_query_pools_.push_back({std::move(pool), point});
}

void Renderer::check_lost() {
  if (!device_->lost() || lost_emitted_) return;
  lost_emitted_ = true;
  LOG_ERROR("vulkan: the device was lost; asking the compositor to rebuild the renderer");
  wl_signal_emit_mutable(&wlr_.base.events.lost, nullptr);
}

void Renderer::release_pass(Pass* pass, uint64_t point) {
  if (--open_passes_ == 0) {
    for (Retired& r : retire_after_passes_) {
      r.point = std::max(r.point, point != 0 ? point : device_->submitted());
      retired_.push_back(std::move(r));
    }
    retire_after_passes_.clear();
    if (open_passes_end_) {
      open_passes_end_->point = point != 0 ? point : device_->submitted();
      open_passes_end_->ended = true;
      open_passes_end_.reset();
    }
  }
  pass->cb = VK_NULL_HANDLE;
  pass->slot = nullptr;
  pass->buffer = nullptr;
  pass->timer = nullptr;
  pass->used.clear();
  free_passes_.push_back(pass);
}

// ---- public API ----

Result<wlr_renderer*> create_renderer(const RendererOptions& options) {
  DeviceOptions device_options;
  device_options.request = options.device;
  device_options.debug_messenger = options.debug_messenger;
  auto device = Device::create(device_options);
  if (!device) return device.error();
  auto renderer = std::make_unique<Renderer>(std::move(*device));
  if (Status init = renderer->init(options.pipeline_cache_path, options.compositing); !init)
    return failure("the Vulkan renderer on '" + renderer->device().name() + "'",
                   "it failed to initialise: " + init.error().describe());
  renderer->set_event_loop(options.loop);
  if (Status opened = renderer->open_drm_node(options.drm_device); !opened)
    return failure("the Vulkan renderer", opened.error().describe());
  // Render-done reaches a signal point from the event loop at worst, so
  // this needs the loop, not a sync_file export.
  renderer->wlr()->features.timeline = options.signal_timelines && options.loop != nullptr;
  return renderer.release()->wlr();
}

bool declined_cpu_device(const Error& error) { return error.call == kDeclinedCpu; }

std::string default_pipeline_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string base;
  if (xdg != nullptr && xdg[0] == '/')
    base = xdg;
  else if (home != nullptr && home[0] == '/')
    base = std::string(home) + "/.cache";
  else
    return "";
  return base + "/baton/vulkan-pipeline-cache";
}

bool is_vulkan_renderer(const wlr_renderer* renderer) {
  // wlroots 0.19 keeps impl private to implementers; baton implements this one.
  return renderer != nullptr && renderer->WLR_PRIVATE.impl == &kRendererImpl;
}

PassCounts renderer_pass_counts(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->pass_counts() : PassCounts{};
}

UploadCounts renderer_upload_counts(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->upload_counts() : UploadCounts{};
}

bool renderer_device_is_discrete(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) &&
         Renderer::from(renderer)->device().properties().deviceType ==
             VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
}

bool renderer_composites_with_compute(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) && Renderer::from(renderer)->composites_with_compute();
}

std::string renderer_device_name(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->device().name() : "";
}

DeviceKind renderer_device_kind(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->device().kind()
                                      : DeviceKind::other;
}

int renderer_debug_messages(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->device().debug_messages() : 0;
}

size_t renderer_dmabuf_targets(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) ? Renderer::from(renderer)->dmabuf_targets().size() : 0;
}

void renderer_simulate_device_lost(wlr_renderer* renderer) {
  if (!is_vulkan_renderer(renderer)) return;
  // Let submitted work finish first: a lost device runs nothing, and buffers
  // freed without waiting must not still be in use by a real GPU.
  Device& device = Renderer::from(renderer)->device();
  vkDeviceWaitIdle(device.get());
  device.mark_lost();
}

uint64_t renderer_loop_waits(wlr_renderer* renderer, std::string_view site) {
  if (!is_vulkan_renderer(renderer)) return 0;
  const auto& waits = Renderer::from(renderer)->device().loop_waits();
  auto counted = waits.find(site);
  return counted == waits.end() ? 0 : counted->second;
}

uint64_t renderer_pending_upload_bytes(wlr_renderer* renderer) {
  if (!is_vulkan_renderer(renderer)) return 0;
  return Renderer::from(renderer)->pending_upload_bytes();
}

size_t renderer_pending_frees(wlr_renderer* renderer) {
  if (!is_vulkan_renderer(renderer)) return 0;
  Device& device = Renderer::from(renderer)->device();
  device.collect_freed();
  return device.pending_frees();
}

void renderer_finish(wlr_renderer* renderer) {
  if (!is_vulkan_renderer(renderer)) return;
  Device& device = Renderer::from(renderer)->device();
  if (Status waited = device.wait(device.submitted(), "renderer finish"); !waited && !device.lost())
    LOG_ERROR("vulkan: finishing the renderer's work: %s", waited.error().describe().c_str());
}

}  // namespace baton::vulkan
