// Render passes: one command buffer per pass, submitted against the timeline
// semaphore. Raster passes draw one scissored quad per clip rectangle; compute
// passes collect the draws and composite them at submit (compute_composite).
#include <algorithm>
#include <cmath>
#include <span>

#include "renderer/vulkan/renderer.hpp"
#include "renderer/vulkan/swapchain/reuse_fence.hpp"
#include "sync/sync_file.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

// The fd of a client dma-buf target's (single) plane.
int dmabuf_fd(wlr_buffer* buffer) {
  wlr_dmabuf_attributes attribs{};
  return wlr_buffer_get_dmabuf(buffer, &attribs) ? attribs.fd[0] : -1;
}

// Adds `fence` to `buffer`'s implicit fences, in every distinct plane fd,
// as a reader's or the writer's; false (logged) where the buffer is no
// dma-buf or the kernel refused.
bool join_implicit_fences(wlr_buffer* buffer, const sync::SyncFile& fence, sync::Access access) {
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(buffer, &attribs)) return false;
  for (int i = 0; i < attribs.n_planes; ++i) {
    if (i > 0 && attribs.fd[i] == attribs.fd[i - 1]) continue;
    if (Status imported = fence.import_into_dmabuf(attribs.fd[i], access); !imported) {
      LOG_ERROR("vulkan: render-done could not join a dma-buf's implicit fences: %s",
                imported.error().describe().c_str());
      return false;
    }
  }
  return true;
}

// Render-done joins the implicit fences of each dma-buf the pass read (as a
// reader's: a writer waits for it) and of the buffer it drew (as the
// writer's: a slot, or a capture client's dma-buf, whose reads and mapping
// then wait for the copy), so that implicit-sync producers and consumers
// wait for the GPU in the kernel. A client's buffer whose reads are all
// fenced this way can go back before they finish (TextureReads::fence, which
// the hand-off asks). True when the drawn buffer got it.
bool fence_dmabufs(Renderer& r, Pass& pass, const UniqueFd& fence, uint64_t point) {
  auto copy = fence.duplicate();
  if (!copy) {
    LOG_ERROR("vulkan: render-done: %s", copy.error().describe().c_str());
    return false;
  }
  const sync::SyncFile render_done(std::move(*copy));
  std::shared_ptr<const UniqueFd> shared;
  for (Texture* t : pass.used) {
    if (t->source.get() == nullptr ||
        !join_implicit_fences(t->source.get(), render_done, sync::Access::read))
      continue;
    if (!shared)
      if (auto kept = fence.duplicate(); kept)
        shared = std::make_shared<const UniqueFd>(std::move(*kept));
    t->reads_fenced_through = point;
    t->read_fence = shared;
    r.count_read_fence();
  }
  return join_implicit_fences(pass.buffer, render_done, sync::Access::write);
}

// A capture client's dma-buf drawn into without render-done among its
// fences (a driver whose export waits for the GPU: lavapipe): the CPU waits
// here, since wlroots tells the client the frame is ready as soon as the
// pass is submitted.
void wait_for_copy(Renderer& r, uint64_t point) {
  if (Status waited = r.device().wait(point, "copy into a client dma-buf"); !waited)
    LOG_ERROR("vulkan: waiting for a copy into a client dma-buf: %s",
              waited.error().describe().c_str());
}

Pass* get(wlr_render_pass* p) { return reinterpret_cast<Pass*>(p); }

// Where the destination's corner (u, v) in [0,1]² samples the source crop,
// in crop-relative [0,1]², for each wl_output_transform applied to the source.
void source_corner(wl_output_transform transform, float u, float v, float& s, float& t) {
  switch (transform) {
    case WL_OUTPUT_TRANSFORM_NORMAL:
      s = u, t = v;
      break;
    case WL_OUTPUT_TRANSFORM_90:
      s = 1 - v, t = u;
      break;
    case WL_OUTPUT_TRANSFORM_180:
      s = 1 - u, t = 1 - v;
      break;
    case WL_OUTPUT_TRANSFORM_270:
      s = v, t = 1 - u;
      break;
    case WL_OUTPUT_TRANSFORM_FLIPPED:
      s = 1 - u, t = v;
      break;
    case WL_OUTPUT_TRANSFORM_FLIPPED_90:
      s = v, t = u;
      break;
    case WL_OUTPUT_TRANSFORM_FLIPPED_180:
      s = u, t = 1 - v;
      break;
    case WL_OUTPUT_TRANSFORM_FLIPPED_270:
      s = 1 - v, t = 1 - u;
      break;
  }
}

