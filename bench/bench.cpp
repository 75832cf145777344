// Compositing benchmark: baton's Vulkan renderer and wlroots' pixman renderer
// composite 1, 8 and 32 shm windows at 1080p and 4K, the same frames through
// the same wlr_render_pass calls, and print CPU and GPU time per frame. The
// Vulkan renderer runs on both of its compositing paths (raster, compute).
//
// Two kinds of frame per configuration:
//   full      half the windows move (and redraw a 64x64 patch of their
//             content, uploaded as damage); the whole output is recomposited.
//   damage64  one window redraws a 64x64 patch; only that rectangle of the
//             output is recomposited (what wlr_scene does for such damage).
// Then, per Vulkan path, the floor a damage frame cannot go below: an empty
// pass ("empty") and one 64x64 rectangle ("rect64") on a 4K slot; and the
// video case, a player's NV12 frames (and XRGB8888 beside them) covering the
// output ("video-nv12", "video-xr24": udmabuf dma-bufs, so in the qemu guest;
// elsewhere "video-nv12-mem", "video-xr24-mem": plain memory, uploaded once).
// CPU time is the compositor thread's CPU time from the first texture update
// to the return of wlr_render_pass_submit (the clients' drawing is not in it); GPU time comes from
// timestamp queries (wlr_render_timer, which covers the frame's texture uploads
// too), read three frames later so nothing waits.
// wlroots' own GLES2 and Vulkan renderers run the same frames where they can
// start on the DRM node given with --drm-device (bench/wlr_renderers.hpp).
#include <drm_fourcc.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "bench/video_frames.hpp"
#include "bench/wlr_renderers.hpp"
#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/wlr.hpp"

namespace {

struct ShmBuffer {
  wlr_buffer base;
  std::vector<uint32_t> pixels;
  int width = 0;
};

ShmBuffer* shm(wlr_buffer* b) { return reinterpret_cast<ShmBuffer*>(b); }

const wlr_buffer_impl kShmImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          delete shm(b);
        },
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access =
        [](wlr_buffer* b, uint32_t, void** data, uint32_t* format, size_t* stride) {
          *data = shm(b)->pixels.data();
          *format = DRM_FORMAT_ARGB8888;
          *stride = size_t(shm(b)->width) * 4;
          return true;
        },
    .end_data_ptr_access = [](wlr_buffer*) {},
};

ShmBuffer* make_window(int w, int h, int seed) {
  auto* b = new ShmBuffer();  // freed by kShmImpl.destroy
  b->width = w;
  b->pixels.resize(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint32_t a = (x < 8 || y < 8) ? 0x80 : 0xff;  // translucent border: blending matters
      uint32_t r = (x + seed * 40) & 0xff, g = (y + seed * 20) & 0xff, bl = (x ^ y) & 0xff;
      b->pixels[size_t(y) * w + x] =
          a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | (bl * a / 255);
    }
  wlr_buffer_init(&b->base, &kShmImpl, w, h);
  return b;
}

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

struct Stats {
  double median = 0, p99 = 0;
};

Stats stats(std::vector<double> v) {
  if (v.empty()) return {-1, -1};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, size_t(double(v.size()) * 0.99))]};
}

struct Target {
  wlr_renderer* renderer = nullptr;
  wlr_allocator* allocator = nullptr;
  bool vulkan = false;  // baton's Vulkan renderer
  const char* name = "";
  bool timed = false;    // GPU time through wlr_render_timer
  bool wlroots = false;  // wlroots' GLES2 or Vulkan renderer
};

struct Window {
  ShmBuffer* buffer;
  wlr_texture* texture;
  wlr_box box;
  bool animating;
};

struct Result {
  Stats cpu, gpu;
  // Where the CPU time goes: texture updates, recording the draws, submitting.
  Stats updates, draws, submit;
};

