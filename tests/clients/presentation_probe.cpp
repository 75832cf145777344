// Measures presentation-time feedback as a client sees it: maps a window,
// redraws it N times with wp_presentation feedback, and checks that every
// frame was presented (none discarded) with timestamps
// and sequence numbers (never decreasing), the expected flags and refresh.
//
//   baton-presentation-probe [--frames N] [--expect-flags LIST] [--refresh-ns N]
//     LIST: comma-separated vsync,hw_clock,hw_completion,zero_copy, or "none"
//     (flags outside LIST must be absent too).
// Prints one summary line; exit 0 when everything held, 1 otherwise.
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

namespace {

struct Presented {
  bool done = false;
  bool discarded = false;
  uint64_t ns = 0;
  uint64_t seq = 0;
  uint32_t refresh = 0;
  uint32_t flags = 0;
};

// The client's objects, freed before the connection closes (a State is
// declared after the Connection), on every way out of main.
struct State {
  wl_registry* registry = nullptr;
  wl_compositor* compositor = nullptr;
  wl_shm* shm = nullptr;
  xdg_wm_base* wm_base = nullptr;
  wp_presentation* presentation = nullptr;
  wl_surface* surface = nullptr;
  xdg_surface* xsurface = nullptr;
  xdg_toplevel* toplevel = nullptr;
  std::vector<wl_buffer*> buffers;
  uint32_t configure_serial = 0;
  bool configured = false;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    for (wl_buffer* buffer : buffers)
      if (buffer != nullptr) wl_buffer_destroy(buffer);
    if (toplevel != nullptr) xdg_toplevel_destroy(toplevel);
    if (xsurface != nullptr) xdg_surface_destroy(xsurface);
    if (surface != nullptr) wl_surface_destroy(surface);
    if (presentation != nullptr) wp_presentation_destroy(presentation);
    if (wm_base != nullptr) xdg_wm_base_destroy(wm_base);
    if (shm != nullptr) wl_shm_destroy(shm);
    if (compositor != nullptr) wl_compositor_destroy(compositor);
    if (registry != nullptr) wl_registry_destroy(registry);
  }
};

struct Disconnect {
  void operator()(wl_display* display) const { wl_display_disconnect(display); }
};
using Connection = std::unique_ptr<wl_display, Disconnect>;