void set_dst(QuadConstants& q, const wlr_box& box, const Slot& target) {
  q.dst[0] = 2.0f * float(box.x) / float(target.width) - 1.0f;
  q.dst[1] = 2.0f * float(box.y) / float(target.height) - 1.0f;
  q.dst[2] = 2.0f * float(box.x + box.width) / float(target.width) - 1.0f;
  q.dst[3] = 2.0f * float(box.y + box.height) / float(target.height) - 1.0f;
}

// Calls fn(x1, y1, x2, y2) for each rectangle of (clip ∩ box ∩ target).
template <typename Fn>
void for_each_clip_rect(const Slot& target, const wlr_box& box, const pixman_region32_t* clip,
                        Fn&& fn) {
  const int32_t bx1 = std::max(box.x, 0), by1 = std::max(box.y, 0);
  const int32_t bx2 = std::min(box.x + box.width, static_cast<int32_t>(target.width));
  const int32_t by2 = std::min(box.y + box.height, static_cast<int32_t>(target.height));
  auto visit = [&](int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    x1 = std::max(x1, bx1), y1 = std::max(y1, by1);
    x2 = std::min(x2, bx2), y2 = std::min(y2, by2);
    if (x2 > x1 && y2 > y1) fn(x1, y1, x2, y2);
  };
  if (clip == nullptr) {
    visit(bx1, by1, bx2, by2);
    return;
  }
  int count = 0;
  const pixman_box32_t* rects =
      pixman_region32_rectangles(const_cast<pixman_region32_t*>(clip), &count);
  for (int i = 0; i < count; ++i) visit(rects[i].x1, rects[i].y1, rects[i].x2, rects[i].y2);
}

// Raster: draws the bound pipeline once per clip rectangle, as a scissor.
void draw_clipped(Pass& pass, const wlr_box& box, const pixman_region32_t* clip) {
  for_each_clip_rect(*pass.slot, box, clip, [&](int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    VkRect2D scissor{{x1, y1}, {uint32_t(x2 - x1), uint32_t(y2 - y1)}};
    vkCmdSetScissor(pass.cb, 0, 1, &scissor);
    vkCmdDraw(pass.cb, 4, 1, 0, 0);
  });
}

// Compute: the draw joins the pass's composite list with its clip rectangles.
void add_op(Pass& pass, const wlr_box& box, const pixman_region32_t* clip, CompositeOp op) {
  CompositeList& list = pass.composite;
  op.box[0] = float(box.x);
  op.box[1] = float(box.y);
  op.box[2] = 1.0f / float(box.width);
  op.box[3] = 1.0f / float(box.height);
  op.rects[0] = static_cast<int32_t>(list.rects.size());
  for_each_clip_rect(*pass.slot, box, clip, [&](int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    list.rects.push_back({x1, y1, x2, y2});
  });
  op.rects[1] = static_cast<int32_t>(list.rects.size()) - op.rects[0];
  if (op.rects[1] == 0) return;
  ClipRect bounds = list.rects[static_cast<size_t>(op.rects[0])];
  for (size_t i = static_cast<size_t>(op.rects[0]) + 1; i < list.rects.size(); ++i) {
    const ClipRect& r = list.rects[i];
    bounds = {std::min(bounds.x1, r.x1), std::min(bounds.y1, r.y1), std::max(bounds.x2, r.x2),
              std::max(bounds.y2, r.y2)};
  }
  op.bounds[0] = bounds.x1, op.bounds[1] = bounds.y1;
  op.bounds[2] = bounds.x2, op.bounds[3] = bounds.y2;
  list.ops.push_back(op);
}

// Records the dispatches of the draws collected so far; pending texture
// uploads go first. At submit they go in the pass's own command buffer (a
// compute pass has drawn nothing yet where they land, and the frame needs no
// second command buffer). For a batch in mid-pass they are submitted at once
// on their own: their staging must belong to a submission already made, or
// another pass submitted before this one would hand it back too early.
Status dispatch_composite(Pass& pass, bool at_submit) {
  Renderer& r = *pass.renderer;
  if (at_submit) {
    r.record_uploads_into(pass.cb);
  } else if (Status flushed = r.flush_uploads(); !flushed) {
    // They stay pending and go with the pass's own submission.
    LOG_ERROR("vulkan: uploads ahead of a composite batch: %s", flushed.error().describe().c_str());
  }
  return r.compute().record(pass.cb, *pass.slot, pass.composite, pass.batches > 0);
}

