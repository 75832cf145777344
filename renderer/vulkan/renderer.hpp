// The Vulkan renderer's internals: the wlr_renderer implementation, its
// textures, render passes and timers. Only renderer/vulkan/ includes this.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <unordered_set>
#include <vector>

#include "renderer/vulkan/counters.hpp"
#include "renderer/vulkan/device/completion_watch.hpp"
#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/device/host_buffer.hpp"
#include "renderer/vulkan/device/retired.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/pass/compute_composite.hpp"
#include "renderer/vulkan/pass/pipelines.hpp"
#include "renderer/vulkan/pass/render_done.hpp"
#include "renderer/vulkan/swapchain/dmabuf_target.hpp"
#include "renderer/vulkan/swapchain/slot.hpp"
#include "renderer/vulkan/texture/import_cache.hpp"
#include "renderer/vulkan/texture/staging_ring.hpp"
#include "renderer/vulkan/texture/upload_dispatch.hpp"
#include "renderer/vulkan/texture/ycbcr_conversion.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/buffer_lock.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

class Renderer;
struct ReadBackPool;

struct Texture {
  wlr_texture base;              // first: wlroots hands us &base
  Renderer* renderer = nullptr;  // null only while the renderer frees it
  const FormatInfo* format = nullptr;
  // Owned image (uploaded or imported) ...
  UniqueImage owned_image;
  UniqueMemory owned_memory;
  UniqueImageView owned_view;
  // ... or a swapchain slot's image, kept alive by locking its buffer.
  wlr_buffer* target_buffer = nullptr;
  // An imported client dma-buf, locked while the texture lives. The reads
  // still in flight when it goes are not its business: the client's buffer
  // is held for them by the hand-off (handoff/release_watch.hpp), which
  // decides when the client has it back. Its image is the cache's, shared
  // with other textures of the same buffer.
  BufferLock source;
  // The last pass whose render-done joined `source`'s implicit fences as a
  // reader's: reads up to here hold the client's writes in the kernel.
  uint64_t reads_fenced_through = 0;
  std::shared_ptr<const UniqueFd> read_fence;  // that pass's render-done
  CachedImport* import = nullptr;
  Slot* slot = nullptr;
  VkImage image = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  // R32_UINT view that upload.comp writes texels through; null: uploads copy.
  UniqueImageView owned_storage_view;
  VkImageView storage_view = VK_NULL_HANDLE;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  /// 1x1 buffers are drawn as solid rectangles: no image, no upload.
  bool solid = false;
  float color[4] = {};  // premultiplied, for solid textures
  // Some (format, modifier) pairs sample only with NEAREST (lavapipe's LINEAR).
  bool filters_linearly = true;
  // YUV: `view` has Y in red, these Cb and Cr (a dma-buf's: the import's).
  const PlaneLayout* planes = nullptr;
  VkImageView chroma_views[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  // A YUV wl_shm buffer's plane images after the first (`owned_image`), and
  // its chroma views.
  std::array<UniqueImage, 2> owned_plane_images;
  std::array<UniqueMemory, 2> owned_plane_memory;
  std::array<UniqueImageView, 2> owned_chroma_views;
  YcbcrConversion conversion{};
  // RGB with straight (not premultiplied) alpha: the shaders premultiply.
  bool straight_alpha = false;
  uint64_t last_used = 0;
  bool updatable = false;
};

struct Timer {
  wlr_render_timer base;
  Renderer* renderer = nullptr;
  UniqueQueryPool pool;
  uint64_t point = 0;            // submission whose duration it holds; 0: none yet
  bool uploads_stamped = false;  // query 2 holds the start of that submission's uploads
};

struct Pass {
  wlr_render_pass base;
  Renderer* renderer = nullptr;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  Slot* slot = nullptr;
  wlr_buffer* buffer = nullptr;
  Timer* timer = nullptr;
  VkSemaphore release_wait = VK_NULL_HANDLE;  // the target's reuse fence, imported
  // Implicit fences of sampled client dma-bufs still being written, imported:
  // the submission waits for them on the GPU (capacity kept between frames).
  std::vector<VkSemaphore> texture_waits;
  // Where render-done goes (the output's wait point); null: nobody asked.
  wlr_drm_syncobj_timeline* signal_timeline = nullptr;
  uint64_t signal_point = 0;
  VkPipeline bound_pipeline = VK_NULL_HANDLE;
  VkImageView bound_view = VK_NULL_HANDLE;
  VkSampler bound_sampler = VK_NULL_HANDLE;
  std::vector<Texture*> used;  // capacity kept between frames
  bool compute = false;        // composited by compute dispatches at submit
  CompositeList composite;     // the compute pass's draws; capacity kept
  int batches = 0;             // composite lists already recorded
};

class Renderer {
 public:
  struct Wlr {
    wlr_renderer base;
    Renderer* self;
  };