// One configuration, one kind of frame.
Result run(Target& t, int width, int height, int count, bool damage_only, int frames) {
  wlr_drm_format_set set{};
  wlr_drm_format_set_add(&set, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID);
  const wlr_drm_format* format = wlr_drm_format_set_get(&set, DRM_FORMAT_XRGB8888);
  constexpr int kSlots = 3;
  wlr_buffer* slots[kSlots] = {};
  for (auto& s : slots) s = wlr_allocator_create_buffer(t.allocator, width, height, format);
  wlr_drm_format_set_finish(&set);
  wlr_render_timer* timers[kSlots] = {};
  bool timer_used[kSlots] = {};
  if (t.timed)
    for (auto& tm : timers) tm = wlr_render_timer_create(t.renderer);

  std::vector<Window> windows;
  const int ww = width / 3, wh = height / 3;
  for (int i = 0; i < count; ++i) {
    ShmBuffer* b = make_window(ww, wh, i);
    wlr_box box = {(i * 97) % (width - ww), (i * 61) % (height - wh), ww, wh};
    windows.push_back({b, wlr_texture_from_buffer(t.renderer, &b->base), box, i % 2 == 0});
  }

  std::vector<double> cpu, gpu, updates, draws, submits;
  pixman_region32_t damage, patch;
  pixman_region32_init(&damage);
  pixman_region32_init(&patch);
  const float background[4] = {0.16f, 0.18f, 0.22f, 1.0f};
  for (int frame = 0; frame < frames + kSlots; ++frame) {
    const int slot = frame % kSlots;
    if (timer_used[slot]) {
      // Three frames old: finished, or the wait is the GPU being the bottleneck.
      int ns = wlr_render_timer_get_duration_ns(timers[slot]);
      if (frame >= 2 * kSlots && ns >= 0) gpu.push_back(ns);
    }
    if (frame >= frames) continue;
    // Clients redraw a 64x64 patch (their work, not the compositor's: untimed),
    // then the compositor takes it as a texture update with only that damage.
    const int px = 64 + (frame * 13) % (ww - 128), py = 64 + (frame * 7) % (wh - 128);
    pixman_region32_fini(&patch);
    pixman_region32_init_rect(&patch, px, py, 64, 64);
    auto redraws = [&](size_t i) { return damage_only ? i == 0 : windows[i].animating; };
    for (size_t i = 0; i < windows.size(); ++i) {
      if (!redraws(i)) continue;
      for (int y = py; y < py + 64; ++y)
        std::fill_n(&windows[i].buffer->pixels[size_t(y) * ww + px], 64,
                    0xff000000u | (frame * 2654435761u));
    }
    const double start = thread_cpu_ns();
    for (size_t i = 0; i < windows.size(); ++i) {
      Window& w = windows[i];
      if (!redraws(i)) continue;
      if (!wlr_texture_update_from_buffer(w.texture, &w.buffer->base, &patch) && t.vulkan)
        std::fprintf(stderr, "texture update failed\n");
      if (!damage_only) w.box.x = (w.box.x + 5) % (width - ww);  // moving window
    }
    pixman_region32_fini(&damage);
    if (damage_only) {
      pixman_region32_init_rect(&damage, windows[0].box.x + px, windows[0].box.y + py, 64, 64);
    } else {
      pixman_region32_init_rect(&damage, 0, 0, width, height);
    }
    const pixman_box32_t* extents = pixman_region32_extents(&damage);

    wlr_buffer_pass_options options{};
    options.timer = timers[slot];
    const double updated = thread_cpu_ns();
    wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(t.renderer, slots[slot], &options);
    wlr_render_rect_options bg{};
    bg.box = {0, 0, width, height};
    bg.color = {background[0], background[1], background[2], background[3]};
    bg.clip = &damage;
    wlr_render_pass_add_rect(pass, &bg);
    for (Window& w : windows) {
      // Like wlr_scene: elements outside the damage are not drawn at all.
      if (w.box.x >= extents->x2 || w.box.y >= extents->y2 ||
          w.box.x + w.box.width <= extents->x1 || w.box.y + w.box.height <= extents->y1)
        continue;
      wlr_render_texture_options tex{};
      tex.texture = w.texture;
      tex.dst_box = w.box;
      tex.clip = &damage;
      tex.filter_mode = WLR_SCALE_FILTER_BILINEAR;
      wlr_render_pass_add_texture(pass, &tex);
    }
    const double recorded = thread_cpu_ns();
    wlr_render_pass_submit(pass);
    timer_used[slot] = timers[slot] != nullptr;
    const double end = thread_cpu_ns();
    cpu.push_back(end - start);
    updates.push_back(updated - start);
    draws.push_back(recorded - updated);
    submits.push_back(end - recorded);
  }
  // Warm-up frames (allocation of the staging ring, command buffers) are not counted.
  cpu.erase(cpu.begin(), cpu.begin() + std::min<ptrdiff_t>(std::ssize(cpu), kSlots));
  baton::vulkan::renderer_finish(t.renderer);
  pixman_region32_fini(&damage);
  pixman_region32_fini(&patch);
  for (Window& w : windows) {
    wlr_texture_destroy(w.texture);
    wlr_buffer_drop(&w.buffer->base);
  }
  for (auto* tm : timers)
    if (tm != nullptr) wlr_render_timer_destroy(tm);
  for (auto* s : slots) wlr_buffer_drop(s);
  for (auto* v : {&updates, &draws, &submits})
    v->erase(v->begin(), v->begin() + std::min<ptrdiff_t>(std::ssize(*v), kSlots));
  return {stats(cpu), stats(gpu), stats(updates), stats(draws), stats(submits)};
}

