// The soak run: one baton Server (headless, pixman) in this process, a steady
// client presenting every frame, and a crowd of clients that connect, map,
// animate, resize, go fullscreen, open popups and leave, some cleanly, some
// cut off mid-message as a killed process would be. Every interval it
// prints baton's open fds, the live heap, the scene's node count and the
// fake device's syncobj handles, once with the crowd there and once after
// all of it has left; at the end the steady client's missed frames and the
// longest dispatch of baton's loop.
//
// Members also copy and paste through ext-data-control-v1 (clipboard.hpp),
// X11 windows come and go under Xwayland (x11_crowd.hpp), and one member in
// four draws dma-bufs with acquire and release points on the fake syncobj
// device (explicit_sync.hpp; some of their GPUs hang). Real dma-bufs and
// syncobjs need a DRM node: the guest's tests/vm/ suites have them.
//
// usage: baton-soak [--seconds N] [--clients N] [--interval-s N] [--check]
//   --check: exit 1 when, after the first (warm-up) sample, the highest fds,
//   scene nodes, syncobj handles or memory of the later half of the samples
//   pass the earlier half's by more than a few (memory: 10 %); samples are
//   taken after the whole crowd has left (the CI run: `meson test
//   soak-2min`; the long one: `meson test --benchmark soak`).
#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "compositor/desktop/xwayland.hpp"
#include "compositor/server.hpp"
#include "tests/soak/clipboard.hpp"
#include "tests/soak/explicit_sync.hpp"
#include "tests/soak/x11_crowd.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_dmabuf.hpp"
#include "tests/support/fake_syncobj.hpp"
#include "tests/support/harness.hpp"
#include "util/wlr.hpp"

// GCC says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define BATON_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BATON_SOAK_ASAN 1
#endif
#endif

#ifdef BATON_SOAK_ASAN
// From the ASan runtime (GCC ships no header for it): heap bytes in live
// allocations, freed blocks in the quarantine not counted.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace baton::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Args {
  int seconds = 120;
  int clients = 20;
  int interval_s = 10;
  bool check = false;
};

std::optional<Args> parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> int { return i + 1 < argc ? std::atoi(argv[++i]) : -1; };
    if (arg == "--seconds")
      a.seconds = next();
    else if (arg == "--clients")
      a.clients = next();
    else if (arg == "--interval-s")
      a.interval_s = next();
    else if (arg == "--check")
      a.check = true;
    else
      return std::nullopt;
  }
  if (a.seconds <= 0 || a.clients <= 0 || a.interval_s <= 0) return std::nullopt;
  return a;
}

int open_fds() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                        std::filesystem::directory_iterator{}));
}

#ifdef BATON_SOAK_ASAN
// Under ASan the resident size mostly measures the quarantine of freed
// blocks (256 MiB by default), which fills over minutes and reads as growth;
// the live heap is what a leak would grow.
constexpr const char* kMemoryColumn = "live heap KiB (ASan)";
long memory_kib() { return static_cast<long>(__sanitizer_get_current_allocated_bytes() / 1024); }
#else
// The live heap here too: the resident size swings by a quarter within two
// minutes as malloc keeps and returns pages (22 to 31 MiB in one clean CI
// rehearsal, which failed the check), while what a leak grows is the heap
// in use (mallinfo2 sums every arena, mmapped blocks included). It counts
// the chunks glibc's per-thread cache keeps as in use, so meson runs this
// with that cache off (tests/soak/meson.build).
constexpr const char* kMemoryColumn = "live heap KiB";
long memory_kib() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<long>((info.uordblks + info.hblkhd) / 1024);
}
#endif

int scene_nodes(wlr_scene_node* node) {
  int count = 1;
  if (node->type == WLR_SCENE_NODE_TREE) {
    wlr_scene_tree* tree = wlr_scene_tree_from_node(node);
    wlr_scene_node* child;
    wl_list_for_each(child, &tree->children, link) count += scene_nodes(child);
  }
  return count;
}

xdg_positioner* popup_positioner(Client& c) {
  xdg_positioner* p = xdg_wm_base_create_positioner(c.wm_base);
  xdg_positioner_set_size(p, 80, 60);
  xdg_positioner_set_anchor_rect(p, 10, 10, 1, 1);
  return p;
}