  Renderer(std::shared_ptr<Device> device);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  [[nodiscard]] Status init(const std::string& pipeline_cache_path, Compositing compositing);
  static Renderer* from(wlr_renderer* renderer);
  wlr_renderer* wlr() { return &wlr_.base; }
  Device& device() { return *device_; }
  const std::shared_ptr<Device>& shared_device() const { return device_; }
  Pipelines& pipelines() { return pipelines_; }
  RenderDone& render_done() { return render_done_; }
  /// Opens the DRM node named as the renderer's device (RendererOptions::drm_device).
  [[nodiscard]] Status open_drm_node(const std::optional<std::string>& fallback);
  int drm_fd() const { return drm_fd_ ? drm_fd_.get() : -1; }
  /// The loop that completion callbacks run on (set once the server has one).
  void set_event_loop(wl_event_loop* loop) { loop_ = loop; }
  /// Runs callbacks on the event loop when the GPU reached a point; null
  /// (logged) without an event loop or when the watch cannot start.
  CompletionWatch* completion();
  ComputeCompositor& compute() { return compute_; }
  bool composites_with_compute() const { return compute_enabled_; }
  const PassCounts& pass_counts() const { return pass_counts_; }
  const UploadCounts& upload_counts() const { return upload_counts_; }
  bool uploads_by_dispatch() const { return uploads_by_dispatch_; }