// Times `frames` passes on an XRGB8888 slot of `width` x `height` (three in
// turn), each drawing what `draw` adds for its frame number: CPU time from
// the pass's begin to its submit, GPU time from each slot's timer, read when
// the slot comes round again so nothing waits. The first round's CPU times
// (first uses) are dropped.
template <typename Draw>
Result timed_passes(Target& t, int width, int height, int frames, const Draw& draw) {
  wlr_drm_format_set set{};
  wlr_drm_format_set_add(&set, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID);
  const wlr_drm_format* format = wlr_drm_format_set_get(&set, DRM_FORMAT_XRGB8888);
  constexpr int kSlots = 3;
  wlr_buffer* slots[kSlots] = {};
  wlr_render_timer* timers[kSlots] = {};
  for (int i = 0; i < kSlots; ++i) {
    slots[i] = wlr_allocator_create_buffer(t.allocator, width, height, format);
    timers[i] = wlr_render_timer_create(t.renderer);
  }
  wlr_drm_format_set_finish(&set);
  std::vector<double> cpu, gpu;
  for (int frame = 0; frame < frames + kSlots; ++frame) {
    const int slot = frame % kSlots;
    if (frame >= 2 * kSlots) {
      int ns = wlr_render_timer_get_duration_ns(timers[slot]);
      if (ns >= 0) gpu.push_back(ns);
    }
    if (frame >= frames) continue;
    const double start = thread_cpu_ns();
    wlr_buffer_pass_options options{};
    options.timer = timers[slot];
    wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(t.renderer, slots[slot], &options);
    draw(pass, frame);
    wlr_render_pass_submit(pass);
    cpu.push_back(thread_cpu_ns() - start);
  }
  baton::vulkan::renderer_finish(t.renderer);
  for (int i = 0; i < kSlots; ++i) {
    wlr_render_timer_destroy(timers[i]);
    wlr_buffer_drop(slots[i]);
  }
  cpu.erase(cpu.begin(), cpu.begin() + std::min<ptrdiff_t>(std::ssize(cpu), kSlots));
  return {stats(cpu), stats(gpu), {}, {}, {}};
}