// A composite list samples at most kMaxTextures images: a fuller pass is
// composited in batches, each over the result of the one before. A YUV
// texture's three views go in one batch.
void image_slots(Pass& pass, std::span<const VkDescriptorImageInfo> images, int* slots) {
  if (!pass.composite.has_room_for(images)) {
    if (Status dispatched = dispatch_composite(pass, false); !dispatched)
      LOG_ERROR("vulkan: a compute composite batch was dropped: %s",
                dispatched.error().describe().c_str());
    ++pass.batches;
    pass.composite.clear();
  }
  for (size_t i = 0; i < images.size(); ++i) slots[i] = pass.composite.image_index(images[i]);
}

void bind(Pass& pass, VkPipeline pipeline) {
  if (pass.bound_pipeline == pipeline) return;
  vkCmdBindPipeline(pass.cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  pass.bound_pipeline = pipeline;
}

bool region_empty(const pixman_region32_t* clip) {
  return clip != nullptr && !pixman_region32_not_empty(const_cast<pixman_region32_t*>(clip));
}

void solid_quad(Pass& pass, const wlr_box& box, const float color[4], Blend blend,
                const pixman_region32_t* clip) {
  if (pass.compute) {
    CompositeOp op{};
    op.texture = -1;
    op.flags = blend == Blend::none ? kOpReplaces : 0;
    std::copy(color, color + 4, op.color);
    add_op(pass, box, clip, op);
    return;
  }
  Renderer& r = *pass.renderer;
  bind(pass, r.pipelines().get(pass.slot->format, DrawKind::solid, blend));
  QuadConstants q{};
  set_dst(q, box, *pass.slot);
  std::copy(color, color + 4, q.color);
  vkCmdPushConstants(pass.cb, r.pipelines().layout(),
                     VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(q), &q);
  draw_clipped(pass, box, clip);
}

void add_rect(wlr_render_pass* base, const wlr_render_rect_options* options) {
  Pass& pass = *get(base);
  if (region_empty(options->clip)) return;
  wlr_box box{};
  wlr_render_rect_options_get_box(options, pass.buffer, &box);
  const float color[4] = {options->color.r, options->color.g, options->color.b, options->color.a};
  Blend blend = options->blend_mode == WLR_RENDER_BLEND_MODE_NONE || options->color.a >= 1.0f
                    ? Blend::none
                    : Blend::premultiplied;
  solid_quad(pass, box, color, blend, options->clip);
}

// A client dma-buf sampled for the first time in this pass: if a writer's
// implicit fence is still pending (a client the readiness gate let through
// unwaited), the submission waits for it on the GPU, never the CPU.
void wait_for_writers(Pass& pass, Texture& texture) {
  if (texture.source.get() == nullptr ||
      std::find(pass.used.begin(), pass.used.end(), &texture) != pass.used.end())
    return;
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(texture.source.get(), &attribs)) return;
  for (int i = 0; i < attribs.n_planes; ++i) {
    if (i > 0 && attribs.fd[i] == attribs.fd[i - 1]) continue;
    auto fence = unfinished_writes_fence(attribs.fd[i]);
    if (!fence) {  // as if none were pending
      LOG_ERROR("vulkan: %s", fence.error().describe().c_str());
      continue;
    }
    if (!*fence) continue;
    auto wait = pass.renderer->import_fence(std::move(*fence));
    if (!wait)
      LOG_ERROR("vulkan: a client dma-buf is sampled while its writer may still be busy: %s",
                wait.error().describe().c_str());
    else
      pass.texture_waits.push_back(*wait);
  }
}

