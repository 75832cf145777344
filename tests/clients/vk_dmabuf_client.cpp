// baton-vk-dmabuf-client: the closest thing to a real game the tests have. A
// Vulkan client (lavapipe in the guest) renders each frame into one of three
// LINEAR images whose memory it exported as dma-bufs, exports the render's
// binary semaphore as a sync_file right after the submit, and hands the buffer
// to the compositor with that fence:
//   --sync explicit: the sync_file becomes a linux-drm-syncobj-v1 acquire
//     point; a buffer is reused only once its release point signalled;
//   --sync implicit: the sync_file becomes the dma-buf's write fence; a buffer
//     is reused only after wl_buffer.release;
//   --sync none: committed right after the submit with no fence at all, for
//     checking that the check below catches an early frame (not for the suite).
// Every frame asks for wp_presentation feedback and is checked: presented no
// earlier than the moment its render-done fence signalled (the fence's own
// signal timestamp, SYNC_IOC_FILE_INFO, CLOCK_MONOTONIC like the presentation
// clock).
//
// usage: baton-vk-dmabuf-client [--sync explicit|implicit|none] [--frames N]
//            [--busy N] [--hold-ms MS] [--done-file PATH]
// --busy: clears of a 1024x1024 image per frame, so the render takes time;
// --done-file: created once the last frame is presented; then the client
// keeps it on screen for --hold-ms. Prints "last colour RRGGBB" and a summary
// line with PASS or FAIL. exit: 0 PASS; 1 FAIL; 77 the compositor or the
// Vulkan device lacks what the mode needs.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <sys/ioctl.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presentation-time-client-protocol.h"
#include "renderer/sync/sync_file.hpp"
#include "renderer/sync/timeline.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/vk_renderer.hpp"
#include "tests/clients/wayland_window.hpp"

