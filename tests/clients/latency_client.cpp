// Measures commit-to-present latency as a client sees it, for the frame
// timing benchmark (bench/frame_timing.sh). Maps a small xdg toplevel drawn
// from wl_shm buffers (4, each reused only after wl_buffer.release) and
// redraws it with wp_presentation feedback on every commit.
//
//   baton-latency-client [--delay D | --target-offset F | --past-target | --after-present]
//                        [--frames N] [--warmup W] [--size WxH] [--timeout-ms T]
//
// --delay D (ms, fractional; default 0): on each frame callback wait D ms
//   (a timerfd polled with the display fd), then draw, attach, damage, ask
//   for the next frame callback and presentation feedback, and commit. The
//   commit time (in wp_presentation's clock: CLOCK_MONOTONIC on DRM, named
//   by clock= in the summary) is taken just before wl_surface.commit. Per frame: commit->present,
//   and k: 1 when it was shown at the first vblank after the commit, 2 at the one after, ... (k >=
//   2 is a miss). The vblanks are the grid of the latest earlier frame's presentation time plus
//   multiples of the refresh, so a commit made just before a vblank that is shown one refresh later
//   counts as a miss; k rounds to the nearest grid line (timestamp jitter). Only the first frame,
//   with no earlier presentation, uses ceil(latency / refresh - 5%).
// --target-offset F (fraction of a refresh): wp_commit_timing_v1. After each
//   presentation P, the next commit carries the target P + k*R + F*R, with
//   the smallest k that puts it at least one refresh R ahead of now. The frame
//   must be presented at the first vblank not before the target:
//   target <= presented (else "early") and presented < target + R (else
//   "late"); both with a tolerance of --tolerance-us (default 50 us) for the
//   timestamps' rounding.
// --past-target: the same with a target one refresh before the last
//   presentation (in the past): each frame must be shown at the first vblank
//   after its commit (k = 1; else "late"). Early cannot happen.
// --after-present: each frame committed as soon as the previous one was
//   presented, with no target: the peer of the target modes (the same
//   commits, judged as --past-target's, without wp_commit_timing_v1).
// Without wp_commit_timing_manager_v1 the target modes print a SKIP line and
// exit 2.
// --fullscreen: the toplevel asks to be fullscreen and draws at the size the
//   compositor configures (the output's), so it is the fullscreen surface.
// --alloc vgem|udmabuf: the buffers are dma-bufs (linux-dmabuf, linear
//   XRGB8888, written through their mapping with no fence: implicit sync)
//   instead of wl_shm, so a fullscreen surface can be scanned out directly.
// --fifo: each commit carries wp_fifo_v1's set_barrier and wait_barrier, as
//   a FIFO swapchain's presents do (fails without the global); with --delay
//   0 the client then runs as fast as the compositor's fifo latches allow.
// --presentation-version 1|2 (default 2): the wp_presentation version bound
//   (they differ in the refresh reported under variable refresh: 0 in
//   version 1, the fastest the output allows in version 2).
// --grid-ms G: on_grid_pct below counts against a refresh of G ms instead of
//   the one reported.
// --fps N: as a game rendering at N frames per second: frame i is committed
//   at the first commit's time + i/N s, or at its frame callback (+ D) when
//   that comes later (a frame is never committed before the previous one's
//   frame callback).
// --tearing: wp_tearing_control_v1's async hint on the surface (fails
//   without the global). The summary counts the presented frames whose
//   feedback had the vsync flag (vsync=N): a torn frame has none.
//
// Output: "latency-client: warm-up done" as the first measured frame is
// committed (warm-up > 0), then one line (fields are name=value,
// machine-readable):
//   latency-client: mode=delay delay=6.0 frames=120 median_ms=11.2 p90_ms=12.0
//     max_ms=.. missed=3 missed_pct=2.5 k1=.. k2=.. k3plus=.. refresh_ms=16.667 discarded=0
//   latency-client: mode=target target_offset=0.50 frames=.. median_ms=.. p90_ms=..
//     (commit->present) target_median_ms=.. (present - target) early=0 late=N
//     on_time_pct=.. refresh_ms=.. discarded=0
//   (mode=past-target and mode=after-present print target_offset=-1.00)
//   every line ends with vsync=N (measured frames presented with the vsync
//   flag), interval_median_ms=.. and interval_p10_ms=.. (between consecutive
//   presentations) and cycle_max=.. (the most measured frames presented in
//   one refresh cycle of the grid of the first frame presented with vsync,
//   warm-up included; 0 when none was), on_grid_pct=.. (intervals within
//   1.5 ms of a whole number of refreshes: 100 on a fixed-rate output)
// Exit 0 when the measurement worked (nothing is asserted about speed or
// timing), 1 on protocol failures (discarded feedback, feedback that never
// came, a missing global, a presentation clock that cannot be read),
// 2 on bad arguments or (target modes) no commit-timing global.
#include <poll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-client.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commit-timing-v1-client-protocol.h"
#include "fifo-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "tearing-control-v1-client-protocol.h"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/producer_buffer.hpp"
#include "xdg-shell-client-protocol.h"