uint32_t parse_flags(const std::string& list) {
  if (list == "none") return 0;
  uint32_t flags = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    std::string name =
        list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (name == "vsync")
      flags |= WP_PRESENTATION_FEEDBACK_KIND_VSYNC;
    else if (name == "hw_clock")
      flags |= WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK;
    else if (name == "hw_completion")
      flags |= WP_PRESENTATION_FEEDBACK_KIND_HW_COMPLETION;
    else if (name == "zero_copy")
      flags |= WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY;
    else {
      std::fprintf(stderr, "presentation-probe: unknown flag '%s'\n", name.c_str());
      std::exit(2);
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return flags;
}

wl_buffer* make_buffer(wl_shm* shm, int w, int h, uint32_t argb) {
  size_t size = static_cast<size_t>(w) * static_cast<size_t>(h) * 4;
  int fd = memfd_create("probe", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0) return nullptr;
  auto* px = static_cast<uint32_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  for (size_t i = 0; i < size / 4; ++i) px[i] = argb;
  munmap(px, size);
  wl_shm_pool* pool = wl_shm_create_pool(shm, fd, static_cast<int32_t>(size));
  wl_buffer* buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
  wl_shm_pool_destroy(pool);
  close(fd);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 30;
  uint32_t expected_flags = 0;
  bool check_flags = false;
  long refresh_ns = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--frames")
      frames = std::atoi(next), ++i;
    else if (arg == "--expect-flags")
      expected_flags = parse_flags(next), check_flags = true, ++i;
    else if (arg == "--refresh-ns")
      refresh_ns = std::atol(next), ++i;
    else {
      std::fprintf(stderr, "presentation-probe: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }

  Connection connection(wl_display_connect(nullptr));
  wl_display* display = connection.get();
  if (display == nullptr) {
    std::printf("presentation-probe: FAIL: cannot connect to WAYLAND_DISPLAY\n");
    return 1;
  }
  State st;
  st.registry = wl_display_get_registry(display);
  static const wl_registry_listener registry_listener = {
      [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
        auto* s = static_cast<State*>(data);
        if (std::strcmp(iface, wl_compositor_interface.name) == 0)
          s->compositor =
              static_cast<wl_compositor*>(wl_registry_bind(r, name, &wl_compositor_interface, 4));
        else if (std::strcmp(iface, wl_shm_interface.name) == 0)
          s->shm = static_cast<wl_shm*>(wl_registry_bind(r, name, &wl_shm_interface, 1));
        else if (std::strcmp(iface, xdg_wm_base_interface.name) == 0)
          s->wm_base =
              static_cast<xdg_wm_base*>(wl_registry_bind(r, name, &xdg_wm_base_interface, 1));
        else if (std::strcmp(iface, wp_presentation_interface.name) == 0)
          s->presentation = static_cast<wp_presentation*>(
              wl_registry_bind(r, name, &wp_presentation_interface, 1));
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(st.registry, &registry_listener, &st);
  wl_display_roundtrip(display);
  if (!st.compositor || !st.shm || !st.wm_base || !st.presentation) {
    std::printf("presentation-probe: FAIL: missing globals (wp_presentation %s)\n",
                st.presentation ? "ok" : "absent");
    return 1;
  }

  st.surface = wl_compositor_create_surface(st.compositor);
  wl_surface* surface = st.surface;
  st.xsurface = xdg_wm_base_get_xdg_surface(st.wm_base, surface);
  xdg_surface* xsurface = st.xsurface;
  static const xdg_surface_listener xdg_listener = {[](void* data, xdg_surface*, uint32_t serial) {
    auto* s = static_cast<State*>(data);
    s->configure_serial = serial;
    s->configured = true;
  }};
  xdg_surface_add_listener(xsurface, &xdg_listener, &st);
  st.toplevel = xdg_surface_get_toplevel(xsurface);
  xdg_toplevel_set_title(st.toplevel, "presentation-probe");
  wl_surface_commit(surface);
  while (!st.configured && wl_display_dispatch(display) >= 0) {
  }
  xdg_surface_ack_configure(xsurface, st.configure_serial);

  st.buffers = {make_buffer(st.shm, 256, 256, 0xff2060c0),
                make_buffer(st.shm, 256, 256, 0xffc06020)};
  const std::vector<wl_buffer*>& buffers = st.buffers;
  std::vector<Presented> results(static_cast<size_t>(frames));
  static const struct wp_presentation_feedback_listener feedback_listener = {
      [](void*, struct wp_presentation_feedback*, wl_output*) {},
      [](void* data, struct wp_presentation_feedback* f, uint32_t hi, uint32_t lo, uint32_t nsec,
         uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
        auto* p = static_cast<Presented*>(data);
        p->done = true;
        p->ns = ((static_cast<uint64_t>(hi) << 32) | lo) * 1000000000ull + nsec;
        p->seq = (static_cast<uint64_t>(seq_hi) << 32) | seq_lo;
        p->refresh = refresh;
        p->flags = flags;
        wp_presentation_feedback_destroy(f);
      },
      [](void* data, struct wp_presentation_feedback* f) {
        static_cast<Presented*>(data)->done = true;
        static_cast<Presented*>(data)->discarded = true;
        wp_presentation_feedback_destroy(f);
      }};
  static const wl_callback_listener frame_listener = {[](void* data, wl_callback* cb, uint32_t) {
    *static_cast<bool*>(data) = true;
    wl_callback_destroy(cb);
  }};
  for (int i = 0; i < frames; ++i) {
    bool frame_done = false;
    wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, &frame_done);
    wp_presentation_feedback_add_listener(wp_presentation_feedback(st.presentation, surface),
                                          &feedback_listener, &results[static_cast<size_t>(i)]);
    wl_surface_attach(surface, buffers[static_cast<size_t>(i) % 2], 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, 256, 256);
    wl_surface_commit(surface);
    while (!frame_done && wl_display_dispatch(display) >= 0) {
    }
  }
  // The last feedback arrives after its frame callback.
  while (!results.back().done && wl_display_dispatch(display) >= 0) {
  }

  int failures = 0;
  int discarded = 0;
  uint32_t flags_seen = 0;
  double interval_sum = 0;
  int intervals = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const Presented& p = results[i];
    if (!p.done || p.discarded) {
      ++discarded;
      continue;
    }
    flags_seen |= p.flags;
    if (check_flags && p.flags != expected_flags) {
      std::printf("presentation-probe: frame %zu flags 0x%x, expected 0x%x\n", i, p.flags,
                  expected_flags);
      ++failures;
    }
    if (refresh_ns > 0 && std::labs(static_cast<long>(p.refresh) - refresh_ns) > refresh_ns / 100) {
      std::printf("presentation-probe: frame %zu refresh %u ns, expected %ld\n", i, p.refresh,
                  refresh_ns);
      ++failures;
    }
    if (i > 0 && results[i - 1].done && !results[i - 1].discarded) {
      // Never earlier. (Equal is allowed: virtio-gpu's emulated vblank under
      // TCG can stamp two completions with the same time.)
      if (p.ns < results[i - 1].ns || p.seq < results[i - 1].seq) {
        std::printf("presentation-probe: frame %zu presented before frame %zu\n", i, i - 1);
        ++failures;
      }
      interval_sum += static_cast<double>(p.ns - results[i - 1].ns);
      ++intervals;
    }
  }
  if (discarded > 0) {
    std::printf("presentation-probe: %d of %d frames were discarded, not presented\n", discarded,
                frames);
    ++failures;
  }
  std::printf(
      "presentation-probe: %s: %d frames presented, flags 0x%x, refresh %u ns, mean interval %.2f "
      "ms\n",
      failures == 0 ? "PASS" : "FAIL", frames - discarded, flags_seen, results.back().refresh,
      intervals > 0 ? interval_sum / intervals / 1e6 : 0.0);
  return failures == 0 ? 0 : 1;
}