void add_texture(wlr_render_pass* base, const wlr_render_texture_options* options) {
  Pass& pass = *get(base);
  auto* texture = reinterpret_cast<Texture*>(options->texture);
  if (region_empty(options->clip) || texture->renderer != pass.renderer) return;
  Renderer& r = *pass.renderer;
  wlr_box dst{};
  wlr_render_texture_options_get_dst_box(options, &dst);
  if (dst.width <= 0 || dst.height <= 0) return;
  const float alpha = wlr_render_texture_options_get_alpha(options);
  const Blend blend =
      options->blend_mode == WLR_RENDER_BLEND_MODE_NONE ? Blend::none : Blend::premultiplied;

  if (texture->solid) {
    const float c[4] = {texture->color[0] * alpha, texture->color[1] * alpha,
                        texture->color[2] * alpha, texture->color[3] * alpha};
    solid_quad(pass, dst, c, blend, options->clip);
    return;
  }
  if (texture->slot == pass.slot) {
    LOG_ERROR("vulkan: a pass cannot sample the buffer it renders into");
    return;
  }

  wlr_fbox src{};
  wlr_render_texture_options_get_src_box(options, &src);
  const float tw = float(texture->base.width), th = float(texture->base.height);
  QuadConstants q{};
  set_dst(q, dst, *pass.slot);
  float s = 0, t = 0;
  auto tex_at = [&](float u, float v, float out[2]) {
    source_corner(options->transform, u, v, s, t);
    out[0] = float(src.x + s * src.width) / tw;
    out[1] = float(src.y + t * src.height) / th;
  };
  float right[2], down[2];
  tex_at(0, 0, q.uv_origin);
  tex_at(1, 0, right);
  tex_at(0, 1, down);
  for (int i = 0; i < 2; ++i) {
    q.uv_dx[i] = right[i] - q.uv_origin[i];
    q.uv_dy[i] = down[i] - q.uv_origin[i];
  }
  q.color[0] = q.color[1] = q.color[2] = q.color[3] = alpha;
  q.straight = texture->straight_alpha ? 1.0f : 0.0f;
  const bool ycbcr = texture->planes != nullptr;

  // An opaque texture drawn at full opacity needs no blending.
  Blend effective = blend;
  if (!texture->format->has_alpha && alpha >= 1.0f) effective = Blend::none;
  const bool nearest =
      options->filter_mode == WLR_SCALE_FILTER_NEAREST || !texture->filters_linearly;
  VkSampler sampler = r.pipelines().sampler(nearest ? Filter::nearest : Filter::linear);
  const VkImageLayout layout = texture->slot ? VK_IMAGE_LAYOUT_GENERAL : texture->layout;
  // Chroma is read with texelFetch, which ignores the sampler's filter.
  const VkSampler exact = r.pipelines().sampler(Filter::nearest);
  const VkDescriptorImageInfo images[3] = {{sampler, texture->view, layout},
                                           {exact, texture->chroma_views[0], layout},
                                           {exact, texture->chroma_views[1], layout}};
  const uint32_t image_count = ycbcr ? 3 : 1;
  wait_for_writers(pass, *texture);
  if (pass.compute) {
    CompositeOp op{};
    int slots[3] = {-1, -1, -1};
    image_slots(pass, std::span(images, image_count), slots);
    op.texture = slots[0];
    op.flags = (effective == Blend::none ? kOpReplaces : 0) |
               (texture->straight_alpha ? kOpStraightAlpha : 0);
    if (ycbcr) {
      op.flags |= kOpYcbcr;
      op.chroma = uint32_t(slots[1]) | uint32_t(slots[2]) << 16;
      op.conversion = pass.composite.add_conversion(texture->conversion);
    }
    std::copy(q.uv_origin, q.uv_origin + 2, op.uv_origin);
    std::copy(q.uv_dx, q.uv_dx + 2, op.uv_dx);
    std::copy(q.uv_dy, q.uv_dy + 2, op.uv_dy);
    std::copy(q.color, q.color + 4, op.color);
    add_op(pass, dst, options->clip, op);
    pass.used.push_back(texture);
    return;
  }
  bind(pass, r.pipelines().get(pass.slot->format, ycbcr ? DrawKind::ycbcr : DrawKind::texture,
                               effective));
  if (pass.bound_view != texture->view || pass.bound_sampler != sampler) {
    VkWriteDescriptorSet writes[3]{};
    for (uint32_t i = 0; i < image_count; ++i) {
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      writes[i].pImageInfo = &images[i];
    }
    r.device().push_descriptor(pass.cb, VK_PIPELINE_BIND_POINT_GRAPHICS, r.pipelines().layout(), 0,
                               image_count, writes);
    pass.bound_view = texture->view;
    pass.bound_sampler = sampler;
  }
  const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  if (ycbcr) {
    const YcbcrQuadConstants yq{q, texture->conversion};
    vkCmdPushConstants(pass.cb, r.pipelines().layout(), stages, 0, sizeof(yq), &yq);
  } else {
    vkCmdPushConstants(pass.cb, r.pipelines().layout(), stages, 0, sizeof(q), &q);
  }
  draw_clipped(pass, dst, options->clip);
  pass.used.push_back(texture);
}

