// baton-vk-dmabuf-client: the closest thing to a real game the tests have. A
// Vulkan client (lavapipe in the guest) renders each frame (busy clears, a
// clear to the frame's colour, a copy) into one of three LINEAR images whose
// memory it exported as dma-bufs, exports the submit's binary semaphore as a
// sync_file, and hands the buffer to the compositor with that fence:
//   --sync explicit: the sync_file becomes a linux-drm-syncobj-v1 acquire
//     point; a buffer is reused only once its release point signalled;
//   --sync implicit: the sync_file becomes the dma-buf's write fence; a buffer
//     is reused only after wl_buffer.release;
//   --sync none: committed right after the submit with no fence at all, to
//     show that the check below catches an early frame (not for the suite).
// --handoff late (default): export, import, commit. On lavapipe the export
// blocks until the render is done (see tests/vm/README.md) and returns a
// signalled sync_file, so the compositor never sees a pending fence.
// --handoff early: commit while the render runs, as a driver with a
// submit thread does. Explicit: the acquire point has no fence yet when
// committed and gets the sync_file once exported (the compositor must wait
// for it to materialise and signal). Implicit: a stand-in vgem write fence
// is on the dma-buf at commit and is signalled once the render's sync_file
// has been exported (and imported too).
// Every frame asks for wp_presentation feedback (CLOCK_MONOTONIC), and is
// checked against the time its render finished: the submit's VkFence,
// watched from a second thread. lavapipe's sync_files carry no usable signal
// time (an already signalled stub fence).
//
// usage: baton-vk-dmabuf-client [--sync explicit|implicit|none]
//            [--handoff late|early] [--frames N] [--busy N] [--seed N]
//            [--hold-ms MS] [--done-file PATH]
// --busy: clears of a 1024x1024 image per frame, so the render takes time;
// --done-file: created once the last frame is presented; then the client
// keeps it on screen for --hold-ms. Prints "last colour RRGGBB" and a summary
// line with PASS or FAIL. exit: 0 PASS; 1 FAIL; 77 the compositor or the
// Vulkan device lacks what the mode needs.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "presentation-time-client-protocol.h"
#include "sync/sync_file.hpp"
#include "sync/timeline.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/explicit_sync.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/clients/vk_renderer.hpp"
#include "tests/clients/wayland_window.hpp"
#include "tests/support/poll.hpp"

namespace baton::testing {
namespace {

using namespace std::chrono_literals;

enum class SyncMode { none, implicit, explicit_ };

struct Options {
  SyncMode sync = SyncMode::explicit_;
  bool early = false;  // --handoff early: commit before the render is done
  int frames = 30;
  int busy = 40;
  int seed = 0;  // shifts the colour sequence, so consecutive runs differ
  int hold_ms = 0;
  std::string done_file;
};

constexpr uint32_t kWidth = 256, kHeight = 256;
constexpr size_t kSlots = 3;
constexpr int kSkip = 77;

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view arg = argv[i], value = argv[i + 1];
    if (arg == "--sync") {
      if (value == "none")
        o.sync = SyncMode::none;
      else if (value == "implicit")
        o.sync = SyncMode::implicit;
      else if (value == "explicit")
        o.sync = SyncMode::explicit_;
      else
        return std::nullopt;
    } else if (arg == "--handoff") {
      if (value != "early" && value != "late") return std::nullopt;
      o.early = value == "early";
    } else if (arg == "--frames") {
      o.frames = std::atoi(argv[i + 1]);
    } else if (arg == "--busy") {
      o.busy = std::atoi(argv[i + 1]);
    } else if (arg == "--seed") {
      o.seed = std::atoi(argv[i + 1]);
    } else if (arg == "--hold-ms") {
      o.hold_ms = std::atoi(argv[i + 1]);
    } else if (arg == "--done-file") {
      o.done_file = argv[i + 1];
    } else {
      return std::nullopt;
    }
  }
  if (argc % 2 == 0 || o.frames < 1 || o.busy < 0) return std::nullopt;
  return o;
}