// The fixed cost every pass pays on the GPU, whatever it draws: an empty pass
// and one 64x64 rectangle, timed like the frames above. A damage frame
// cannot cost less than this floor.
Result floor_cost(Target& t, int width, int height, bool with_rect, int frames) {
  return timed_passes(t, width, height, frames, [&](wlr_render_pass* pass, int frame) {
    if (!with_rect) return;
    wlr_render_rect_options rect{};
    rect.box = {(frame * 13) % (width - 64), (frame * 7) % (height - 64), 64, 64};
    rect.color = {0.5f, 0.25f, 0.125f, 1.0f};
    wlr_render_pass_add_rect(pass, &rect);
  });
}

// The video case: a player's frame covering the whole output, a new one of
// its pool of 4 buffers every frame (made into a texture once each, as the
// compositor keeps a client buffer's texture), composited per frame; in
// NV12, and beside it the same in XRGB8888. Dma-bufs are sampled where they
// lie; plain memory is uploaded once, when its texture is made. An error says
// why it could not run (no /dev/udmabuf outside the qemu guest; a renderer
// that cannot import the buffers).
baton::Result<Result> run_video(Target& t, int width, int height, uint32_t format, int frames,
                                baton::bench::VideoMemory memory) {
  auto pool = baton::bench::make_video_frames(format, width, height, 4, memory);
  if (!pool) return pool.error();
  std::vector<wlr_texture*> textures;
  for (wlr_buffer* b : *pool) textures.push_back(wlr_texture_from_buffer(t.renderer, b));
  const bool made = std::ranges::none_of(textures, [](wlr_texture* x) { return x == nullptr; });
  Result r{};
  if (made)
    r = timed_passes(t, width, height, frames, [&](wlr_render_pass* pass, int frame) {
      wlr_render_texture_options tex{};
      tex.texture = textures[size_t(frame) % textures.size()];
      tex.dst_box = {0, 0, width, height};
      tex.filter_mode = WLR_SCALE_FILTER_BILINEAR;
      wlr_render_pass_add_texture(pass, &tex);
    });
  for (wlr_texture* x : textures)
    if (x != nullptr) wlr_texture_destroy(x);
  for (wlr_buffer* b : *pool) wlr_buffer_drop(b);
  if (!made) return baton::failure("video", "the renderer made no texture of the frames");
  return r;
}

}  // namespace