bool submit(wlr_render_pass* base) {
  Pass& pass = *get(base);
  Renderer& r = *pass.renderer;
  VkCommandBuffer cb = pass.cb;
  if (pass.compute) {
    if (Status dispatched = dispatch_composite(pass, true); !dispatched)
      LOG_ERROR("vulkan: the pass's compute composite could not be recorded: %s",
                dispatched.error().describe().c_str());
    pass.composite.clear();
  } else {
    vkCmdEndRendering(cb);
  }
  if (pass.slot->host_visible) {
    // The CPU reads slot pixels (data-ptr access) once the timeline point passed.
    VkMemoryBarrier2 host{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    host.srcStageMask = kTargetWriteStages;
    host.srcAccessMask = kTargetWriteAccess;
    host.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    host.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &host;
    vkCmdPipelineBarrier2(cb, &dep);
  }
  if (pass.slot->client_dmabuf) {
    // Back to the client's side once drawn.
    VkImageMemoryBarrier2 handback{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    handback.srcStageMask = kTargetWriteStages;
    handback.srcAccessMask = kTargetWriteAccess;
    handback.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
    handback.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    handback.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    handback.srcQueueFamilyIndex = r.device().queue_family();
    handback.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    handback.image = pass.slot->image;
    handback.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &handback;
    vkCmdPipelineBarrier2(cb, &dep);
  }
  if (pass.timer != nullptr)
    vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pass.timer->pool.get(), 1);
  std::vector<VkSemaphoreSubmitInfo> waits;
  for (VkSemaphore semaphore : pass.texture_waits) {
    waits.push_back({VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO});
    waits.back().semaphore = semaphore;
  }
  if (pass.release_wait != VK_NULL_HANDLE) {
    waits.push_back({VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO});
    waits.back().semaphore = pass.release_wait;
  }
  // Render-done is exported only for a consumer that asked for it; without
  // the semaphore it is signalled from the event loop.
  VkSemaphore done_signal = VK_NULL_HANDLE;
  if (pass.signal_timeline != nullptr || pass.slot->client_dmabuf) {
    auto semaphore = r.render_done().signal_semaphore();
    if (semaphore)
      done_signal = *semaphore;
    else
      LOG_ERROR("vulkan: %s", semaphore.error().describe().c_str());
  }
  auto submitted = r.submit(cb, waits, pass.timer, done_signal);
  if (!submitted) LOG_ERROR("vulkan: a pass: %s", submitted.error().describe().c_str());
  const uint64_t point = submitted ? *submitted : 0;
  r.fence_waited(pass.release_wait, point);
  for (VkSemaphore semaphore : pass.texture_waits) r.fence_waited(semaphore, point);
  pass.texture_waits.clear();
  if (pass.compute) r.compute().submitted(point);
  Slot& target = *pass.slot;
  bool handed_over = true;
  if (point != 0) {
    target.last_point = point;
    target.step(SlotEvent::submitted);
    for (Texture* t : pass.used) t->last_used = point;
    if (pass.timer != nullptr) pass.timer->point = point;
    // No CPU wait here: the output's wait point carries render-done (the
    // plane's IN_FENCE_FD), and consumers without one (a wl_shm parent, KMS
    // without timelines) are committed by the output once the GPU is done.
    UniqueFd fence;
    if (done_signal != VK_NULL_HANDLE) {
      auto exported = r.render_done().export_fence();
      if (exported)
        fence = std::move(*exported);
      else
        LOG_ERROR("vulkan: %s", exported.error().describe().c_str());
    }
    const bool target_fenced = fence && fence_dmabufs(r, pass, fence, point);
    if (target.client_dmabuf && !target_fenced) wait_for_copy(r, point);
    if (pass.signal_timeline != nullptr) {
      // Without an exported fence, render-done is signalled from the event loop.
      Status handed = RenderDone::hand_over(std::move(fence), point, pass.signal_timeline,
                                            pass.signal_point, r.completion());
      if (!handed) LOG_ERROR("vulkan: %s", handed.error().describe().c_str());
      handed_over = handed.ok();
    }
  } else {
    target.step(SlotEvent::submit_failed);
  }
  r.release_pass(&pass, point);
  return point != 0 && handed_over;
}

const wlr_render_pass_impl kPassImpl = {
    .submit = submit,
    .add_texture = add_texture,
    .add_rect = add_rect,
};

}  // namespace