/// Two buffers of one size, committed in turn: a long run must not make a
/// buffer per frame.
struct BufferPair {
  BufferPair(Client& c, int w, int h, uint32_t first, uint32_t second)
      : width(w), height(h), a(c.shm, w, h, first), b(c.shm, w, h, second) {}
  const ShmBuffer& next() { return (flip = !flip) ? a : b; }
  int width, height;
  ShmBuffer a, b;
  bool flip = false;
};

/// One member of the crowd: a connection with a window, maybe a popup.
/// One member in four draws with explicit sync after its first frame; one
/// of those in four has a GPU that hangs.
struct Member {
  Member(Harness& h, ClipboardCounts& counts, ExplicitSyncCounts& sync_counts, int number)
      : harness(h),
        display(h.connect()),
        client(h, display),
        window(client),
        clipboard(h, display, client.seat, counts),
        sync_counts(sync_counts),
        wants_sync(number % 4 == 1),
        hangs(number % 16 == 1),
        name("baton-soak member " + std::to_string(number)) {
    window.initial_commit();
  }
  void draw() {
    if (synced) {
      synced->draw(width, height);
      return;
    }
    if (!buffers)
      buffers = std::make_unique<BufferPair>(client, width, height, 0xff808080, 0xff404040);
    window.present(buffers->next(), buffers->width, buffers->height);
    if (wants_sync)
      synced =
          std::make_unique<SyncedDrawing>(harness, display, window.surface(), sync_counts, hangs);
  }
  void resize(int w, int h) {
    width = w;
    height = h;
    if (!synced) buffers = std::make_unique<BufferPair>(client, w, h, 0xffa0a0a0, 0xff606060);
    draw();
  }
  Harness& harness;
  wl_display* display;
  Client client;
  Window window;
  std::unique_ptr<BufferPair> buffers;
  std::unique_ptr<Window> popup;
  std::unique_ptr<ShmBuffer> popup_buffer;
  Clipboard clipboard;
  ExplicitSyncCounts& sync_counts;
  std::unique_ptr<SyncedDrawing> synced;  // the window's buffer commits, once it has one
  bool wants_sync, hangs;
  std::string name;
  int width = 160, height = 120;
  int copies = 0;
  bool fullscreen = false;
};

/// The steady client: commits a frame each time its frame callback comes.
struct Steady {
  explicit Steady(Harness& h)
      : client(h), window(client), buffers(client, 200, 150, 0xff20c040, 0xff2060e0) {
    window.initial_commit();
    h.run_until([&] { return window.configure_count() >= 1; });
    draw();
  }
  void draw() {
    pending = wl_surface_frame(window.surface());  // with the next commit
    static const wl_callback_listener listener = {[](void* data, wl_callback* cb, uint32_t) {
      wl_callback_destroy(cb);
      auto* self = static_cast<Steady*>(data);
      self->pending = nullptr;
      self->due = true;
    }};
    wl_callback_add_listener(pending, &listener, this);
    window.present(buffers.next(), buffers.width, buffers.height);
  }
  // Called often: draws again when the last frame was shown; a gap of more
  // than two refreshes (33 ms at 60 Hz) between frames is a miss.
  void tick(Clock::time_point now) {
    if (!due) return;
    due = false;
    if (last && now - *last > milliseconds(34)) ++missed;
    last = now;
    ++frames;
    draw();
  }
  ~Steady() {
    if (pending != nullptr) wl_callback_destroy(pending);  // the last frame's, never answered
  }
  Steady(const Steady&) = delete;
  Steady& operator=(const Steady&) = delete;
  Client client;
  Window window;
  BufferPair buffers;
  wl_callback* pending = nullptr;
  bool due = false;
  int frames = 0, missed = 0;
  std::optional<Clock::time_point> last;
};

Options soak_options() {
  Options options = headless_options(1280, 720);
  options.xwayland = XwaylandMode::eager;
  // linux-drm-syncobj-v1 on the fake syncobj device, beside the fake
  // dma-buf global offered once the server runs.
  options.drm_device = fake_drm_device_path();
  options.syncobj_without_own_dmabuf = true;
  return options;
}