namespace {

constexpr int kBuffers = 4;
constexpr double kMissTolerance = 0.05;  // of a refresh, when rounding k up

// wp_presentation's clock (CLOCK_MONOTONIC on DRM; Weston's headless
// backend says CLOCK_MONOTONIC_RAW): commit times and targets are taken in
// it, so they compare with presentation times. The delay timer runs on
// CLOCK_MONOTONIC.
clockid_t g_presentation_clock = CLOCK_MONOTONIC;

int64_t read_clock(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}
int64_t now_ns() { return read_clock(g_presentation_clock); }
int64_t mono_ns() { return read_clock(CLOCK_MONOTONIC); }

enum class Mode { kDelay, kTarget, kPastTarget, kAfterPresent };

struct Frame {
  int64_t commit_ns = 0;
  int64_t target_ns = 0;  // target modes
  int64_t present_ns = 0;
  uint32_t refresh_ns = 0;
  bool done = false;
  bool discarded = false;
  bool vsync = false;  // presented with WP_PRESENTATION_FEEDBACK_KIND_VSYNC
};

struct Buffer {
  wl_buffer* buffer = nullptr;
  uint32_t* pixels = nullptr;  // wl_shm; null for a dma-buf
  std::optional<baton::testing::ProducerBuffer> dmabuf;
  bool busy = false;
};

struct FeedbackRef;

struct Client {
  size_t first_measured = 0;  // the first frame past the warm-up
  uint32_t presentation_version = 2;
  wl_display* display = nullptr;
  wl_registry* registry = nullptr;
  wl_compositor* compositor = nullptr;
  wl_shm* shm = nullptr;
  xdg_wm_base* wm_base = nullptr;
  wp_presentation* presentation = nullptr;
  wp_commit_timing_manager_v1* timing_manager = nullptr;
  wp_commit_timer_v1* timer = nullptr;
  wp_tearing_control_manager_v1* tearing_manager = nullptr;
  zwp_linux_dmabuf_v1* linux_dmabuf = nullptr;
  wp_fifo_manager_v1* fifo_manager = nullptr;
  wp_fifo_v1* fifo = nullptr;
  wp_tearing_control_v1* tearing = nullptr;
  wl_surface* surface = nullptr;
  xdg_surface* xsurface = nullptr;
  xdg_toplevel* toplevel = nullptr;
  Buffer buffers[kBuffers];
  void* map = nullptr;
  size_t map_size = 0;
  int width = 256, height = 256;
  int configured_width = 0, configured_height = 0;  // the toplevel's last configure
  bool configured = false;
  bool closed = false;
  bool clock_seen = false;
  uint32_t clock_id = 0;

  std::vector<Frame> frames;
  std::vector<FeedbackRef*> refs;
  bool frame_done = true;     // a frame callback came (or none is pending)
  int64_t frame_done_ns = 0;  // CLOCK_MONOTONIC

  ~Client() {
    for (Buffer& b : buffers)
      if (b.buffer != nullptr) wl_buffer_destroy(b.buffer);
    if (map != nullptr) munmap(map, map_size);
    if (timer != nullptr) wp_commit_timer_v1_destroy(timer);
    if (tearing != nullptr) wp_tearing_control_v1_destroy(tearing);
    if (tearing_manager != nullptr) wp_tearing_control_manager_v1_destroy(tearing_manager);
    if (linux_dmabuf != nullptr) zwp_linux_dmabuf_v1_destroy(linux_dmabuf);
    if (fifo != nullptr) wp_fifo_v1_destroy(fifo);
    if (fifo_manager != nullptr) wp_fifo_manager_v1_destroy(fifo_manager);
    if (toplevel != nullptr) xdg_toplevel_destroy(toplevel);
    if (xsurface != nullptr) xdg_surface_destroy(xsurface);
    if (surface != nullptr) wl_surface_destroy(surface);
    if (timing_manager != nullptr) wp_commit_timing_manager_v1_destroy(timing_manager);
    if (presentation != nullptr) wp_presentation_destroy(presentation);
    if (wm_base != nullptr) xdg_wm_base_destroy(wm_base);
    if (shm != nullptr) wl_shm_destroy(shm);
    if (compositor != nullptr) wl_compositor_destroy(compositor);
    if (registry != nullptr) wl_registry_destroy(registry);
    if (display != nullptr) wl_display_disconnect(display);
  }
};

struct FeedbackRef {
  Client* client;
  size_t index;
  struct wp_presentation_feedback* proxy;
};

const wl_registry_listener kRegistryListener = {
    .global =
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t version) {
          auto* c = static_cast<Client*>(data);
          if (std::strcmp(iface, wl_compositor_interface.name) == 0 && version >= 4)
            c->compositor =
                static_cast<wl_compositor*>(wl_registry_bind(r, name, &wl_compositor_interface, 4));
          else if (std::strcmp(iface, wl_shm_interface.name) == 0)
            c->shm = static_cast<wl_shm*>(wl_registry_bind(r, name, &wl_shm_interface, 1));
          else if (std::strcmp(iface, xdg_wm_base_interface.name) == 0)
            c->wm_base =
                static_cast<xdg_wm_base*>(wl_registry_bind(r, name, &xdg_wm_base_interface, 1));
          else if (std::strcmp(iface, wp_presentation_interface.name) == 0)
            c->presentation = static_cast<wp_presentation*>(wl_registry_bind(
                r, name, &wp_presentation_interface, std::min(version, c->presentation_version)));
          else if (std::strcmp(iface, wp_commit_timing_manager_v1_interface.name) == 0)
            c->timing_manager = static_cast<wp_commit_timing_manager_v1*>(
                wl_registry_bind(r, name, &wp_commit_timing_manager_v1_interface, 1));
          else if (std::strcmp(iface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3)
            c->linux_dmabuf = static_cast<zwp_linux_dmabuf_v1*>(
                wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, 3));
          else if (std::strcmp(iface, wp_fifo_manager_v1_interface.name) == 0)
            c->fifo_manager = static_cast<wp_fifo_manager_v1*>(
                wl_registry_bind(r, name, &wp_fifo_manager_v1_interface, 1));
          else if (std::strcmp(iface, wp_tearing_control_manager_v1_interface.name) == 0)
            c->tearing_manager = static_cast<wp_tearing_control_manager_v1*>(
                wl_registry_bind(r, name, &wp_tearing_control_manager_v1_interface, 1));
        },
    .global_remove = [](void*, wl_registry*, uint32_t) {},
};