Result<Pass*> Renderer::begin_pass(wlr_buffer* buffer, const wlr_buffer_pass_options* options) {
  const char* what = "vulkan: no render pass";
  if (device_->lost()) {
    check_lost();
    return failure(what, "the device is lost");
  }
  Slot* target = slot_of(buffer);
  if (target == nullptr) {
    // A capture client's dma-buf: copied into on the GPU.
    auto client = dmabuf_targets_.target_of(buffer);
    if (!client) return failure(what, client.error().describe());
    target = *client;
  }
  if (pipelines_.get(target->format, DrawKind::solid, Blend::none) == VK_NULL_HANDLE)
    return failure(what, "cannot render into format " + hex_format(target->drm_format));
  if (!next_state(target->state, SlotEvent::begin_pass))
    return failure(what, std::string("refusing to draw into a slot that is ") +
                             slot_state_name(target->state));
  collect();
  // The slot's last consumer may still read it: the GPU waits, not the CPU.
  // A client's dma-buf: its own readers and writers, from its implicit fences.
  if (target->client_dmabuf) {
    auto accesses = unfinished_accesses_fence(dmabuf_fd(buffer));
    if (!accesses)
      return failure(what, "the client dma-buf's implicit fences: " + accesses.error().describe());
    target->reuse_fence = std::move(*accesses);
  }
  VkSemaphore release_wait = VK_NULL_HANDLE;
  if (target->reuse_fence) {
    auto imported = import_fence(std::move(target->reuse_fence));
    if (!imported)
      return failure(what, "refusing to draw over a slot its consumer may still read: " +
                               imported.error().describe());
    release_wait = *imported;
  }
  auto begun = begin_commands();
  if (!begun) return failure(what, begun.error().describe());
  VkCommandBuffer cb = *begun;

  if (free_passes_.empty()) {
    passes_.push_back(std::make_unique<Pass>());
    free_passes_.push_back(passes_.back().get());
  }
  Pass* pass = free_passes_.back();
  free_passes_.pop_back();
  wlr_render_pass_init(&pass->base, &kPassImpl);
  pass->renderer = this;
  pass->cb = cb;
  pass->slot = target;
  pass->buffer = buffer;
  pass->bound_pipeline = VK_NULL_HANDLE;
  pass->bound_view = VK_NULL_HANDLE;
  pass->bound_sampler = VK_NULL_HANDLE;
  pass->timer = options != nullptr && options->timer != nullptr
                    ? reinterpret_cast<Timer*>(options->timer)
                    : nullptr;
  pass->release_wait = release_wait;
  pass->texture_waits.clear();
  pass->signal_timeline = options != nullptr ? options->signal_timeline : nullptr;
  pass->signal_point = options != nullptr ? options->signal_point : 0;
  pass->compute = compute_enabled_ && target->storage;
  ++(pass->compute ? pass_counts_.compute : pass_counts_.raster);
  pass->composite.clear();
  pass->batches = 0;
  target->step(SlotEvent::begin_pass);
  ++open_passes_;

  if (pass->timer != nullptr) {
    vkCmdResetQueryPool(cb, pass->timer->pool.get(), 0, 2);
    vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_NONE, pass->timer->pool.get(), 0);
    pass->timer->uploads_stamped = false;
  }

  // Earlier passes, copies and samplers of this slot finish before we draw.
  VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
  barrier.srcStageMask = kTargetWriteStages | VK_PIPELINE_STAGE_2_COPY_BIT | kSampleStages;
  barrier.srcAccessMask = kTargetWriteAccess;
  if (pass->compute) {
    barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    barrier.dstAccessMask =
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  } else {
    barrier.dstStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    barrier.dstAccessMask =
        VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
  }
  barrier.oldLayout = target->layout;
  barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  if (target->client_dmabuf) {
    // Taken over from the client's side, its pixels kept (a region copy).
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    barrier.dstQueueFamilyIndex = device_->queue_family();
  }
  barrier.image = target->image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.imageMemoryBarrierCount = 1;
  dep.pImageMemoryBarriers = &barrier;
  vkCmdPipelineBarrier2(cb, &dep);
  target->layout = VK_IMAGE_LAYOUT_GENERAL;
  if (pass->compute) return pass;  // dispatched at submit

  VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  color.imageView = target->view;
  color.imageLayout = VK_IMAGE_LAYOUT_GENERAL;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;  // damage-only redraws keep the rest
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
  rendering.renderArea = {{0, 0}, {target->width, target->height}};
  rendering.layerCount = 1;
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachments = &color;
  vkCmdBeginRendering(cb, &rendering);
  VkViewport viewport{0, 0, float(target->width), float(target->height), 0, 1};
  vkCmdSetViewport(cb, 0, 1, &viewport);
  return pass;
}

}  // namespace baton::vulkan