  // Command buffers and submission.
  /// A command buffer in the recording state, reused once its work is done.
  [[nodiscard]] Result<VkCommandBuffer> begin_commands();
  /// Queues a staging-ring -> texture upload; every queued upload is recorded
  /// (with one barrier batch before and one after) ahead of the next
  /// submission, as a transfer command or by dispatch (uploads.cpp). One
  /// over a rectangle queued earlier for the same image lands after it.
  void queue_copy(VkImage image, VkImageView storage_view, VkImageLayout old_layout,
                  VkBuffer staging, const VkBufferImageCopy& region);
  /// Stages `rects` (clamped to the image) of `pixels` (rows `stride` apart,
  /// `texel_bytes` a texel) for copying into `image` before the next submission.
  [[nodiscard]] Status stage_rects(VkImage image, VkImageView storage_view,
                                   VkImageLayout old_layout, const unsigned char* pixels,
                                   size_t stride, uint32_t texel_bytes, VkExtent2D extent,
                                   std::span<const pixman_box32_t> rects);
  /// Queues taking an imported dma-buf image over from its producer (queue
  /// family EXTERNAL) into SHADER_READ_ONLY, ahead of the next submission;
  /// `held`: we still own it from an earlier commit, so it is handed back
  /// first (the producer wrote new pixels since).
  void queue_acquire(VkImage image, bool held);
  /// Records the pending uploads and acquires into `cb` (outside any render
  /// pass instance), so the next submit() needs no command buffer of its own
  /// for them: one fewer to begin, end and submit per frame.
  void record_uploads_into(VkCommandBuffer cb);
  /// Submits the pending uploads (if any) on their own, now.
  [[nodiscard]] Status flush_uploads();
  /// Staged upload bytes not yet submitted (introspection).
  [[nodiscard]] uint64_t pending_upload_bytes() const { return ring_.pending(); }
  /// Ends `cb` and submits it (after pending uploads) signalling the next
  /// timeline point (and `also_signal`, a binary semaphore, when given),
  /// waiting on `waits` first; returns the point.
  [[nodiscard]] Result<uint64_t> submit(VkCommandBuffer cb,
                                        std::span<const VkSemaphoreSubmitInfo> waits = {},
                                        Timer* timer = nullptr,
                                        VkSemaphore also_signal = VK_NULL_HANDLE);
  /// A binary semaphore holding `sync_file` (imported, temporary), for one
  /// submission to wait on; an error when the device cannot import it.
  [[nodiscard]] Result<VkSemaphore> import_fence(UniqueFd sync_file);
  /// The submission that waited on `semaphore` got `point` (0: none); it is
  /// reused once that point completed.
  void fence_waited(VkSemaphore semaphore, uint64_t point);
  /// Frees what the GPU is done with; called at the start of each pass.
  void collect();
  /// Frees `resources` once the GPU is done with them. While passes are
  /// open they may still draw them, so the point is the one their submit gets.
  void retire(Retired resources);
  /// A texture is going away: open passes forget it.
  void drop_from_passes(Texture* texture);
  /// Render-done joined a sampled client dma-buf's implicit fences as a reader's.
  void count_read_fence() { ++read_fences_; }
  /// Shared with TextureReads while passes are open; null when none is.
  std::shared_ptr<const OpenPasses> open_passes();
  /// A timestamp query pool for a new render timer: a destroyed timer's whose
  /// submission finished, else a new one.
  [[nodiscard]] Result<UniqueQueryPool> take_query_pool();
  /// A destroyed timer's pool: kept for as long as the renderer (command
  /// buffers recorded with it may still exist, and lavapipe crashes freeing
  /// them once their pool is gone) and reused once `point` completed.
  void recycle_query_pool(UniqueQueryPool pool, uint64_t point);
  /// Render timers alive now (their pools come back when the renderer goes).
  void track_timer(Timer* timer) { timers_.push_back(timer); }
  void forget_timer(Timer* timer) { std::erase(timers_, timer); }
  /// Reacts to a lost device: emits wlroots' `lost` signal once.
  void check_lost();

  // Textures.
  [[nodiscard]] Result<Texture*> texture_from_buffer(wlr_buffer* buffer);
  [[nodiscard]] Result<Texture*> texture_from_dmabuf(wlr_buffer* buffer,
                                                     const wlr_dmabuf_attributes& attribs);
  [[nodiscard]] Status upload(Texture& texture, const void* data, size_t stride,
                              const pixman_region32_t* region);
  void forget(Texture* texture) { textures_.erase(texture); }
  /// Reads `texture` back into the caller's memory, waiting for the GPU.
  [[nodiscard]] Status read_pixels(Texture& texture,
                                   const wlr_texture_read_pixels_options& options);
  /// A read-back whose copy signals `signal_point` of `timeline` instead of
  /// being waited for (wlroots writes the pixels once it is); null where it
  /// is not offered and wlroots should read back waiting.
  [[nodiscard]] Result<wlr_texture_read_back*> begin_read_pixels(
      Texture& texture, const wlr_texture_read_pixels_options& options,
      wlr_drm_syncobj_timeline* timeline, uint64_t signal_point);

  // Passes.
  [[nodiscard]] Result<Pass*> begin_pass(wlr_buffer* buffer,
                                         const wlr_buffer_pass_options* options);
  void release_pass(Pass* pass, uint64_t point);

  wlr_drm_format_set& shm_formats() { return shm_formats_; }
  wlr_drm_format_set& render_formats() { return render_formats_; }
  wlr_drm_format_set& dmabuf_formats() { return dmabuf_formats_; }
  DmabufTargets& dmabuf_targets() { return dmabuf_targets_; }