const wp_presentation_listener kPresentationListener = {
    .clock_id =
        [](void* data, wp_presentation*, uint32_t clk) {
          auto* c = static_cast<Client*>(data);
          c->clock_id = clk;
          c->clock_seen = true;
        },
};

const xdg_wm_base_listener kWmBaseListener = {
    .ping = [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); },
};

const xdg_surface_listener kXdgSurfaceListener = {
    .configure =
        [](void* data, xdg_surface* s, uint32_t serial) {
          xdg_surface_ack_configure(s, serial);
          static_cast<Client*>(data)->configured = true;
        },
};

// The toplevel keeps its own size whatever the compositor suggests (sway's
// tiling suggests the whole output; the benchmark wants a small window).
const xdg_toplevel_listener kToplevelListener = {
    .configure =
        [](void* data, xdg_toplevel*, int32_t width, int32_t height, wl_array*) {
          auto* c = static_cast<Client*>(data);
          c->configured_width = width;
          c->configured_height = height;
        },
    .close = [](void* data, xdg_toplevel*) { static_cast<Client*>(data)->closed = true; },
    .configure_bounds = [](void*, xdg_toplevel*, int32_t, int32_t) {},
    .wm_capabilities = [](void*, xdg_toplevel*, wl_array*) {},
};

const wl_buffer_listener kBufferListener = {
    .release = [](void* data, wl_buffer*) { static_cast<Buffer*>(data)->busy = false; },
};

const wl_callback_listener kFrameListener = {
    .done =
        [](void* data, wl_callback* cb, uint32_t) {
          auto* c = static_cast<Client*>(data);
          c->frame_done = true;
          c->frame_done_ns = mono_ns();
          wl_callback_destroy(cb);
        },
};

void finish_feedback(FeedbackRef* ref) {
  wp_presentation_feedback_destroy(ref->proxy);
  Client* c = ref->client;
  c->refs.erase(std::find(c->refs.begin(), c->refs.end(), ref));
  delete ref;
}

const wp_presentation_feedback_listener kFeedbackListener = {
    .sync_output = [](void*, struct wp_presentation_feedback*, wl_output*) {},
    .presented =
        [](void* data, struct wp_presentation_feedback*, uint32_t sec_hi, uint32_t sec_lo,
           uint32_t nsec, uint32_t refresh, uint32_t, uint32_t, uint32_t flags) {
          auto* ref = static_cast<FeedbackRef*>(data);
          Frame& f = ref->client->frames[ref->index];
          f.done = true;
          f.vsync = (flags & WP_PRESENTATION_FEEDBACK_KIND_VSYNC) != 0;
          f.present_ns =
              static_cast<int64_t>((uint64_t{sec_hi} << 32) | sec_lo) * 1'000'000'000 + nsec;
          f.refresh_ns = refresh;
          finish_feedback(ref);
        },
    .discarded =
        [](void* data, struct wp_presentation_feedback*) {
          auto* ref = static_cast<FeedbackRef*>(data);
          Frame& f = ref->client->frames[ref->index];
          f.done = true;
          f.discarded = true;
          finish_feedback(ref);
        },
};

bool make_buffers(Client& c) {
  const size_t one = static_cast<size_t>(c.width) * static_cast<size_t>(c.height) * 4;
  c.map_size = one * kBuffers;
  int fd = memfd_create("baton-latency-client", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(c.map_size)) != 0) return false;
  c.map = mmap(nullptr, c.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (c.map == MAP_FAILED) {
    c.map = nullptr;
    close(fd);
    return false;
  }
  wl_shm_pool* pool = wl_shm_create_pool(c.shm, fd, static_cast<int32_t>(c.map_size));
  for (int i = 0; i < kBuffers; ++i) {
    Buffer& b = c.buffers[i];
    b.buffer = wl_shm_pool_create_buffer(pool, static_cast<int32_t>(one * i), c.width, c.height,
                                         c.width * 4, WL_SHM_FORMAT_XRGB8888);
    b.pixels = reinterpret_cast<uint32_t*>(static_cast<char*>(c.map) + one * i);
    wl_buffer_add_listener(b.buffer, &kBufferListener, &b);
  }
  wl_shm_pool_destroy(pool);
  close(fd);
  return true;
}