// A different, easily told apart colour every frame; never magenta-ish.
uint32_t frame_colour(int i) {
  uint32_t r = 0x10 + static_cast<uint32_t>(i * 37) % 0xa0;
  uint32_t g = 0x40 + static_cast<uint32_t>(i * 23) % 0xa0;
  uint32_t b = 0x30 + static_cast<uint32_t>(i * 11) % 0x40;
  return r << 16 | g << 8 | b;
}

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct Slot {
  VkTarget target;
  WlBuffer wl;
  VkOwned<VkSemaphore> done;
  VkOwned<VkFence> fence;
  VkOwned<VkCommandBuffer> cmd;
  bool busy = false;           // implicit: until wl_buffer.release
  uint64_t release_point = 0;  // explicit: the compositor is done at this point
  int released_before_reuse = 0;
};

// One frame's outcome, for the summary.
struct FrameTimes {
  int64_t render_done_ns = 0;  // CLOCK_MONOTONIC, when the render's VkFence signalled
  int64_t committed_ns = 0;
  bool signalled_at_export = false;
  int64_t presented_ns = 0;
  bool discarded = false;
};

class Client {
 public:
  explicit Client(const Options& o) : o_(o), window_("baton-vk-dmabuf-client") {}
  ~Client() {
    // GPU work and Wayland objects first: slots hold both.
    if (vk_) vk_->wait_idle();
    sync_.surface.reset();
    sync_.wl_acquire.reset();
    sync_.wl_release.reset();
    slots_.clear();
    if (presentation_ != nullptr) wp_presentation_destroy(presentation_);
    if (registry_ != nullptr) wl_registry_destroy(registry_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int run() {
    if (!window_.display()) return fail("cannot connect: " + window_.error());
    if (!window_.dmabuf()) return skip("the compositor advertises no zwp_linux_dmabuf_v1 v3+");
    if (o_.sync == SyncMode::explicit_ && !window_.syncobj())
      return skip("the compositor advertises no wp_linux_drm_syncobj_manager_v1");
    if (!bind_presentation()) return skip("the compositor advertises no wp_presentation");
    vk_ = VkRenderer::create();
    if (!vk_) return skip("no usable Vulkan device (see above)");
    std::printf(
        "vk-dmabuf-client: Vulkan device %s, %s sync, %s hand-off, %d frames, %d busy clears "
        "each\n",
        vk_->name().c_str(), sync_name(), handoff_name(), o_.frames, o_.busy);
    if (o_.sync == SyncMode::implicit && o_.early) {
      auto vgem = open_drm_node("vgem", NodeKind::primary);
      if (!vgem) return fail("no vgem card node for stand-in fences: " + vgem.error().describe());
      vgem_ = std::move(*vgem);
    }
    if (!vk_->make_scratch(1024, kWidth, kHeight)) return fail("scratch images");
    if (int r = make_slots(); r != 0) return r;
    if (o_.sync == SyncMode::explicit_)
      if (std::string why = make_explicit_sync(window_, sync_); !why.empty()) return fail(why);

    std::vector<FrameTimes> times;
    for (int i = 0; i < o_.frames; ++i) {
      FrameTimes t;
      if (int r = frame(i, t); r != 0) return r;
      times.push_back(t);
    }
    std::printf("vk-dmabuf-client: last colour %06x\n", frame_colour(o_.frames - 1 + o_.seed));
    int verdict = summarise(times);
    done();
    window_.dispatch_for(std::chrono::milliseconds(o_.hold_ms));
    return verdict;
  }

  void on_clock(uint32_t clock) { clock_ = clock; }
  void on_feedback(FrameTimes* t, int64_t presented_ns, bool discarded) {
    t->presented_ns = presented_ns;
    t->discarded = discarded;
    feedback_done_ = true;
  }

 private:
  const char* sync_name() const {
    return o_.sync == SyncMode::explicit_  ? "explicit"
           : o_.sync == SyncMode::implicit ? "implicit"
                                           : "no";
  }
  const char* handoff_name() const { return o_.early ? "early" : "late"; }
  int fail(const std::string& why) {
    std::printf("vk-dmabuf-client: FAIL: %s\n", why.c_str());
    return 1;
  }
  int skip(const std::string& why) {
    std::printf("vk-dmabuf-client: SKIP: %s\n", why.c_str());
    return kSkip;
  }
  void done() {
    if (o_.done_file.empty()) return;
    UniqueFd f(open(o_.done_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (!f) std::printf("vk-dmabuf-client: cannot create %s\n", o_.done_file.c_str());
  }

  // WaylandWindow binds no wp_presentation: a registry of our own for it.
  bool bind_presentation() {
    static const wl_registry_listener kListener = {
        .global =
            [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
              if (std::strcmp(iface, wp_presentation_interface.name) == 0)
                *static_cast<wp_presentation**>(data) = static_cast<wp_presentation*>(
                    wl_registry_bind(r, name, &wp_presentation_interface, 1));
            },
        .global_remove = [](void*, wl_registry*, uint32_t) {},
    };
    static const wp_presentation_listener kClock = {
        .clock_id = [](void* data, wp_presentation*,
                       uint32_t clock) { static_cast<Client*>(data)->on_clock(clock); },
    };
    registry_ = wl_display_get_registry(window_.display());
    wl_registry_add_listener(registry_, &kListener, &presentation_);
    wl_display_roundtrip(window_.display());
    if (presentation_ == nullptr) return false;
    wp_presentation_add_listener(presentation_, &kClock, this);
    wl_display_roundtrip(window_.display());
    if (clock_ != CLOCK_MONOTONIC)
      std::printf("vk-dmabuf-client: presentation clock %u is not CLOCK_MONOTONIC\n", clock_);
    return clock_ == CLOCK_MONOTONIC;
  }

  int make_slots() {
    static const wl_buffer_listener kRelease = {
        .release = [](void* data, wl_buffer*) { static_cast<Slot*>(data)->busy = false; },
    };
    for (size_t s = 0; s < kSlots; ++s) {
      auto slot = std::make_unique<Slot>();
      auto target = vk_->make_target(kWidth, kHeight);
      auto done = vk_->make_export_semaphore();
      auto fence = vk_->make_fence(false);
      auto cmd = vk_->make_command_buffer();
      if (!target || !done || !fence || !cmd) return fail("creating slot resources (see above)");
      slot->target = std::move(*target);
      slot->done = std::move(*done);
      slot->fence = std::move(*fence);
      slot->cmd = std::move(*cmd);
      if (slot->target.modifier != DRM_FORMAT_MOD_LINEAR)
        return fail("the driver chose modifier " + std::to_string(slot->target.modifier));
      zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(window_.dmabuf());
      zwp_linux_buffer_params_v1_add(
          params, slot->target.dmabuf.get(), 0, static_cast<uint32_t>(slot->target.offset),
          slot->target.stride, DRM_FORMAT_MOD_LINEAR >> 32, DRM_FORMAT_MOD_LINEAR & 0xffffffff);
      wl_buffer* wl =
          zwp_linux_buffer_params_v1_create_immed(params, kWidth, kHeight, DRM_FORMAT_XRGB8888, 0);
      zwp_linux_buffer_params_v1_destroy(params);
      wl_buffer_add_listener(wl, &kRelease, slot.get());
      slot->wl.reset(wl);
      slots_.push_back(std::move(slot));
    }
    // A rejected import is a protocol error: find out now, not mid-frame.
    if (wl_display_roundtrip(window_.display()) < 0)
      return fail("the compositor rejected the exported dma-buf (protocol error)");
    std::printf("vk-dmabuf-client: %zu dma-bufs exported, stride %u, modifier LINEAR\n", kSlots,
                slots_[0]->target.stride);
    return 0;
  }

  // Waits until the compositor no longer reads `slot` (and our last render
  // into it is done, which the compositor's release implies anyway).
  int wait_reusable(Slot& slot, int i) {
    if (o_.sync == SyncMode::explicit_ && slot.release_point != 0) {
      auto released =
          sync_.release->wait(slot.release_point, sync::Timeline::WaitFor::signalled, 5s);
      if (!released) return fail(released.error().describe());
      if (!*released)
        return fail("frame " + std::to_string(i) + ": release point " +
                    std::to_string(slot.release_point) + " not signalled in 5 s");
      ++slot.released_before_reuse;
    }
    if (o_.sync != SyncMode::explicit_) {
      bool alive = true;
      test::poll_until([&] { return !slot.busy; }, 5s,
                       [&] {
                         alive = window_.dispatch_for(50ms);
                         return alive;
                       });
      if (!alive) return fail("the connection died");
      if (slot.busy) return fail("frame " + std::to_string(i) + ": no wl_buffer.release in 5 s");
      if (slot.release_point != 0) ++slot.released_before_reuse;
    }
    return 0;
  }

  int frame(int i, FrameTimes& t) {
    Slot& slot = *slots_[static_cast<size_t>(i) % kSlots];
    if (int r = wait_reusable(slot, i); r != 0) return r;
    // The slot's previous submit, so its fence and command buffer are free.
    if (slot.release_point != 0 && !vk_->wait_fence(slot.fence.get(), 5'000'000'000, true))
      return fail("the previous render into this buffer never finished");

    int64_t submitted = now_ns();
    if (!vk_->submit_frame(slot.target, frame_colour(i + o_.seed), o_.busy, slot.done.get(),
                           slot.fence.get(), slot.cmd.get()))
      return fail("submitting frame " + std::to_string(i));
    // "Render done": the submit's VkFence, watched from a second thread
    // (lavapipe's sync_file carries no usable signal time), or the return of
    // an export that gave a signalled sync_file, whichever came first: both
    // bound the true moment from above, and a late wake-up of the watcher
    // must not look like an early presentation. Joined before the fence is
    // reset.
    std::atomic<int64_t> render_done_ns{0};
    std::jthread watcher([&, fence = slot.fence.get()] {
      render_done_ns = vk_->wait_fence(fence, 10'000'000'000, false) ? now_ns() : -1;
    });

    const uint64_t point = static_cast<uint64_t>(i) + 1;
    std::optional<PendingFence> proxy;
    if (o_.sync == SyncMode::none) {
      attach_and_commit(slot, t);  // the broken hand-off: nothing to wait for
    } else if (o_.early) {
      // Committed while the render runs: explicit with an acquire point that
      // has no fence yet (the compositor waits for it to materialise);
      // implicit with a stand-in write fence signalled once the render is.
      if (o_.sync == SyncMode::explicit_) {
        set_points(slot, point);
      } else {
        auto pending = make_pending_fence(vgem_.get());
        if (!pending) return fail("vgem fence: " + pending.error().describe());
        proxy.emplace(std::move(*pending));
        auto imported =
            proxy->sync_file.import_into_dmabuf(slot.target.dmabuf.get(), sync::Access::write);
        if (!imported) return fail("IMPORT_SYNC_FILE: " + imported.error().describe());
      }
      attach_and_commit(slot, t);
    }
    // The submit waits on nothing, so this export cannot block on a foreign
    // fence (on lavapipe it blocks until this render is done).
    sync::SyncFile render_done(vk_->export_sync_file(slot.done.get()));
    if (render_done.fd() < 0) return fail("exporting the render-done sync_file");
    int64_t exported = now_ns();
    auto signalled = render_done.signalled();
    if (!signalled) return fail("the exported sync_file: " + signalled.error().describe());
    t.signalled_at_export = *signalled;
    if (i == 0)
      std::printf(
          "vk-dmabuf-client: frame 0: the sync_file was %s when exported (%.1f ms after the "
          "submit)\n",
          *signalled ? "already signalled" : "unsignalled",
          static_cast<double>(exported - submitted) / 1e6);

    if (o_.sync == SyncMode::implicit) {
      auto imported = render_done.import_into_dmabuf(slot.target.dmabuf.get(), sync::Access::write);
      if (!imported) return fail("IMPORT_SYNC_FILE: " + imported.error().describe());
      if (proxy) {
        auto s = proxy->fence.signal();
        if (!s) return fail("signalling the stand-in fence: " + s.error().describe());
      }
    }
    if (o_.sync == SyncMode::explicit_) {
      auto imported = sync_.acquire->import_sync_file(point, render_done);
      if (!imported) return fail("acquire point: " + imported.error().describe());
      if (!o_.early) set_points(slot, point);
    }
    if (o_.sync != SyncMode::none && !o_.early) attach_and_commit(slot, t);
    if (o_.sync != SyncMode::explicit_) slot.release_point = point;

    bool alive = true;
    test::poll_until([&] { return feedback_done_; }, 5s,
                     [&] {
                       alive = window_.dispatch_for(20ms);
                       return alive;
                     });
    if (!alive) return fail("the connection died (protocol error?)");
    if (!feedback_done_) return fail("frame " + std::to_string(i) + ": no presentation feedback");
    watcher.join();
    if (render_done_ns <= 0) return fail("frame " + std::to_string(i) + ": render never done");
    t.render_done_ns = render_done_ns;
    if (t.signalled_at_export) t.render_done_ns = std::min(t.render_done_ns, exported);
    return 0;
  }

  void set_points(Slot& slot, uint64_t point) {
    slot.release_point = point;  // on the release timeline
    wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                      0, static_cast<uint32_t>(point));
    wp_linux_drm_syncobj_surface_v1_set_release_point(sync_.surface.get(), sync_.wl_release.get(),
                                                      0, static_cast<uint32_t>(point));
  }

  void attach_and_commit(Slot& slot, FrameTimes& t) {
    static const wp_presentation_feedback_listener kFeedback = {
        .sync_output = [](void*, struct wp_presentation_feedback*, wl_output*) {},
        .presented =
            [](void* data, struct wp_presentation_feedback* f, uint32_t hi, uint32_t lo,
               uint32_t nsec, uint32_t, uint32_t, uint32_t, uint32_t) {
              auto* self = static_cast<std::pair<Client*, FrameTimes*>*>(data);
              int64_t ns = ((int64_t{hi} << 32) | lo) * 1'000'000'000 + nsec;
              self->first->on_feedback(self->second, ns, false);
              wp_presentation_feedback_destroy(f);
            },
        .discarded =
            [](void* data, struct wp_presentation_feedback* f) {
              auto* self = static_cast<std::pair<Client*, FrameTimes*>*>(data);
              self->first->on_feedback(self->second, 0, true);
              wp_presentation_feedback_destroy(f);
            },
    };
    feedback_done_ = false;
    feedback_target_ = {this, &t};
    wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
    wl_surface_damage_buffer(window_.surface(), 0, 0, kWidth, kHeight);
    wp_presentation_feedback_add_listener(
        wp_presentation_feedback(presentation_, window_.surface()), &kFeedback, &feedback_target_);
    slot.busy = true;
    t.committed_ns = now_ns();
    window_.commit_with_frame();
  }

  int summarise(const std::vector<FrameTimes>& times) {
    int early = 0, discarded = 0, signalled_at_export = 0, committed_before_done = 0;
    std::vector<double> latency_ms;
    for (size_t i = 0; i < times.size(); ++i) {
      const FrameTimes& t = times[i];
      if (t.signalled_at_export) ++signalled_at_export;
      if (t.committed_ns < t.render_done_ns) ++committed_before_done;
      if (t.discarded) {
        ++discarded;
        continue;
      }
      double ms = static_cast<double>(t.presented_ns - t.render_done_ns) / 1e6;
      if (t.presented_ns < t.render_done_ns) {
        ++early;
        std::printf("vk-dmabuf-client: frame %zu presented %.2f ms BEFORE its render finished\n", i,
                    -ms);
      }
      latency_ms.push_back(ms);
    }
    std::sort(latency_ms.begin(), latency_ms.end());
    double min = latency_ms.empty() ? 0 : latency_ms.front();
    double median = latency_ms.empty() ? 0 : latency_ms[latency_ms.size() / 2];
    int released = 0;
    for (const auto& s : slots_) released += s->released_before_reuse;
    // Frames go one at a time, so none may be discarded (replaced unseen).
    bool pass = early == 0 && discarded == 0;
    std::printf(
        "vk-dmabuf-client: %s: %d frames (%s sync, %s hand-off), %d presented before render "
        "done, %d discarded, %d committed before render done, %d buffer reuses after release, %d "
        "sync_files already signalled when exported, render done -> presented: min %.2f ms, "
        "median %.2f ms\n",
        pass ? "PASS" : "FAIL", o_.frames, sync_name(), handoff_name(), early, discarded,
        committed_before_done, released, signalled_at_export, min, median);
    return pass ? 0 : 1;
  }

  Options o_;
  WaylandWindow window_;
  wl_registry* registry_ = nullptr;
  wp_presentation* presentation_ = nullptr;
  uint32_t clock_ = ~0u;
  bool feedback_done_ = false;
  std::pair<Client*, FrameTimes*> feedback_target_{nullptr, nullptr};
  UniqueFd vgem_;
  std::unique_ptr<VkRenderer> vk_;
  // After vk_: slots hold images and semaphores of that device.
  std::vector<std::unique_ptr<Slot>> slots_;
  ExplicitSync sync_;
};

}  // namespace
}  // namespace baton::testing

int run(int argc, char** argv) {
  // Tests read this output even when they end the client with a signal.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  auto options = baton::testing::parse(argc, argv);
  if (!options) {
    std::fprintf(
        stderr,
        "usage: %s [--sync explicit|implicit|none] [--handoff late|early] [--frames N] [--busy N] "
        "[--seed N] [--hold-ms MS] [--done-file PATH]\n",
        argv[0]);
    return 2;
  }
  return baton::testing::Client(*options).run();
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