int run(const Args& a) {
  // Each killed X11 client makes wlroots' window manager log an error per
  // request it still had for the gone window: thousands of lines that bury
  // the soak's own figures. baton's log stays.
  wlr_log_init(WLR_SILENT, nullptr);
  Harness h(soak_options());
  if (offer_fake_linux_dmabuf(h.server().display()) == nullptr) {
    std::printf("soak: FAIL: could not offer the fake linux-dmabuf-v1\n");
    return 1;
  }
  const char* x11_window = std::getenv("BATON_X11_WINDOW");
  if (x11_window == nullptr) {
    std::printf("soak: FAIL: BATON_X11_WINDOW is not set (run it through meson)\n");
    return 1;
  }
  if (h.server().xwayland() == nullptr ||
      !h.run_until([&] { return h.server().xwayland()->ready(); }, std::chrono::seconds(20))) {
    std::printf("soak: FAIL: Xwayland did not start\n");
    return 1;
  }
  X11Crowd x11(h.server(), x11_window, 3);
  Steady steady(h);
  std::vector<std::unique_ptr<Member>> crowd(static_cast<size_t>(a.clients));
  std::mt19937 random(1);  // the same run each time
  int joined = 0, left_cleanly = 0, cut_off = 0;
  ClipboardCounts clipboard;
  ExplicitSyncCounts sync;
  int64_t longest_dispatch_ns = 0;

  // Leaves: its objects go, then its connection. Cut off, it leaves as a
  // killed process does: half a message on the wire, then the socket shut.
  auto leave = [&](std::unique_ptr<Member>& m, bool killed) {
    wl_display* display = m->display;
    if (killed) {
      const uint32_t half_header = 1;  // an object id, and nothing after it
      int fd = wl_display_get_fd(display);
      (void)!write(fd, &half_header, sizeof half_header);
      shutdown(fd, SHUT_RDWR);
    }
    m.reset();
    h.disconnect(display);
    ++(killed ? cut_off : left_cleanly);
  };

  // The loop as baton runs it, timed; the steady client's frames.
  auto turn = [&] {
    const auto begin = Clock::now();
    h.run_for(milliseconds(1));
    longest_dispatch_ns = std::max<int64_t>(
        longest_dispatch_ns,
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count());
    steady.tick(Clock::now());
  };
  struct Sample {
    int fds;
    long memory;
    int nodes;
    int handles;
  };
  auto measure = [&] {
    return Sample{open_fds(), memory_kib(), scene_nodes(&h.server().scene()->tree.node),
                  static_cast<int>(fake_syncobj_handles())};
  };
  // The whole crowd leaves, the X11 windows too (cleanly or cut off,
  // killed or terminated, as the dice say), and the loop runs until baton
  // has let go of them all and for some frames more, so that it drops what
  // it kept for them (a buffer until the next frame, commits held for a hung
  // GPU). What is left is baton's own and the steady client's: a count that
  // does not swing with the crowd's size and what its members hold (12 to 20
  // members of 2 to 15 fds each, 0 to 3 X11 windows of 4 or 5), so that a
  // leak of a few stands out. The crowd then joins again as the run goes on.
  int unsettled_drains = 0;
  auto drain = [&] {
    for (auto& member : crowd)
      if (member) leave(member, random() % 2 == 0);
    x11.end_all(random);
    // A liveness bound far above the fraction of a second this takes.
    const auto cap = Clock::now() + std::chrono::seconds(20);
    while (!x11.all_gone() && Clock::now() < cap) turn();
    if (!x11.all_gone()) ++unsettled_drains;
    const auto until = Clock::now() + milliseconds(250);
    while (Clock::now() < until) turn();
  };

  std::printf(
      "| s | clients | fds | %s | scene nodes | syncobj handles | fds drained | %s drained | "
      "scene nodes drained | syncobj handles drained | steady frames |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n",
      kMemoryColumn, kMemoryColumn);
  const auto start = Clock::now();
  auto next_sample = start + std::chrono::seconds(a.interval_s);
  auto next_x11 = start;
  std::vector<Sample> samples;
  while (Clock::now() - start < std::chrono::seconds(a.seconds)) {
    // One action on one member of the crowd every few milliseconds.
    auto& slot = crowd[random() % crowd.size()];
    if (!slot) {
      slot = std::make_unique<Member>(h, clipboard, sync, joined);
      if (!slot->clipboard.ready()) {
        std::printf("soak: FAIL: baton offers no ext-data-control-v1 for the clipboard\n");
        return 1;
      }
      ++joined;
    } else if (slot->window.configure_count() > 0) {
      Member& m = *slot;
      switch (random() % 10) {
        case 0:
        case 1:
        case 2:  // animate
          m.draw();
          break;
        case 3:  // resize
          m.resize(80 + static_cast<int>(random() % 400), 60 + static_cast<int>(random() % 300));
          break;
        case 4:  // fullscreen and back
          m.fullscreen = !m.fullscreen;
          if (m.fullscreen)
            xdg_toplevel_set_fullscreen(m.window.toplevel(), nullptr);
          else
            xdg_toplevel_unset_fullscreen(m.window.toplevel());
          wl_surface_commit(m.window.surface());
          break;
        case 5:  // a popup, or away with it
          if (m.popup) {
            m.popup.reset();
            m.popup_buffer.reset();
          } else if (m.buffers) {  // a popup of a mapped window
            xdg_positioner* p = popup_positioner(m.client);
            m.popup = std::make_unique<Window>(m.client, &m.window, p);
            xdg_positioner_destroy(p);
            m.popup->initial_commit();
          }
          break;
        case 6:
          if (m.popup && m.popup->configure_count() > 0 && !m.popup_buffer) {
            m.popup_buffer = std::make_unique<ShmBuffer>(m.client.shm, 80, 60, 0xffe0a020);
            m.popup->present(*m.popup_buffer, 80, 60);
          }
          break;
        case 7:  // leaves cleanly
          leave(slot, false);
          break;
        case 8:  // killed mid-message
          leave(slot, true);
          break;
        case 9:  // copy, or paste what another copied
          if (random() % 2 == 0)
            m.clipboard.copy(m.name + " copy " + std::to_string(++m.copies) + ".");
          else
            m.clipboard.paste();
          break;
        default:
          break;
      }
    }
    for (auto& member : crowd) {
      if (!member) continue;
      member->clipboard.poll();
      if (member->synced && !member->synced->ready()) {
        std::printf("soak: FAIL: baton offers no linux-drm-syncobj-v1 on the fake device\n");
        return 1;
      }
      if (member->synced) {
        member->synced->gpu(random);
        member->synced->poll();
      }
    }
    if (Clock::now() >= next_x11) {
      next_x11 += milliseconds(1500);
      x11.most_mapped = std::max(x11.most_mapped, x11.mapped());
      x11.act(random);
    }
    for (int i = 0; i < 4; ++i) turn();
    if (Clock::now() >= next_sample) {
      next_sample += std::chrono::seconds(a.interval_s);
      const long live = std::count_if(crowd.begin(), crowd.end(), [](auto& m) { return !!m; });
      const Sample busy = measure();
      drain();
      const Sample drained = measure();
      samples.push_back(drained);
      std::printf(
          "| %lld | %ld | %d | %ld | %d | %d | %d | %ld | %d | %d | %d |\n",
          static_cast<long long>(
              std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count()),
          live, busy.fds, busy.memory, busy.nodes, busy.handles, drained.fds, drained.memory,
          drained.nodes, drained.handles, steady.frames);
      std::fflush(stdout);
    }
  }
  std::printf(
      "soak: %d s, %d clients joined, %d left cleanly, %d cut off mid-message; steady client: %d "
      "frames, %d gaps over 2 refreshes; longest loop dispatch %.2f ms\n",
      a.seconds, joined, left_cleanly, cut_off, steady.frames, steady.missed,
      static_cast<double>(longest_dispatch_ns) / 1e6);
  std::printf("soak: clipboard: %d copies, %d pastes: %d read whole, %d cut short by their owner\n",
              clipboard.copies, clipboard.pastes_started, clipboard.pastes_read,
              clipboard.pastes_cut_short);
  std::printf("soak: X11: %d windows started, %d killed, %d terminated; at most %d shown at once\n",
              x11.started, x11.killed, x11.terminated, x11.most_mapped);
  std::printf(
      "soak: explicit sync: %d members (%d with a GPU that hangs), %d commits, %d acquire points "
      "signalled, %d buffers released\n",
      sync.members, sync.hung_gpus, sync.commits, sync.acquires_signalled, sync.releases_seen);
  if (!a.check) return 0;
  if (samples.size() < 3) {
    std::printf("soak: FAIL: %zu samples, need 3 (run longer)\n", samples.size());
    return 1;
  }
  // The first sample is warm-up. The rest are taken drained (see drain), so
  // they hold still: the highest of the later half is compared with the
  // highest of the earlier half, with room only for what a client of baton
  // keeps by its own choice (Xwayland holds 2 to 4 shm pools between
  // windows) and for timing (a buffer dropped a frame later).
  const size_t half = (samples.size() - 1) / 2;
  Sample earlier{0, 0, 0, 0}, later{0, 0, 0, 0};
  for (size_t i = 1; i < samples.size(); ++i) {
    Sample& into = i <= half ? earlier : later;
    into.fds = std::max(into.fds, samples[i].fds);
    into.memory = std::max(into.memory, samples[i].memory);
    into.nodes = std::max(into.nodes, samples[i].nodes);
    into.handles = std::max(into.handles, samples[i].handles);
  }
  bool ok = true;
  if (unsettled_drains > 0) {
    std::printf("soak: FAIL: %d times ended X11 windows were not gone from baton after 20 s\n",
                unsettled_drains);
    ok = false;
  }
  if (later.fds > earlier.fds + 8) {
    std::printf("soak: FAIL: fds grew from at most %d to %d\n", earlier.fds, later.fds);
    ok = false;
  }
  if (later.handles > earlier.handles + 2) {
    std::printf("soak: FAIL: syncobj handles grew from at most %d to %d\n", earlier.handles,
                later.handles);
    ok = false;
  }
  if (later.nodes > earlier.nodes + 8) {
    std::printf("soak: FAIL: scene nodes grew from at most %d to %d\n", earlier.nodes, later.nodes);
    ok = false;
  }
  // The live heap: 10 % for stores that fill for a while and stay bounded
  // (a launch token per X11 window lives 90 s: about 13 KiB).
  if (later.memory > earlier.memory + earlier.memory / 10) {
    std::printf("soak: FAIL: memory (%s) grew from at most %ld to %ld KiB\n", kMemoryColumn,
                earlier.memory, later.memory);
    ok = false;
  }
  if (x11.most_mapped == 0) {
    std::printf("soak: FAIL: no X11 window was ever shown\n");
    ok = false;
  }
  // Most pastes must arrive whole; some are cut short by owners that leave.
  if (clipboard.pastes_read < clipboard.pastes_started / 4) {
    std::printf("soak: FAIL: only %d of %d pastes arrived whole\n", clipboard.pastes_read,
                clipboard.pastes_started);
    ok = false;
  }
  // A frame the GPU finished is released once the next one applies: all but
  // the last of each member's.
  if (sync.commits == 0 || sync.releases_seen < sync.acquires_signalled / 2) {
    std::printf("soak: FAIL: %d buffers released of %d frames the GPU finished\n",
                sync.releases_seen, sync.acquires_signalled);
    ok = false;
  }
  if (steady.frames < a.seconds * 10) {  // a liveness floor, far under 60 Hz
    std::printf("soak: FAIL: the steady client presented only %d frames\n", steady.frames);
    ok = false;
  }
  if (ok)
    std::printf(
        "soak: PASS: fds, scene nodes, syncobj handles and memory stayed flat after warm-up\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace baton::test

int main(int argc, char** argv) {
  auto args = baton::test::parse(argc, argv);
  if (!args) {
    std::fprintf(stderr,
                 "usage: baton-soak [--seconds N] [--clients N] [--interval-s N] [--check]\n");
    return 2;
  }
  return baton::test::run(*args);
}