// One round of the event loop: dispatches the display (and waits on
// `timer_fd` too when it is >= 0) for up to timeout_ms (-1: no limit).
// Returns false when the connection died; sets *timer_fired.
bool pump(Client& c, int timer_fd, int timeout_ms, bool* timer_fired) {
  if (timer_fired != nullptr) *timer_fired = false;
  while (wl_display_prepare_read(c.display) != 0)
    if (wl_display_dispatch_pending(c.display) < 0) return false;
  if (wl_display_flush(c.display) < 0 && errno != EAGAIN) {
    wl_display_cancel_read(c.display);
    return false;
  }
  pollfd fds[2] = {{wl_display_get_fd(c.display), POLLIN, 0}, {timer_fd, POLLIN, 0}};
  int r = poll(fds, timer_fd >= 0 ? 2 : 1, timeout_ms);
  if (r < 0 && errno != EINTR) {
    wl_display_cancel_read(c.display);
    return false;
  }
  if (r > 0 && (fds[0].revents & POLLIN) != 0) {
    if (wl_display_read_events(c.display) < 0) return false;
  } else {
    wl_display_cancel_read(c.display);
  }
  if ((fds[0].revents & (POLLERR | POLLHUP)) != 0) return false;
  if (wl_display_dispatch_pending(c.display) < 0) return false;
  if (timer_fd >= 0 && r > 0 && (fds[1].revents & POLLIN) != 0) {
    uint64_t expirations = 0;
    if (read(timer_fd, &expirations, sizeof expirations) == sizeof expirations &&
        timer_fired != nullptr)
      *timer_fired = true;
  }
  return true;
}