 private:
  struct Recorder {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    uint64_t point = 0;
    bool recording = false;
  };
  void build_format_sets();
  /// Submits a copy of `box` of `texture` into `staging` (signalling
  /// `also_signal` too, when given); returns its point.
  [[nodiscard]] Result<uint64_t> copy_to_host(Texture& texture, const wlr_box& box,
                                              VkBuffer staging, VkSemaphore also_signal);

  Wlr wlr_{};
  std::shared_ptr<Device> device_;
  Pipelines pipelines_;
  RenderDone render_done_;
  wl_event_loop* loop_ = nullptr;
  UniqueFd drm_fd_;                              // the DRM node named as ours; closed: none
  std::shared_ptr<CompletionWatch> completion_;  // the device's, shared
  ComputeCompositor compute_;
  bool compute_enabled_ = false;  // passes into STORAGE-capable slots use it
  PassCounts pass_counts_;
  StagingRing ring_;
  struct SpareQueryPool {
    UniqueQueryPool pool;
    uint64_t point = 0;  // the last submission that wrote it
  };
  // Declared before pool_: freed after the command buffers that used them.
  std::vector<SpareQueryPool> spare_query_pools_;
  std::vector<Timer*> timers_;  // not owned: wlroots' users destroy them
  UniqueCommandPool pool_;
  std::vector<Recorder> recorders_;
  struct FenceSemaphore {
    UniqueSemaphore semaphore;
    uint64_t point = 0;  // the submission that waited on it
    bool in_use = false;
  };
  std::vector<FenceSemaphore> fence_semaphores_;
  /// A command buffer with the pending uploads (null: none); `timer` times them too.
  Result<VkCommandBuffer> record_uploads(Timer* timer = nullptr);
  /// Picks the uploads that go by dispatch and builds their jobs.
  void plan_upload_dispatch();
  struct PendingImage {
    VkImage image;
    VkImageLayout old_layout;  // before this frame's uploads
    VkImageView storage_view;  // null: transfer commands only
    bool by_dispatch;
  };
  struct PendingCopy {
    size_t image;  // in pending_images_
    // Uploads of one round run unordered (one dispatch's workgroups, copies
    // with no barrier between): a copy over an earlier one of the same image
    // goes in a later round, after a barrier.
    uint32_t round;
    VkBuffer staging;
    VkBufferImageCopy region;
  };
  // Capacity kept between frames.
  std::vector<PendingImage> pending_images_;
  std::vector<PendingCopy> pending_copies_;
  std::vector<VkImageMemoryBarrier2> upload_barriers_;
  std::vector<UploadJob> upload_jobs_;     // by round
  std::vector<size_t> upload_round_ends_;  // index in upload_jobs_ past each round's jobs
  StagingRing::Span upload_table_;
  TextureUploader uploader_;
  bool uploads_by_dispatch_ = false;  // with the compute path, where the device can
  UploadCounts upload_counts_;
  uint64_t read_fences_ = 0;
  std::vector<VkImageMemoryBarrier2> handback_barriers_;
  std::vector<VkImageMemoryBarrier2> acquire_barriers_;
  HostBuffer readback_;
  std::shared_ptr<ReadBackPool> read_back_pool_;  // made at the first read-back begun
  std::vector<Retired> retired_;
  std::vector<Retired> retire_after_passes_;
  int open_passes_ = 0;
  std::shared_ptr<OpenPasses> open_passes_end_;  // made on demand while passes are open
  std::unordered_set<Texture*> textures_;
  ImportCache imports_{*device_, [this](Retired resources) { retire(std::move(resources)); }};
  DmabufTargets dmabuf_targets_{*device_,
                                [this](Retired resources) { retire(std::move(resources)); }};
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<Pass*> free_passes_;
  wlr_drm_format_set shm_formats_{};
  wlr_drm_format_set render_formats_{};
  wlr_drm_format_set dmabuf_formats_{};
  bool lost_emitted_ = false;
};

}  // namespace baton::vulkan