// Seen beside wlr_renderers.cpp (tools/lint/tidy_units.py), the check finds
// Result::value()'s std::get, reached there only after the error was handled.
// NOLINTNEXTLINE(bugprone-exception-escape): see above
int main(int argc, char** argv) {
  int frames = 300;
  std::string which = "both";
  std::string compositing = "both";
  std::string device;
  std::string drm_device;  // for wlroots' renderers
  int only_windows = 0;    // 0: 1, 8 and 32
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {3840, 2160}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--frames" && i + 1 < argc)
      frames = std::max(10, std::atoi(argv[++i]));
    else if (a == "--renderer" && i + 1 < argc)
      which = argv[++i];
    else if (a == "--vulkan-device" && i + 1 < argc)
      device = argv[++i];
    else if (a == "--drm-device" && i + 1 < argc)
      drm_device = argv[++i];
    else if (a == "--compositing" && i + 1 < argc)
      compositing = argv[++i];
    else if (a == "--windows" && i + 1 < argc)
      only_windows = std::max(1, std::atoi(argv[++i]));
    // Windows are a third of the output and redraw a 64x64 patch at least 64
    // pixels from each edge: a third of 400 leaves room for it to move.
    else if (int w = 0, h = 0; a == "--size" && i + 1 < argc &&
                               std::sscanf(argv[++i], "%dx%d", &w, &h) == 2 && w >= 400 && h >= 400)
      sizes = {{w, h}};  // one output size instead of 1080p and 4K
    else {
      std::fprintf(stderr,
                   "usage: %s [--frames N] [--renderer LIST] [--vulkan-device NAME|INDEX]\n"
                   "          [--compositing raster|compute|both] [--windows N]\n"
                   "          [--size WxH, at least 400x400] [--drm-device PATH]\n"
                   "  LIST: comma-separated vulkan, pixman, both (vulkan,pixman; the default),\n"
                   "        wlr-gles2, wlr-vulkan (wlroots' renderers on --drm-device)\n",
                   argv[0]);
      return 2;
    }
  }
  // Which renderers: a comma-separated list; "both" is baton's Vulkan and pixman.
  auto wants = [&](const std::string& name) {
    const std::string list = "," + which + ",";
    return list.find("," + name + ",") != std::string::npos ||
           ((name == "vulkan" || name == "pixman") && list.find(",both,") != std::string::npos);
  };
  wlr_log_init(WLR_ERROR, nullptr);
  wl_event_loop* loop = wl_event_loop_create();
  wlr_backend* headless = wlr_headless_backend_create(loop);

  std::vector<Target> targets;
  if (wants("vulkan")) {
    // One renderer per compositing path, run one after the other in this process.
    std::vector<std::pair<baton::vulkan::Compositing, const char*>> paths;
    if (compositing == "both" || compositing == "raster")
      paths.emplace_back(baton::vulkan::Compositing::raster, "vk-rast");
    if (compositing == "both" || compositing == "compute")
      paths.emplace_back(baton::vulkan::Compositing::compute, "vk-comp");
    for (auto [path, name] : paths) {
      baton::vulkan::RendererOptions options;
      if (!device.empty()) options.device.name_or_index = device;
      options.compositing = path;
      options.pipeline_cache_path = baton::vulkan::default_pipeline_cache_path();
      auto created = baton::vulkan::create_renderer(options);
      if (!created) {
        std::fprintf(stderr, "vulkan (%s): %s\n", name, created.error().describe().c_str());
        return 1;
      }
      // Device-local slots: what a GPU renders into when it scans out or exports.
      auto alloc = baton::vulkan::create_swapchain_allocator(*created, {8, false});
      if (!alloc) {
        std::fprintf(stderr, "vulkan (%s): %s\n", name, alloc.error().describe().c_str());
        return 1;
      }
      targets.push_back({*created, *alloc, true, name, true});
      std::printf("# %s: vulkan device %s\n", name,
                  baton::vulkan::renderer_device_name(*created).c_str());
    }
  }
  if (wants("pixman")) {
    wlr_renderer* pixman = wlr_pixman_renderer_create();
    targets.push_back({pixman, wlr_allocator_autocreate(headless, pixman), false, "pixman"});
  }
  // wlroots' renderers: one that cannot start says why and the others run.
  for (auto [option, name, label, api] :
       {std::tuple{"wlr-gles2", "wlr-gl", "GLES2", baton::bench::WlrApi::gles2},
        std::tuple{"wlr-vulkan", "wlr-vk", "Vulkan", baton::bench::WlrApi::vulkan}}) {
    if (!wants(option)) continue;
    auto created = baton::bench::create_wlr_renderer(api, drm_device, WLR_ERROR);
    if (!created) {
      std::printf("# %s: not started: %s\n", name, created.error().describe().c_str());
      continue;
    }
    targets.push_back(
        {created->renderer, created->allocator, false, name, created->has_timer, true});
    std::printf("# %s: wlroots' %s renderer on %s; GPU time %s\n", name, label, drm_device.c_str(),
                created->has_timer ? "from wlr_render_timer" : "not available");
  }
  std::fflush(stdout);

  std::printf("# %d frames per row; times per frame in microseconds\n", frames);
  std::printf("%-7s %-10s %4s %-9s %10s %10s %10s %10s\n", "render", "output", "win", "frame",
              "cpu_med", "cpu_p99", "gpu_med", "gpu_p99");
  for (Target& t : targets) {
    for (auto [width, height] : sizes) {
      const int size[2] = {width, height};
      std::vector<int> counts = {1, 8, 32};
      if (only_windows > 0) counts = {only_windows};
      for (int count : counts) {
        // pixman at 4K is slow: fewer frames keep the run short.
        int n = (!t.vulkan && !t.wlroots && size[0] > 2000) ? std::max(30, frames / 5) : frames;
        Result full = run(t, size[0], size[1], count, false, n);
        Result dmg = run(t, size[0], size[1], count, true, n);
        char output[16];
        std::snprintf(output, sizeof(output), "%dx%d", size[0], size[1]);
        for (auto [name, r] : {std::pair{"full", full}, std::pair{"damage64", dmg}}) {
          char gpu_med[16] = "-", gpu_p99[16] = "-";
          if (r.gpu.median >= 0) {
            std::snprintf(gpu_med, sizeof(gpu_med), "%.1f", r.gpu.median / 1e3);
            std::snprintf(gpu_p99, sizeof(gpu_p99), "%.1f", r.gpu.p99 / 1e3);
          }
          std::printf("%-7s %-10s %4d %-9s %10.1f %10.1f %10s %10s\n", t.name, output, count, name,
                      r.cpu.median / 1e3, r.cpu.p99 / 1e3, gpu_med, gpu_p99);
        }
        std::printf("%-7s %-10s %4d %-9s cpu %.3f", t.name, output, count, "ratio",
                    dmg.cpu.median / full.cpu.median);
        if (dmg.gpu.median >= 0 && full.gpu.median > 0)
          std::printf("  gpu %.3f", dmg.gpu.median / full.gpu.median);
        std::printf("  full cpu split: updates %.1f draws %.1f submit %.1f",
                    full.updates.median / 1e3, full.draws.median / 1e3, full.submit.median / 1e3);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  for (Target& t : targets) {
    if (!t.vulkan) continue;
    for (bool with_rect : {false, true}) {
      // On the largest size (4K unless --size says otherwise).
      auto [width, height] = sizes.back();
      Result r = floor_cost(t, width, height, with_rect, frames);
      char output[16];
      std::snprintf(output, sizeof(output), "%dx%d", width, height);
      std::printf("%-7s %-10s %4d %-9s %10.1f %10.1f %10.1f %10.1f\n", t.name, output, 0,
                  with_rect ? "rect64" : "empty", r.cpu.median / 1e3, r.cpu.p99 / 1e3,
                  r.gpu.median / 1e3, r.gpu.p99 / 1e3);
    }
  }
  // The video case, on the largest size, for baton's renderer (the only
  // one here that takes dma-bufs from this process): dma-bufs where
  // /dev/udmabuf exists, else the same frames from plain memory ("-mem").
  using baton::bench::VideoMemory;
  for (Target& t : targets) {
    if (!t.vulkan) continue;
    auto [width, height] = sizes.back();
    char output[16];
    std::snprintf(output, sizeof(output), "%dx%d", width, height);
    for (auto [format, name] :
         {std::pair{DRM_FORMAT_NV12, "video-nv12"}, std::pair{DRM_FORMAT_XRGB8888, "video-xr24"}}) {
      auto r = run_video(t, width, height, format, frames, VideoMemory::dmabuf);
      std::string row = name;
      if (!r) {
        std::printf("# %s %s %s: no dma-bufs (%s): frames in plain memory instead\n", t.name,
                    output, name, r.error().describe().c_str());
        r = run_video(t, width, height, format, frames, VideoMemory::plain);
        row += "-mem";
      }
      if (!r) {
        std::printf("# %s %s %s: not run: %s\n", t.name, output, row.c_str(),
                    r.error().describe().c_str());
        continue;
      }
      std::printf("%-7s %-10s %4d %-9s %10.1f %10.1f %10.1f %10.1f\n", t.name, output, 1,
                  row.c_str(), r->cpu.median / 1e3, r->cpu.p99 / 1e3, r->gpu.median / 1e3,
                  r->gpu.p99 / 1e3);
    }
  }
  for (Target& t : targets) {
    wlr_allocator_destroy(t.allocator);
    wlr_renderer_destroy(t.renderer);
  }
  wlr_backend_destroy(headless);
  wl_event_loop_destroy(loop);
  return 0;
}