namespace baton::testing {
namespace {

using namespace std::chrono_literals;

enum class SyncMode { none, implicit, explicit_ };

struct Options {
  SyncMode sync = SyncMode::explicit_;
  int frames = 30;
  int busy = 40;
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
    } else if (arg == "--frames") {
      o.frames = std::atoi(argv[i + 1]);
    } else if (arg == "--busy") {
      o.busy = std::atoi(argv[i + 1]);
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

// The time (CLOCK_MONOTONIC ns) the sync_file's last fence signalled, 0 while
// one is unsignalled, -1 on error.
int64_t signal_time_ns(int sync_file) {
  sync_file_info info{};
  if (ioctl(sync_file, SYNC_IOC_FILE_INFO, &info) != 0) return -1;
  std::vector<sync_fence_info> fences(info.num_fences);
  info = sync_file_info{};
  info.num_fences = static_cast<uint32_t>(fences.size());
  info.sync_fence_info = reinterpret_cast<uintptr_t>(fences.data());
  if (ioctl(sync_file, SYNC_IOC_FILE_INFO, &info) != 0) return -1;
  int64_t last = 0;
  for (const auto& f : fences) {
    if (f.status <= 0) return f.status < 0 ? -1 : 0;
    last = std::max(last, static_cast<int64_t>(f.timestamp_ns));
  }
  return last;
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
  int64_t render_done_ns = 0;  // the sync_file's signal timestamp
  int64_t presented_ns = 0;
  bool discarded = false;
};

class Client {
 public:
  explicit Client(const Options& o) : o_(o), window_("baton-vk-dmabuf-client") {}
  ~Client() {
    // GPU work and Wayland objects first: slots hold both.
    if (vk_) vk_->wait_idle();
    syncobj_surface_.reset();
    wl_acquire_.reset();
    wl_release_.reset();
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
    std::printf("vk-dmabuf-client: Vulkan device %s, %s sync, %d frames, %d busy clears each\n",
                vk_->name().c_str(), sync_name(), o_.frames, o_.busy);
    if (!vk_->make_scratch(1024, kWidth, kHeight)) return fail("scratch images");
    if (int r = make_slots(); r != 0) return r;
    if (o_.sync == SyncMode::explicit_)
      if (int r = make_timelines(); r != 0) return r;

    std::vector<FrameTimes> times;
    for (int i = 0; i < o_.frames; ++i) {
      FrameTimes t;
      if (int r = frame(i, t); r != 0) return r;
      times.push_back(t);
    }
    std::printf("vk-dmabuf-client: last colour %06x\n", frame_colour(o_.frames - 1));
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

  // Acquire and release points on separate timelines (as baton-dmabuf-client
  // does): a later acquire point would make an earlier release point look
  // signalled on a shared one.
  int make_timelines() {
    auto gpu = open_drm_node("virtio_gpu", NodeKind::render);
    if (!gpu) return fail("no virtio_gpu render node for the timeline: " + gpu.error().describe());
    for (int which = 0; which < 2; ++which) {
      auto timeline = sync::Timeline::create(gpu->get());
      if (!timeline) return fail(timeline.error().describe());
      auto fd = timeline->export_fd();
      if (!fd) return fail(fd.error().describe());
      (which == 0 ? acquire_ : release_).emplace(std::move(*timeline));
      (which == 0 ? wl_acquire_ : wl_release_)
          .reset(wp_linux_drm_syncobj_manager_v1_import_timeline(window_.syncobj(), fd->get()));
    }
    syncobj_surface_.reset(
        wp_linux_drm_syncobj_manager_v1_get_surface(window_.syncobj(), window_.surface()));
    return 0;
  }

  // Waits until the compositor no longer reads `slot` (and our last render
  // into it is done, which the compositor's release implies anyway).
  int wait_reusable(Slot& slot, int i) {
    if (o_.sync == SyncMode::explicit_ && slot.release_point != 0) {
      auto released = release_->wait(slot.release_point, sync::Timeline::WaitFor::signalled, 5s);
      if (!released) return fail(released.error().describe());
      if (!*released)
        return fail("frame " + std::to_string(i) + ": release point " +
                    std::to_string(slot.release_point) + " not signalled in 5 s");
      ++slot.released_before_reuse;
    }
    if (o_.sync != SyncMode::explicit_) {
      auto deadline = std::chrono::steady_clock::now() + 5s;
      while (slot.busy && std::chrono::steady_clock::now() < deadline)
        if (!window_.dispatch_for(50ms)) return fail("the connection died");
      if (slot.busy) return fail("frame " + std::to_string(i) + ": no wl_buffer.release in 5 s");
      if (slot.release_point != 0) ++slot.released_before_reuse;
    }
    return 0;
  }

  int frame(int i, FrameTimes& t) {
    Slot& slot = *slots_[static_cast<size_t>(i) % kSlots];
    if (int r = wait_reusable(slot, i); r != 0) return r;
    // The slot's previous submit, so its fence and command buffer are free.
    if (slot.release_point != 0 && !vk_->wait_fence(slot.fence.get(), 5'000'000'000))
      return fail("the previous render into this buffer never finished");

    int64_t submitted = now_ns();
    if (!vk_->submit_frame(slot.target, frame_colour(i), o_.busy, slot.done.get(), slot.fence.get(),
                           slot.cmd.get()))
      return fail("submitting frame " + std::to_string(i));
    if (o_.sync == SyncMode::none) attach_and_commit(slot, i, t);  // the broken hand-off
    // The submit waits on nothing, so this export cannot block on a foreign fence.
    sync::SyncFile render_done(vk_->export_sync_file(slot.done.get()));
    if (render_done.fd() < 0) return fail("exporting the render-done sync_file");
    int64_t exported = now_ns();
    int64_t at_export = signal_time_ns(render_done.fd());
    if (i == 0)
      std::printf(
          "vk-dmabuf-client: frame 0: the sync_file was %s when exported (%.1f ms after "
          "the submit)\n",
          at_export == 0 ? "unsignalled" : "already signalled",
          static_cast<double>(exported - submitted) / 1e6);

    if (o_.sync == SyncMode::implicit) {
      auto imported = render_done.import_into_dmabuf(slot.target.dmabuf.get(), sync::Access::write);
      if (!imported) return fail("DMA_BUF_IOCTL_IMPORT_SYNC_FILE: " + imported.error().describe());
    }
    if (o_.sync == SyncMode::explicit_) {
      uint64_t point = static_cast<uint64_t>(i) + 1;
      auto imported = acquire_->import_sync_file(point, render_done);
      if (!imported) return fail("acquire point: " + imported.error().describe());
      slot.release_point = point;
      wp_linux_drm_syncobj_surface_v1_set_acquire_point(syncobj_surface_.get(), wl_acquire_.get(),
                                                        0, static_cast<uint32_t>(point));
      wp_linux_drm_syncobj_surface_v1_set_release_point(syncobj_surface_.get(), wl_release_.get(),
                                                        0, static_cast<uint32_t>(point));
    }
    if (o_.sync != SyncMode::none) attach_and_commit(slot, i, t);
    if (o_.sync != SyncMode::explicit_) slot.release_point = static_cast<uint64_t>(i) + 1;

    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!feedback_done_ && std::chrono::steady_clock::now() < deadline)
      if (!window_.dispatch_for(20ms)) return fail("the connection died (protocol error?)");
    if (!feedback_done_) return fail("frame " + std::to_string(i) + ": no presentation feedback");
    auto finished = render_done.wait(5s);
    if (!finished || !*finished) return fail("frame " + std::to_string(i) + ": render never done");
    t.render_done_ns = signal_time_ns(render_done.fd());
    if (t.render_done_ns <= 0) return fail("SYNC_IOC_FILE_INFO on the render-done sync_file");
    return 0;
  }

  void attach_and_commit(Slot& slot, int i, FrameTimes& t) {
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
    (void)i;
    feedback_done_ = false;
    feedback_target_ = {this, &t};
    wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
    wl_surface_damage_buffer(window_.surface(), 0, 0, kWidth, kHeight);
    wp_presentation_feedback_add_listener(
        wp_presentation_feedback(presentation_, window_.surface()), &kFeedback, &feedback_target_);
    slot.busy = true;
    window_.commit_with_frame();
  }

  int summarise(const std::vector<FrameTimes>& times) {
    int early = 0, discarded = 0;
    std::vector<double> latency_ms;
    for (size_t i = 0; i < times.size(); ++i) {
      const FrameTimes& t = times[i];
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
    // Every frame but the last must have been presented (a discarded one was
    // replaced before it showed, which sequential frames never do).
    bool pass = early == 0 && discarded == 0;
    std::printf(
        "vk-dmabuf-client: %s: %d frames (%s sync), %d presented before render done, %d "
        "discarded, %d buffer reuses after release, render done -> presented: min %.2f ms, "
        "median %.2f ms\n",
        pass ? "PASS" : "FAIL", o_.frames, sync_name(), early, discarded, released, min, median);
    return pass ? 0 : 1;
  }

  Options o_;
  WaylandWindow window_;
  wl_registry* registry_ = nullptr;
  wp_presentation* presentation_ = nullptr;
  uint32_t clock_ = ~0u;
  bool feedback_done_ = false;
  std::pair<Client*, FrameTimes*> feedback_target_{nullptr, nullptr};
  std::unique_ptr<VkRenderer> vk_;
  // After vk_: slots hold images and semaphores of that device.
  std::vector<std::unique_ptr<Slot>> slots_;
  std::optional<sync::Timeline> acquire_, release_;
  SyncobjTimeline wl_acquire_, wl_release_;
  SyncobjSurface syncobj_surface_;
};

}  // namespace
}  // namespace baton::testing

int main(int argc, char** argv) {
  // Tests read this output even when they end the client with a signal.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  auto options = baton::testing::parse(argc, argv);
  if (!options) {
    std::fprintf(stderr,
                 "usage: %s [--sync explicit|implicit|none] [--frames N] [--busy N] "
                 "[--hold-ms MS] [--done-file PATH]\n",
                 argv[0]);
    return 2;
  }
  return baton::testing::Client(*options).run();
}