// Draws frame `index` into a released buffer and commits it with a frame
// callback and presentation feedback (and the commit timer's target, when
// target_ns is not 0). Returns false when no buffer came back in time.
bool draw_and_commit(Client& c, size_t index, int64_t target_ns, int timeout_ms) {
  // For tests that count what the display did while frames were measured.
  if (index == c.first_measured && index > 0) {
    std::printf("latency-client: warm-up done\n");
    std::fflush(stdout);
  }
  Buffer* free_buffer = nullptr;
  const int64_t give_up = now_ns() + int64_t{timeout_ms} * 1'000'000;
  while (free_buffer == nullptr) {
    for (Buffer& b : c.buffers)
      if (!b.busy) {
        free_buffer = &b;
        break;
      }
    if (free_buffer != nullptr) break;
    if (now_ns() > give_up) return false;
    if (!pump(c, -1, 10, nullptr)) return false;
  }
  // A new colour each frame (a hue walk), the whole buffer.
  const uint32_t k = static_cast<uint32_t>(index);
  const uint32_t colour = 0xff000000u | (((k * 37u) & 0xffu) << 16) | (((k * 91u) & 0xffu) << 8) |
                          ((255u - k * 53u) & 0xffu);
  if (free_buffer->dmabuf)
    free_buffer->dmabuf->write(colour);
  else
    std::fill_n(free_buffer->pixels, static_cast<size_t>(c.width) * static_cast<size_t>(c.height),
                colour);
  wl_surface_attach(c.surface, free_buffer->buffer, 0, 0);
  free_buffer->busy = true;
  wl_surface_damage_buffer(c.surface, 0, 0, c.width, c.height);
  wl_callback* cb = wl_surface_frame(c.surface);
  wl_callback_add_listener(cb, &kFrameListener, &c);
  c.frame_done = false;
  auto* ref = new FeedbackRef{&c, index, wp_presentation_feedback(c.presentation, c.surface)};
  wp_presentation_feedback_add_listener(ref->proxy, &kFeedbackListener, ref);
  c.refs.push_back(ref);
  if (target_ns != 0 && c.timer != nullptr) {
    const uint64_t sec = static_cast<uint64_t>(target_ns / 1'000'000'000);
    wp_commit_timer_v1_set_timestamp(c.timer, static_cast<uint32_t>(sec >> 32),
                                     static_cast<uint32_t>(sec & 0xffffffffu),
                                     static_cast<uint32_t>(target_ns % 1'000'000'000));
  }
  if (c.fifo != nullptr) {
    wp_fifo_v1_set_barrier(c.fifo);
    wp_fifo_v1_wait_barrier(c.fifo);
  }
  Frame& f = c.frames[index];
  f.target_ns = target_ns;
  f.commit_ns = now_ns();
  wl_surface_commit(c.surface);
  wl_display_flush(c.display);
  return true;
}

// The buffers as dma-bufs of `allocator` (vgem dumb buffers: on the card
// `card_fd`), handed over with create_immed. False with `why`.
bool make_dmabuf_buffers(Client& c, baton::testing::Allocator allocator, int card_fd,
                         std::string& why) {
  for (Buffer& b : c.buffers) {
    auto made = baton::testing::ProducerBuffer::create(
        allocator, card_fd, static_cast<uint32_t>(c.width), static_cast<uint32_t>(c.height));
    if (!made) {
      why = made.error().describe();
      return false;
    }
    b.dmabuf.emplace(std::move(*made));
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(c.linux_dmabuf);
    zwp_linux_buffer_params_v1_add(params, b.dmabuf->dmabuf(), 0, 0, b.dmabuf->stride(), 0, 0);
    b.buffer = zwp_linux_buffer_params_v1_create_immed(
        params, c.width, c.height, baton::testing::ProducerBuffer::kXrgb8888, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    wl_buffer_add_listener(b.buffer, &kBufferListener, &b);
  }
  return true;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

void usage() {
  std::fprintf(stderr,
               "usage: baton-latency-client [--delay MS | --target-offset F | --past-target | "
               "--after-present] "
               "[--frames N] [--warmup W] [--size WxH] [--timeout-ms T] [--tolerance-us U] "
               "[--fps N] [--grid-ms G] [--presentation-version 1|2] [--fullscreen] [--tearing] "
               "[--fifo] [--alloc vgem|udmabuf]\n");
}

}  // namespace

int main(int argc, char** argv) {
  Mode mode = Mode::kDelay;
  double delay_ms = 0;
  double fps = 0;
  double grid_ms = 0;
  uint32_t presentation_version = 2;
  double target_offset = 0;
  int frames = 120;
  int warmup = 30;
  int width = 256, height = 256;
  int timeout_ms = 10000;  // for any one feedback, frame callback or release
  double tolerance_us = 50;
  bool fullscreen = false, tearing = false, fifo = false;
  std::optional<baton::testing::Allocator> alloc;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const bool has_next = i + 1 < argc;
    const char* next = has_next ? argv[i + 1] : "";
    auto need = [&]() {
      if (!has_next) {
        usage();
        std::exit(2);
      }
      ++i;
    };
    if (arg == "--delay")
      need(), mode = Mode::kDelay, delay_ms = std::atof(next);
    else if (arg == "--target-offset")
      need(), mode = Mode::kTarget, target_offset = std::atof(next);
    else if (arg == "--past-target")
      mode = Mode::kPastTarget;
    else if (arg == "--after-present")
      mode = Mode::kAfterPresent;
    else if (arg == "--fps")
      need(), fps = std::atof(next);
    else if (arg == "--grid-ms")
      need(), grid_ms = std::atof(next);
    else if (arg == "--presentation-version")
      need(), presentation_version = static_cast<uint32_t>(std::atoi(next));
    else if (arg == "--fullscreen")
      fullscreen = true;
    else if (arg == "--tearing")
      tearing = true;
    else if (arg == "--fifo")
      fifo = true;
    else if (arg == "--alloc") {
      need();
      alloc = baton::testing::parse_allocator(next);
      if (!alloc || *alloc == baton::testing::Allocator::shm ||
          *alloc == baton::testing::Allocator::virtio_gpu) {
        usage();
        return 2;
      }
    } else if (arg == "--frames")
      need(), frames = std::atoi(next);
    else if (arg == "--warmup")
      need(), warmup = std::atoi(next);
    else if (arg == "--timeout-ms")
      need(), timeout_ms = std::atoi(next);
    else if (arg == "--tolerance-us")
      need(), tolerance_us = std::atof(next);
    else if (arg == "--size") {
      need();
      if (std::sscanf(next, "%dx%d", &width, &height) != 2 || width <= 0 || height <= 0) {
        usage();
        return 2;
      }
    } else {
      usage();
      return 2;
    }
  }
  if (frames <= 0 || warmup < 0 || delay_ms < 0 || fps < 0 || grid_ms < 0 ||
      presentation_version < 1 || presentation_version > 2 || target_offset < 0 ||
      target_offset >= 1) {
    std::fprintf(stderr, "latency-client: frames > 0, warmup >= 0, delay >= 0, 0 <= F < 1\n");
    return 2;
  }

  Client c;
  c.presentation_version = presentation_version;
  c.width = width;
  c.height = height;
  c.display = wl_display_connect(nullptr);
  if (c.display == nullptr) {
    std::printf("latency-client: FAIL: cannot connect to the Wayland display (%s)\n",
                std::strerror(errno));
    return 1;
  }
  c.registry = wl_display_get_registry(c.display);
  wl_registry_add_listener(c.registry, &kRegistryListener, &c);
  wl_display_roundtrip(c.display);
  if (c.compositor == nullptr || c.shm == nullptr || c.wm_base == nullptr ||
      c.presentation == nullptr) {
    std::printf(
        "latency-client: FAIL: missing globals (wl_compositor v4 %s, wl_shm %s, "
        "xdg_wm_base %s, wp_presentation %s)\n",
        c.compositor ? "ok" : "absent", c.shm ? "ok" : "absent", c.wm_base ? "ok" : "absent",
        c.presentation ? "ok" : "absent");
    return 1;
  }
  const bool targets = mode == Mode::kTarget || mode == Mode::kPastTarget;
  if (targets && c.timing_manager == nullptr) {
    std::printf("latency-client: SKIP: the compositor has no wp_commit_timing_manager_v1\n");
    return 2;
  }
  if (fifo && c.fifo_manager == nullptr) {
    std::printf("latency-client: FAIL: --fifo without wp_fifo_manager_v1\n");
    return 1;
  }
  if (tearing && c.tearing_manager == nullptr) {
    std::printf("latency-client: FAIL: --tearing without wp_tearing_control_manager_v1\n");
    return 1;
  }
  wp_presentation_add_listener(c.presentation, &kPresentationListener, &c);
  xdg_wm_base_add_listener(c.wm_base, &kWmBaseListener, &c);
  wl_display_roundtrip(c.display);
  if (!c.clock_seen) {
    std::printf("latency-client: FAIL: wp_presentation sent no clock_id\n");
    return 1;
  }
  g_presentation_clock = static_cast<clockid_t>(c.clock_id);
  if (timespec ts{}; clock_gettime(g_presentation_clock, &ts) != 0) {
    std::printf("latency-client: FAIL: wp_presentation clock %u cannot be read: %s\n", c.clock_id,
                std::strerror(errno));
    return 1;
  }

  c.surface = wl_compositor_create_surface(c.compositor);
  c.xsurface = xdg_wm_base_get_xdg_surface(c.wm_base, c.surface);
  xdg_surface_add_listener(c.xsurface, &kXdgSurfaceListener, &c);
  c.toplevel = xdg_surface_get_toplevel(c.xsurface);
  xdg_toplevel_add_listener(c.toplevel, &kToplevelListener, &c);
  xdg_toplevel_set_title(c.toplevel, "baton-latency-client");
  xdg_toplevel_set_app_id(c.toplevel, "baton-latency-client");
  if (fullscreen) {
    xdg_toplevel_set_fullscreen(c.toplevel, nullptr);
  } else {
    xdg_toplevel_set_min_size(c.toplevel, width, height);
    xdg_toplevel_set_max_size(c.toplevel, width, height);
  }
  if (fifo) c.fifo = wp_fifo_manager_v1_get_fifo(c.fifo_manager, c.surface);
  if (tearing) {
    c.tearing = wp_tearing_control_manager_v1_get_tearing_control(c.tearing_manager, c.surface);
    wp_tearing_control_v1_set_presentation_hint(c.tearing,
                                                WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
  }
  if (c.timing_manager != nullptr && targets)
    c.timer = wp_commit_timing_manager_v1_get_timer(c.timing_manager, c.surface);
  wl_surface_commit(c.surface);
  while (!c.configured)
    if (wl_display_dispatch(c.display) < 0) {
      std::printf("latency-client: FAIL: the connection died before the first configure\n");
      return 1;
    }
  if (fullscreen && c.configured_width > 0 && c.configured_height > 0) {
    c.width = c.configured_width;
    c.height = c.configured_height;
  }
  if (alloc) {
    if (c.linux_dmabuf == nullptr) {
      std::printf("latency-client: FAIL: --alloc without zwp_linux_dmabuf_v1 version 3\n");
      return 1;
    }
    baton::UniqueFd card;
    if (*alloc == baton::testing::Allocator::vgem) {
      auto vgem = baton::testing::open_drm_node("vgem", baton::testing::NodeKind::primary);
      if (!vgem) {
        std::printf("latency-client: FAIL: no vgem card: %s\n", vgem.error().describe().c_str());
        return 1;
      }
      card = std::move(*vgem);
    }
    std::string why;
    if (!make_dmabuf_buffers(c, *alloc, card.get(), why)) {
      std::printf("latency-client: FAIL: dma-buf buffers: %s\n", why.c_str());
      return 1;
    }
  } else if (!make_buffers(c)) {
    std::printf("latency-client: FAIL: shm buffers: %s\n", std::strerror(errno));
    return 1;
  }

  const size_t total = static_cast<size_t>(warmup) + static_cast<size_t>(frames);
  c.first_measured = static_cast<size_t>(warmup);
  c.frames.resize(total);
  int timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  if (timer_fd < 0) {
    std::printf("latency-client: FAIL: timerfd_create: %s\n", std::strerror(errno));
    return 1;
  }
  const int64_t delay_ns = static_cast<int64_t>(std::llround(delay_ms * 1e6));
  const int64_t period_ns = fps > 0 ? static_cast<int64_t>(std::llround(1e9 / fps)) : 0;
  std::string failure;

  // The first frame maps the window; it is part of the warm-up count.
  const int64_t first_commit_ns = now_ns();
  if (!draw_and_commit(c, 0, 0, timeout_ms)) failure = "no buffer for the first frame";
  size_t next = 1;
  bool timer_armed = false;
  int64_t deadline = now_ns() + int64_t{timeout_ms} * 1'000'000;
  int64_t last_refresh = 0;
  while (failure.empty() && !c.closed) {
    // Done when every frame has its feedback.
    if (next == total && c.frames[total - 1].done) break;
    if (mode == Mode::kDelay) {
      if (next < total && c.frame_done && !timer_armed) {
        // Wait D ms from the frame callback (absolute, so dispatch in
        // between does not stretch it).
        int64_t at = c.frame_done_ns + delay_ns;
        if (period_ns > 0)
          at = std::max(at, first_commit_ns + static_cast<int64_t>(next) * period_ns);
        if (at <= now_ns()) {
          if (!draw_and_commit(c, next, 0, timeout_ms)) failure = "no buffer came back";
          ++next;
          deadline = now_ns() + int64_t{timeout_ms} * 1'000'000;
          continue;
        }
        itimerspec its{};
        its.it_value.tv_sec = at / 1'000'000'000;
        its.it_value.tv_nsec = at % 1'000'000'000;
        timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &its, nullptr);
        timer_armed = true;
      }
    } else if (next < total && c.frames[next - 1].done) {
      // Target modes and --after-present: the next frame goes as soon as
      // the previous one was presented (or discarded: then from its commit time).
      const Frame& prev = c.frames[next - 1];
      if (prev.refresh_ns != 0) last_refresh = prev.refresh_ns;
      if (last_refresh == 0) {
        failure = "the compositor reports no refresh period (0): targets need one";
        break;
      }
      const int64_t base = prev.discarded ? prev.commit_ns : prev.present_ns;
      int64_t target = 0;
      if (mode == Mode::kTarget) {
        const int64_t now = now_ns();
        const int64_t offset =
            static_cast<int64_t>(std::llround(target_offset * static_cast<double>(last_refresh)));
        int64_t k = 1;
        while (base + k * last_refresh + offset < now + last_refresh) ++k;
        target = base + k * last_refresh + offset;
      } else if (mode == Mode::kPastTarget) {
        target = base - last_refresh;  // in the past
      }
      if (!draw_and_commit(c, next, target, timeout_ms)) failure = "no buffer came back";
      ++next;
      deadline = now_ns() + int64_t{timeout_ms} * 1'000'000;
      continue;
    }
    const int64_t now = now_ns();
    if (now > deadline) {
      failure = next < total
                    ? (mode == Mode::kDelay && !c.frame_done
                           ? "no frame callback for frame " + std::to_string(next - 1)
                           : "no presentation feedback for frame " + std::to_string(next - 1))
                    : "no presentation feedback for the last frame";
      break;
    }
    bool fired = false;
    const int wait_ms = static_cast<int>(std::min<int64_t>((deadline - now) / 1'000'000 + 1, 1000));
    if (!pump(c, timer_armed ? timer_fd : -1, wait_ms, &fired)) {
      failure = "the connection died (protocol error?)";
      break;
    }
    if (fired && timer_armed) {
      timer_armed = false;
      if (!draw_and_commit(c, next, 0, timeout_ms)) failure = "no buffer came back";
      ++next;
      deadline = now_ns() + int64_t{timeout_ms} * 1'000'000;
    }
  }
  close(timer_fd);
  if (c.closed && failure.empty()) failure = "the compositor closed the window";
  if (!failure.empty()) {
    int err = wl_display_get_error(c.display);
    size_t presented = 0, discarded = 0;
    for (const Frame& f : c.frames) (f.discarded ? discarded : presented) += f.done ? 1 : 0;
    std::printf(
        "latency-client: FAIL: %s%s%s (%zu of %zu commits made; feedback: %zu presented, "
        "%zu discarded)\n",
        failure.c_str(), err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "", next, total,
        presented, discarded);
    return 1;
  }

  // Measured frames: past the warm-up.
  std::vector<double> latency, past_target;
  int discarded = 0, missed = 0, k1 = 0, k2 = 0, k3plus = 0, early = 0, late = 0, vsync = 0;
  std::vector<double> refreshes, intervals;
  int64_t last_present = 0;
  const double tol_ns = tolerance_us * 1e3;
  for (size_t i = static_cast<size_t>(warmup); i < total; ++i) {
    const Frame& f = c.frames[i];
    if (!f.done || f.discarded) {
      ++discarded;
      continue;
    }
    const double lat = static_cast<double>(f.present_ns - f.commit_ns);
    latency.push_back(lat / 1e6);
    if (f.vsync) ++vsync;
    if (last_present != 0)
      intervals.push_back(static_cast<double>(f.present_ns - last_present) / 1e6);
    last_present = f.present_ns;
    const double refresh = f.refresh_ns != 0 ? f.refresh_ns : static_cast<double>(last_refresh);
    if (f.refresh_ns != 0) refreshes.push_back(f.refresh_ns / 1e6);
    int k = 0;
    if (refresh > 0) {
      // The vblank grid from the latest earlier frame's presentation (the
      // same grid whether it came before or after this commit): the first
      // vblank after the commit, and how many refreshes later it was shown.
      const Frame* anchor = nullptr;
      for (size_t j = i; j-- > 0;)
        if (c.frames[j].done && !c.frames[j].discarded) {
          anchor = &c.frames[j];
          break;
        }
      if (anchor != nullptr) {
        const double since = static_cast<double>(f.commit_ns - anchor->present_ns);
        const double first_vblank =
            static_cast<double>(anchor->present_ns) + std::ceil(since / refresh) * refresh;
        k = 1 + static_cast<int>(
                    std::floor((static_cast<double>(f.present_ns) - first_vblank) / refresh + 0.5));
      } else {
        k = static_cast<int>(std::ceil(lat / refresh - kMissTolerance));
      }
      if (k < 1) k = 1;
      (k == 1 ? k1 : k == 2 ? k2 : k3plus)++;
      if (k >= 2) ++missed;
    }
    if (mode == Mode::kTarget) {
      const double d = static_cast<double>(f.present_ns - f.target_ns);
      past_target.push_back(d / 1e6);
      if (d < -tol_ns)
        ++early;
      else if (d >= refresh + tol_ns)
        ++late;
    } else if (mode == Mode::kPastTarget || mode == Mode::kAfterPresent) {
      if (k >= 2) ++late;
    }
  }
  // Frames per refresh cycle, on the grid of the first vsynced presentation
  // (a compositor that tears keeps fifo barriers to that grid).
  int cycle_max = 0;
  const Frame* anchor = nullptr;
  for (const Frame& f : c.frames)
    if (f.done && !f.discarded && f.vsync) {
      anchor = &f;
      break;
    }
  const double grid_ns = anchor != nullptr ? static_cast<double>(anchor->refresh_ns) : 0.0;
  if (anchor != nullptr && grid_ns > 0) {
    std::map<int64_t, int> per_cycle;
    for (size_t i = static_cast<size_t>(warmup); i < total; ++i) {
      const Frame& f = c.frames[i];
      if (!f.done || f.discarded || f.present_ns < anchor->present_ns) continue;
      // 0.2 ms: the timestamps' rounding at a cycle's start.
      const double since = static_cast<double>(f.present_ns - anchor->present_ns) + 0.2e6;
      cycle_max = std::max(cycle_max, ++per_cycle[static_cast<int64_t>(since / grid_ns)]);
    }
  }
  const int measured = static_cast<int>(latency.size());
  const double refresh_ms = refreshes.empty() ? 0 : percentile(refreshes, 0.5);
  // A fixed-rate output presents whole numbers of refreshes apart; VRR need not.
  const double grid = grid_ms > 0 ? grid_ms : refresh_ms;
  int on_grid = 0;
  for (double interval : intervals)
    if (grid > 0 && std::abs(interval - std::round(interval / grid) * grid) <= 1.5) ++on_grid;
  const double on_grid_pct = intervals.empty() ? 0 : 100.0 * on_grid / double(intervals.size());
  const char* clock_name = c.clock_id == CLOCK_MONOTONIC       ? "monotonic"
                           : c.clock_id == CLOCK_MONOTONIC_RAW ? "monotonic_raw"
                                                               : "other";
  const double max_ms = latency.empty() ? 0 : *std::max_element(latency.begin(), latency.end());
  if (mode == Mode::kDelay) {
    std::printf(
        "latency-client: mode=delay delay=%.1f frames=%d median_ms=%.2f p90_ms=%.2f max_ms=%.2f "
        "missed=%d missed_pct=%.1f k1=%d k2=%d k3plus=%d refresh_ms=%.3f discarded=%d clock=%s "
        "vsync=%d interval_median_ms=%.2f interval_p10_ms=%.2f cycle_max=%d on_grid_pct=%.1f\n",
        delay_ms, measured, percentile(latency, 0.5), percentile(latency, 0.9), max_ms, missed,
        measured > 0 ? 100.0 * missed / measured : 0.0, k1, k2, k3plus, refresh_ms, discarded,
        clock_name, vsync, percentile(intervals, 0.5), percentile(intervals, 0.1), cycle_max,
        on_grid_pct);
  } else {
    const int on_time = measured - early - late;
    std::printf(
        "latency-client: mode=%s target_offset=%.2f frames=%d median_ms=%.2f p90_ms=%.2f "
        "max_ms=%.2f target_median_ms=%.2f early=%d late=%d on_time_pct=%.1f refresh_ms=%.3f "
        "discarded=%d clock=%s vsync=%d interval_median_ms=%.2f interval_p10_ms=%.2f "
        "cycle_max=%d on_grid_pct=%.1f\n",
        mode == Mode::kTarget       ? "target"
        : mode == Mode::kPastTarget ? "past-target"
                                    : "after-present",
        mode == Mode::kTarget ? target_offset : -1.0, measured, percentile(latency, 0.5),
        percentile(latency, 0.9), max_ms, past_target.empty() ? 0.0 : percentile(past_target, 0.5),
        early, late, measured > 0 ? 100.0 * on_time / measured : 0.0, refresh_ms, discarded,
        clock_name, vsync, percentile(intervals, 0.5), percentile(intervals, 0.1), cycle_max,
        on_grid_pct);
  }
  if (discarded > 0 || measured == 0) {
    std::printf("latency-client: FAIL: %d of %d measured frames discarded\n", discarded, frames);
    return 1;
  }
  return 0;
}
