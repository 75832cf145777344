// baton-dmabuf-client: a test producer that behaves like a GPU client with
// explicit or implicit sync, and checks that the compositor waits for its
// fences before showing a buffer.
//
// Each frame: the buffer is filled with a "not yet rendered" colour
// (magenta), an unsignalled vgem fence stands for the GPU work still in
// flight, the buffer is committed with that fence (implicit: imported as the
// dma-buf's writer; explicit: the linux-drm-syncobj-v1 acquire point), and
// only after --delay-ms is the final colour written and the fence signalled.
// A compositor that honours the fence cannot present the frame before that.
//
// usage: baton-dmabuf-client [--alloc udmabuf|vgem|virtio-gpu|shm]
//            [--sync implicit|explicit|none] [--frames N] [--delay-ms MS]
//            [--hold-ms MS] [--done-file PATH] [--stall-at N]
//            [--misbehave conflicting-points|bad-timeline|many-timelines|many-held|
//                         unordered-planes]
//            [--unshown fenced|unsubmitted] [--on-release poison] [--fullscreen yes]
//            [--tearing yes]
//            [--early-by frame|flip] [--close-fds yes] [--implicit yes|refused]
//            [--format XRGB8888|NV12|P010]
// --hold-ms: how long the last frame stays up (or until SIGTERM, which ends
// the hold early: a test on a slow machine says when); --done-file: created once the
// last frame is presented (or the stall began), for a test to screenshot;
// --stall-at N: frame N's fence is never signalled; passes when the frame is
// still not presented --hold-ms later (the compositor kept the previous one);
// --misbehave: breaks linux-drm-syncobj-v1 and passes when the compositor
// answers with the matching protocol error (many-timelines: more imported
// timelines than one client may hold; many-held: commits waiting for their
// acquire points until what they cost baton passes its bound per client, the
// hold queue's HoldBudget: fds, two per fence waited for). unordered-planes is
// no protocol error: params holding plane 1 alone, destroyed unused; passes
// when the connection lives on, and the caller counts the compositor's fds.
// --unshown fenced|unsubmitted: commits a buffer whose acquire point is an
// unsignalled fence (or has no fence at all), then destroys the surface
// while the commit is held; passes when the release point still signals:
// only after the fence (fenced) or at once (unsubmitted).
// --on-release poison: each buffer has its own release timeline (explicit),
// and the instant a buffer comes back (release point or wl_buffer.release)
// it is painted kPoison (release_poisoner.hpp): the screen must never show it.
// --fullscreen yes: buffers of the fullscreen size, so the compositor may
// scan them out directly.
// --tearing yes: tearing-control's async hint on the surface (with
// --fullscreen yes, the compositor may then flip its buffers asynchronously).
// --close-fds yes: the client closes its dma-buf fds once the compositor has
// the buffers, and draws on through its mappings (explicit sync: no fd is
// needed after that); passes as the frames do.
// --early-by flip: a frame is early when wp_presentation says it reached the
// screen (the KMS flip's time) more than a refresh before its fence
// signalled, not when its frame callback came first: a compositor that
// latches at materialization (baton --readiness-gate off, wlroots) sends
// frame callbacks for buffers still being rendered; only the flip must wait.
// --implicit yes: as a linux-dmabuf v1-v3 client: binds version 3, needs
// XRGB8888 offered with the implicit modifier (DRM_FORMAT_MOD_INVALID, the
// only one such a client may use), and sends its buffers with it.
// --implicit refused: the same buffer, which the compositor must refuse: a
// `create` gets `failed`, then a `create_immed` a protocol error
// (zwp_linux_buffer_params_v1 invalid_wl_buffer, as wlroots answers it).
// --format NV12|P010: a video decoder's frames (udmabuf only): two planes in
// one dma-buf, each colour written as BT.601 limited-range Y'CbCr, which the
// compositor converts back (its screen shows the same colours, give or take
// rounding).
// exit: 0 all frames presented after their fences; 1 a frame was presented
// early, never, or a call failed; 77 the compositor lacks what --sync needs.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

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

#include "sync/sync_file.hpp"
#include "sync/timeline.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/explicit_sync.hpp"
#include "tests/clients/producer_buffer.hpp"
#include "tests/clients/release_poisoner.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/clients/wayland_window.hpp"
#include "tests/support/poll.hpp"

namespace baton::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_end_hold = 0;  // SIGTERM during the hold: it ends now
void on_term(int) { g_end_hold = 1; }

enum class SyncMode { none, implicit, explicit_ };
enum class Misbehave {
  no,
  conflicting_points,
  bad_timeline,
  many_timelines,
  many_held,
  unordered_planes
};
enum class Unshown { no, fenced, unsubmitted };
enum class Implicit { no, yes, refused };

struct Options {
  Allocator allocator = Allocator::udmabuf;
  SyncMode sync = SyncMode::explicit_;
  int frames = 4;
  int delay_ms = 200;
  int hold_ms = 500;
  std::string done_file;
  int stall_at = -1;
  Misbehave misbehave = Misbehave::no;
  Unshown unshown = Unshown::no;
  bool poison = false;
  bool fullscreen = false;
  bool tearing = false;  // tearing-control's async hint on the surface
  bool early_by_flip = false;
  bool close_fds = false;
  Implicit implicit = Implicit::no;
  uint32_t format = DRM_FORMAT_XRGB8888;
};

constexpr int32_t kWindowSize = 256;           // square, unless fullscreen
constexpr uint32_t kNotRendered = 0x00ff00ff;  // magenta: must never be seen
constexpr uint32_t kColours[2] = {0x0020c040, 0x002060e0};
constexpr int kSkip = 77;

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (value == nullptr) return std::nullopt;
    ++i;
    if (arg == "--alloc") {
      auto a = parse_allocator(value);
      if (!a) return std::nullopt;
      o.allocator = *a;
    } else if (arg == "--sync") {
      std::string_view v = value;
      if (v == "none")
        o.sync = SyncMode::none;
      else if (v == "implicit")
        o.sync = SyncMode::implicit;
      else if (v == "explicit")
        o.sync = SyncMode::explicit_;
      else
        return std::nullopt;
    } else if (arg == "--frames") {
      o.frames = std::atoi(value);
    } else if (arg == "--delay-ms") {
      o.delay_ms = std::atoi(value);
    } else if (arg == "--hold-ms") {
      o.hold_ms = std::atoi(value);
    } else if (arg == "--done-file") {
      o.done_file = value;
    } else if (arg == "--stall-at") {
      o.stall_at = std::atoi(value);
    } else if (arg == "--misbehave") {
      std::string_view v = value;
      if (v == "conflicting-points")
        o.misbehave = Misbehave::conflicting_points;
      else if (v == "bad-timeline")
        o.misbehave = Misbehave::bad_timeline;
      else if (v == "many-timelines")
        o.misbehave = Misbehave::many_timelines;
      else if (v == "many-held")
        o.misbehave = Misbehave::many_held;
      else if (v == "unordered-planes")
        o.misbehave = Misbehave::unordered_planes;
      else
        return std::nullopt;
    } else if (arg == "--fullscreen") {
      if (std::string_view(value) != "yes") return std::nullopt;
      o.fullscreen = true;
    } else if (arg == "--tearing") {
      if (std::string_view(value) != "yes") return std::nullopt;
      o.tearing = true;
    } else if (arg == "--close-fds") {
      if (std::string_view(value) != "yes") return std::nullopt;
      o.close_fds = true;
    } else if (arg == "--early-by") {
      std::string_view v = value;
      if (v != "frame" && v != "flip") return std::nullopt;
      o.early_by_flip = v == "flip";
    } else if (arg == "--on-release") {
      if (std::string_view(value) != "poison") return std::nullopt;
      o.poison = true;
    } else if (arg == "--format") {
      std::string_view v = value;
      if (v == "XRGB8888")
        o.format = DRM_FORMAT_XRGB8888;
      else if (v == "NV12")
        o.format = DRM_FORMAT_NV12;
      else if (v == "P010")
        o.format = DRM_FORMAT_P010;
      else
        return std::nullopt;
    } else if (arg == "--implicit") {
      std::string_view v = value;
      if (v == "yes")
        o.implicit = Implicit::yes;
      else if (v == "refused")
        o.implicit = Implicit::refused;
      else
        return std::nullopt;
    } else if (arg == "--unshown") {
      std::string_view v = value;
      if (v == "fenced")
        o.unshown = Unshown::fenced;
      else if (v == "unsubmitted")
        o.unshown = Unshown::unsubmitted;
      else
        return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  // wl_shm buffers carry no fences; poison needs a release to wait for.
  if (o.allocator == Allocator::shm && o.sync != SyncMode::none) return std::nullopt;
  if (o.frames < 1 || o.delay_ms < 0) return std::nullopt;
  return o;
}

// The presentation clock (wlroots reports CLOCK_MONOTONIC).
int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One slot of the client's double buffer.
struct Slot {
  ProducerBuffer buffer;
  WlBuffer wl;
  uint64_t release_point = 0;  // explicit sync: when the compositor is done
  // --on-release poison: the slot's own release timeline, and its poisoner.
  std::optional<sync::Timeline> release_timeline;
  SyncobjTimeline wl_release;
  std::unique_ptr<ReleasePoisoner> poisoner;
};

class Producer {
 public:
  explicit Producer(const Options& options)
      : o_(options), window_("baton-dmabuf-client", options.fullscreen) {}

  int run() {
    if (!window_.display()) return fail("cannot connect: " + window_.error());
    if (o_.allocator != Allocator::shm && !window_.dmabuf())
      return skip(
          "the compositor advertises no zwp_linux_dmabuf_v1 (v3+): its renderer "
          "cannot import dma-bufs");
    if (o_.sync == SyncMode::explicit_ && !window_.syncobj())
      return skip("the compositor advertises no wp_linux_drm_syncobj_manager_v1");
    if (int r = open_devices(); r != 0) return r;
    if (o_.implicit != Implicit::no)
      if (int r = bind_version_3(); r != 0) return r;
    if (o_.implicit == Implicit::refused) return expect_implicit_refused();
    if (o_.fullscreen) {
      if (window_.width() <= 0 || window_.height() <= 0)
        return fail("fullscreen was configured without a size");
      width_ = window_.width();
      height_ = window_.height();
      std::printf("dmabuf-client: fullscreen at %dx%d\n", width_, height_);
    }
    if (o_.tearing && !window_.request_tearing())
      return fail("--tearing yes: the compositor has no wp_tearing_control_manager_v1");
    if (int r = make_slots(); r != 0) return r;
    if (o_.misbehave == Misbehave::bad_timeline) return send_bad_timeline();
    if (o_.misbehave == Misbehave::unordered_planes) return send_unordered_planes();
    if (o_.sync == SyncMode::explicit_)
      if (std::string why = make_explicit_sync(window_, sync_); !why.empty()) return fail(why);
    if (o_.misbehave == Misbehave::conflicting_points) return send_conflicting_points();
    if (o_.misbehave == Misbehave::many_timelines) return send_many_timelines();
    if (o_.misbehave == Misbehave::many_held) return send_many_held();
    if (o_.unshown != Unshown::no) return destroy_while_held();

    int early = 0;
    for (int i = 0; i < o_.frames; ++i) {
      int r = frame(i, early);
      if (r == kStalled) return 0;
      if (r != 0) return r;
    }
    std::printf(
        "dmabuf-client: %d frames (%s, %s sync), %d presented before their fence%s\n", o_.frames,
        allocator_name(o_.allocator), sync_name(), early,
        o_.early_by_flip ? (" (by the flips of " + std::to_string(flips_) + ")").c_str() : "");
    if (o_.early_by_flip && flips_ < o_.frames / 2)
      return fail("only " + std::to_string(flips_) + " frames reported a flip");
    if (o_.poison)
      std::printf("dmabuf-client: %d buffers painted %06x the instant they came back\n",
                  poisoned_.load(), kPoison);
    done();
    // Keep the last frame on screen for screenshots.
    hold();
    return early == 0 ? 0 : 1;
  }

 private:
  // Keeps the connection for --hold-ms, or until SIGTERM; whether it lived.
  // Outside the hold SIGTERM ends the client as always.
  bool hold() {
    struct sigaction term {};
    term.sa_handler = on_term;
    sigaction(SIGTERM, &term, nullptr);
    const auto end = Clock::now() + std::chrono::milliseconds(o_.hold_ms);
    bool lived = true;
    while (g_end_hold == 0 && lived) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      if (left.count() <= 0) break;
      lived = window_.dispatch_for(std::min(left, std::chrono::milliseconds(100)));
    }
    term.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &term, nullptr);
    return lived;
  }

  const char* sync_name() const {
    switch (o_.sync) {
      case SyncMode::none:
        return "no";
      case SyncMode::implicit:
        return "implicit";
      case SyncMode::explicit_:
        return "explicit";
    }
    return "?";
  }
  int fail(const std::string& why) {
    std::printf("dmabuf-client: FAIL: %s\n", why.c_str());
    return 1;
  }
  int skip(const std::string& why) {
    std::printf("dmabuf-client: SKIP: %s\n", why.c_str());
    return kSkip;
  }

  static constexpr int kStalled = -1;

  void done() {
    if (o_.done_file.empty()) return;
    UniqueFd f(open(o_.done_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (!f) std::printf("dmabuf-client: cannot create %s\n", o_.done_file.c_str());
  }

  // Passes when the connection died of protocol error `code` on `interface`.
  int expect_protocol_error(const char* interface, uint32_t code) {
    if (wl_display_roundtrip(window_.display()) >= 0)
      return fail(std::string("no protocol error; expected ") + interface + " error " +
                  std::to_string(code));
    const wl_interface* got = nullptr;
    uint32_t id = 0;
    uint32_t got_code = wl_display_get_protocol_error(window_.display(), &got, &id);
    const char* name = got != nullptr ? got->name : "(none)";
    std::printf("dmabuf-client: disconnected with protocol error %u on %s@%u\n", got_code, name,
                id);
    if (got == nullptr || std::string_view(name) != interface || got_code != code)
      return fail(std::string("expected error ") + std::to_string(code) + " on " + interface);
    return 0;
  }

  // Params that hold plane 1 alone (planes may come in any order until
  // create), destroyed unused: legal, and each carried an fd the compositor
  // must close (wlroots 0.19.2 closed only the first n_planes).
  int send_unordered_planes() {
    constexpr int kParams = 50;
    const ProducerBuffer& buffer = slots_[0].buffer;
    for (int i = 0; i < kParams; ++i) {
      zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(window_.dmabuf());
      zwp_linux_buffer_params_v1_add(params, buffer.dmabuf(), 1, 0, buffer.stride(),
                                     DRM_FORMAT_MOD_LINEAR >> 32,
                                     DRM_FORMAT_MOD_LINEAR & 0xffffffff);
      zwp_linux_buffer_params_v1_destroy(params);
    }
    if (wl_display_roundtrip(window_.display()) < 0)
      return fail("a protocol error for params destroyed unused");
    std::printf("dmabuf-client: PASS: %d params holding plane 1 alone, destroyed unused\n",
                kParams);
    return 0;
  }

  // A timeline fd that is no DRM syncobj (an eventfd).
  int send_bad_timeline() {
    UniqueFd not_syncobj(::eventfd(0, EFD_CLOEXEC));
    sync_.wl_acquire.reset(
        wp_linux_drm_syncobj_manager_v1_import_timeline(window_.syncobj(), not_syncobj.get()));
    return expect_protocol_error("wp_linux_drm_syncobj_manager_v1",
                                 WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_INVALID_TIMELINE);
  }

  // Acquire and release at the same point of one timeline.
  int send_conflicting_points() {
    Slot& slot = slots_[0];
    slot.buffer.write(kColours[0]);
    wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                      0, 5);
    wp_linux_drm_syncobj_surface_v1_set_release_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                      0, 5);
    wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
    wl_surface_commit(window_.surface());
    return expect_protocol_error("wp_linux_drm_syncobj_surface_v1",
                                 WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_CONFLICTING_POINTS);
  }

  // Passes when the connection died of an implementation error (wl_display).
  int expect_implementation_error() {
    return expect_protocol_error("wl_display", WL_DISPLAY_ERROR_IMPLEMENTATION);
  }

  // One more imported timeline than a client may hold at once.
  int send_many_timelines() {
    constexpr int kOverCap = 257;  // LinuxDrmSyncobj::kMaxTimelinesPerClient + 1
    std::vector<SyncobjTimeline> imported;
    for (int i = 0; i < kOverCap; ++i) {
      auto fd = sync_.acquire->export_fd();
      if (!fd) return fail(fd.error().describe());
      imported.emplace_back(
          wp_linux_drm_syncobj_manager_v1_import_timeline(window_.syncobj(), fd->get()));
    }
    return expect_implementation_error();
  }

  // Commits whose acquire points never get a fence, until baton says the
  // client went past its bound (the hold queue's HoldBudget: 1024 fds, and
  // each fence baton waits for costs it two). More than kMost is a failure.
  int send_many_held() {
    constexpr int kMost = 2000;
    constexpr int kBatch = 50;
    for (int i = 0; i < kMost; ++i) {
      Slot& slot = slots_[static_cast<size_t>(i) % slots_.size()];
      const auto point = static_cast<uint32_t>(i + 1);
      wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                        0, point);
      wp_linux_drm_syncobj_surface_v1_set_release_point(sync_.surface.get(), sync_.wl_release.get(),
                                                        0, point);
      wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
      wl_surface_commit(window_.surface());
      if (i % kBatch == kBatch - 1 && wl_display_roundtrip(window_.display()) < 0) {
        std::printf("dmabuf-client: %d commits held\n", i + 1);
        break;
      }
    }
    return expect_implementation_error();
  }

  // A held commit's surface dies: its release point must still come, and not
  // before the buffer's producer is done with it.
  int destroy_while_held() {
    Slot& slot = slots_[0];
    slot.buffer.write(kColours[0]);
    std::optional<PendingFence> fence;
    if (o_.unshown == Unshown::fenced) {
      auto pending = make_pending_fence(vgem_.get());
      if (!pending) return fail("vgem fence: " + pending.error().describe());
      fence.emplace(std::move(*pending));
      if (auto imported = sync_.acquire->import_sync_file(1, fence->sync_file); !imported)
        return fail(imported.error().describe());
    }
    wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                      0, 1);
    wp_linux_drm_syncobj_surface_v1_set_release_point(sync_.surface.get(), sync_.wl_release.get(),
                                                      0, 1);
    wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
    wl_surface_commit(window_.surface());
    if (wl_display_roundtrip(window_.display()) < 0) return fail("protocol error on commit");
    sync_.surface.reset();
    window_.destroy_surface();
    if (wl_display_roundtrip(window_.display()) < 0) return fail("protocol error on destroy");
    auto start = Clock::now();
    if (fence) {
      // The producer is still writing: no release yet.
      auto early = sync_.release->wait(1, sync::Timeline::WaitFor::signalled, 300ms);
      if (!early) return fail(early.error().describe());
      if (*early) return fail("the release point signalled while the acquire fence was pending");
      if (auto signalled = fence->fence.signal(); !signalled)
        return fail(signalled.error().describe());
    }
    auto released = sync_.release->wait(1, sync::Timeline::WaitFor::signalled, 2s);
    if (!released) return fail(released.error().describe());
    if (!*released) return fail("the release point of the unshown commit never signalled");
    std::printf(
        "dmabuf-client: unshown commit (%s): release point signalled %.1f ms after the "
        "surface went%s\n",
        o_.unshown == Unshown::fenced ? "fenced" : "unsubmitted", ms_since(start),
        fence ? " (acquire fence signalled at 300 ms)" : "");
    return 0;
  }

  // --implicit: linux-dmabuf bound at version 3, its modifier events kept.
  int bind_version_3() {
    static const zwp_linux_dmabuf_v1_listener kFormats = {
        .format = [](void*, zwp_linux_dmabuf_v1*, uint32_t) {},  // versions 1 and 2 only
        .modifier =
            [](void* data, zwp_linux_dmabuf_v1*, uint32_t format, uint32_t hi, uint32_t lo) {
              auto* self = static_cast<Producer*>(data);
              const uint64_t modifier = (uint64_t{hi} << 32) | lo;
              ++self->v3_pairs_;
              if (format == DRM_FORMAT_XRGB8888 && modifier == DRM_FORMAT_MOD_LINEAR)
                self->v3_xrgb_linear_ = true;
              if (modifier != DRM_FORMAT_MOD_INVALID) return;
              ++self->v3_implicit_;
              if (format == DRM_FORMAT_XRGB8888) self->v3_xrgb_implicit_ = true;
            },
    };
    static const wl_registry_listener kRegistry = {
        .global =
            [](void* data, wl_registry* registry, uint32_t name, const char* interface,
               uint32_t version) {
              auto* self = static_cast<Producer*>(data);
              if (std::string_view(interface) != zwp_linux_dmabuf_v1_interface.name || version < 3)
                return;
              self->dmabuf_v3_.reset(static_cast<zwp_linux_dmabuf_v1*>(
                  wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3)));
              // Before the roundtrip: a v3 global sends its pairs at bind.
              zwp_linux_dmabuf_v1_add_listener(self->dmabuf_v3_.get(), &kFormats, self);
            },
        .global_remove = [](void*, wl_registry*, uint32_t) {},
    };
    WlPtr<wl_registry> registry(wl_display_get_registry(window_.display()));
    wl_registry_add_listener(registry.get(), &kRegistry, this);
    if (wl_display_roundtrip(window_.display()) < 0) return fail("roundtrip failed");
    if (!dmabuf_v3_) return skip("no zwp_linux_dmabuf_v1 of version 3 or more");
    if (wl_display_roundtrip(window_.display()) < 0) return fail("roundtrip failed");
    std::printf(
        "dmabuf-client: linux-dmabuf v3: %d format/modifier pairs, %d with the implicit "
        "modifier, XRGB8888 among them: %s\n",
        v3_pairs_, v3_implicit_, v3_xrgb_implicit_ ? "yes" : "no");
    if (!v3_xrgb_implicit_)
      return fail(
          "XRGB8888 is not offered with the implicit modifier: a v1-v3 client cannot use it");
    // A v3 client that needs a LINEAR buffer (a V4L2 producer, a GPU client
    // that must not send the implicit modifier) must still be told of it.
    if (!v3_xrgb_linear_)
      return fail("XRGB8888 is not offered with LINEAR to a v3 client, only the implicit modifier");
    return 0;
  }

  // Params of `buffer`'s planes: LINEAR, or the implicit modifier (--implicit).
  zwp_linux_buffer_params_v1* make_params(const ProducerBuffer& buffer) {
    const bool implicit = o_.implicit != Implicit::no;
    const uint64_t modifier = implicit ? DRM_FORMAT_MOD_INVALID : DRM_FORMAT_MOD_LINEAR;
    zwp_linux_buffer_params_v1* params =
        zwp_linux_dmabuf_v1_create_params(implicit ? dmabuf_v3_.get() : window_.dmabuf());
    for (int plane = 0; plane < buffer.planes(); ++plane)
      zwp_linux_buffer_params_v1_add(params, buffer.dmabuf(), static_cast<uint32_t>(plane),
                                     buffer.plane_offset(plane), buffer.plane_stride(plane),
                                     static_cast<uint32_t>(modifier >> 32),
                                     static_cast<uint32_t>(modifier & 0xffffffff));
    return params;
  }

  // --implicit refused: `failed` for create, a protocol error for create_immed.
  int expect_implicit_refused() {
    auto buffer = ProducerBuffer::create(o_.allocator, card_.get(), static_cast<uint32_t>(width_),
                                         static_cast<uint32_t>(height_));
    if (!buffer) return fail("allocating a buffer: " + buffer.error().describe());
    static const zwp_linux_buffer_params_v1_listener kCreated = {
        .created =
            [](void* data, zwp_linux_buffer_params_v1*, wl_buffer* wl) {
              *static_cast<int*>(data) = 1;
              wl_buffer_destroy(wl);
            },
        .failed = [](void* data, zwp_linux_buffer_params_v1*) { *static_cast<int*>(data) = -1; },
    };
    int outcome = 0;
    zwp_linux_buffer_params_v1* params = make_params(*buffer);
    zwp_linux_buffer_params_v1_add_listener(params, &kCreated, &outcome);
    zwp_linux_buffer_params_v1_create(params, width_, height_, DRM_FORMAT_XRGB8888, 0);
    while (outcome == 0)
      if (wl_display_dispatch(window_.display()) < 0) return fail("the connection died on create");
    zwp_linux_buffer_params_v1_destroy(params);
    if (outcome != -1) return fail("create: the compositor took the buffer");
    std::printf("dmabuf-client: create: failed, as it must be (%s buffer, implicit modifier)\n",
                allocator_name(o_.allocator));
    params = make_params(*buffer);
    wl_buffer* wl =
        zwp_linux_buffer_params_v1_create_immed(params, width_, height_, DRM_FORMAT_XRGB8888, 0);
    (void)wl;  // freed with the connection
    return expect_protocol_error("zwp_linux_buffer_params_v1",
                                 ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER);
  }

  int open_devices() {
    auto vgem = open_drm_node("vgem", NodeKind::primary);
    if (!vgem) return fail("no vgem card node (modprobe vgem): " + vgem.error().describe());
    vgem_ = std::move(*vgem);
    if (o_.allocator == Allocator::vgem) card_ = UniqueFd(fcntl(vgem_.get(), F_DUPFD_CLOEXEC, 0));
    if (o_.allocator == Allocator::virtio_gpu) {
      auto card = open_drm_node("virtio_gpu", NodeKind::primary);
      if (!card) return fail("no virtio_gpu card node: " + card.error().describe());
      card_ = std::move(*card);
    }
    return 0;
  }

  int make_slots() {
    for (int i = 0; i < 2; ++i) {
      auto buffer = ProducerBuffer::create(o_.allocator, card_.get(), static_cast<uint32_t>(width_),
                                           static_cast<uint32_t>(height_), o_.format);
      if (!buffer) return fail("allocating a buffer: " + buffer.error().describe());
      if (o_.allocator == Allocator::shm) {
        if (window_.shm() == nullptr) return fail("the compositor advertises no wl_shm");
        wl_shm_pool* pool = wl_shm_create_pool(window_.shm(), buffer->shm_fd(),
                                               static_cast<int32_t>(buffer->shm_size()));
        wl_buffer* wl = wl_shm_pool_create_buffer(pool, 0, width_, height_,
                                                  static_cast<int32_t>(buffer->stride()),
                                                  WL_SHM_FORMAT_XRGB8888);
        wl_shm_pool_destroy(pool);
        slots_.push_back(Slot{std::move(*buffer), WlBuffer(wl), 0, {}, {}, {}});
        continue;
      }
      zwp_linux_buffer_params_v1* params = make_params(*buffer);
      wl_buffer* wl =
          zwp_linux_buffer_params_v1_create_immed(params, width_, height_, buffer->format(), 0);
      zwp_linux_buffer_params_v1_destroy(params);
      slots_.push_back(Slot{std::move(*buffer), WlBuffer(wl), 0, {}, {}, {}});
    }
    if (o_.poison)
      if (int r = make_poisoners(); r != 0) return r;
    // A rejected import is a protocol error: find out now, not mid-frame.
    if (wl_display_roundtrip(window_.display()) < 0)
      return fail("the compositor rejected the dma-buf (protocol error)");
    if (o_.close_fds) {
      // Implicit sync puts each frame's fence on the dma-buf: it needs the fd.
      if (o_.sync != SyncMode::explicit_) return fail("--close-fds needs --sync explicit");
      for (Slot& slot : slots_) slot.buffer.close_dmabuf();
      std::printf("dmabuf-client: closed the dma-buf fds of %zu buffers\n", slots_.size());
    }
    return 0;
  }

  int make_poisoners() {
    static const wl_buffer_listener kRelease = {
        .release = [](void* data, wl_buffer*) { static_cast<ReleasePoisoner*>(data)->released(); },
    };
    UniqueFd gpu;
    if (o_.sync == SyncMode::explicit_) {
      auto node = open_drm_node("virtio_gpu", NodeKind::render);
      if (!node)
        return fail("no virtio_gpu render node for the timelines: " + node.error().describe());
      gpu = std::move(*node);
    }
    for (Slot& slot : slots_) {
      slot.poisoner = std::make_unique<ReleasePoisoner>(slot.buffer, poisoned_);
      if (o_.sync != SyncMode::explicit_) {  // back with wl_buffer.release
        wl_buffer_add_listener(slot.wl.get(), &kRelease, slot.poisoner.get());
        continue;
      }
      auto timeline = sync::Timeline::create(gpu.get());
      if (!timeline) return fail(timeline.error().describe());
      auto fd = timeline->export_fd();
      if (!fd) return fail(fd.error().describe());
      slot.release_timeline.emplace(std::move(*timeline));
      slot.wl_release.reset(
          wp_linux_drm_syncobj_manager_v1_import_timeline(window_.syncobj(), fd->get()));
    }
    return 0;
  }

  // --on-release poison: until the slot is back (and painted poison).
  int wait_poisoned(Slot& slot, int i) {
    if (o_.sync == SyncMode::implicit) {
      bool alive = true;
      test::poll_until([&] { return slot.poisoner->back(); }, 5s,
                       [&] {
                         alive = window_.dispatch_for(10ms);
                         return alive;
                       });
      if (!alive) return fail("the connection died");
    } else {
      slot.poisoner->wait_back(5s);
    }
    if (!slot.poisoner->back())
      return fail("frame " + std::to_string(i) + ": its buffer never came back in 5 s");
    return 0;
  }

  int frame(int i, int& early) {
    Slot& slot = slots_[static_cast<size_t>(i) % slots_.size()];
    if (slot.poisoner) {
      if (int r = wait_poisoned(slot, i); r != 0) return r;
    } else if (slot.release_point != 0) {
      // The compositor signals the release point once it no longer reads.
      auto released =
          sync_.release->wait(slot.release_point, sync::Timeline::WaitFor::signalled, 5s);
      if (!released) return fail(released.error().describe());
      if (!*released)
        return fail("release point " + std::to_string(slot.release_point) +
                    " never signalled: the compositor holds the buffer");
      std::printf("dmabuf-client: frame %d: release point %llu signalled before reuse\n", i,
                  static_cast<unsigned long long>(slot.release_point));
    }
    std::optional<PendingFence> fence;
    if (o_.sync != SyncMode::none) {
      slot.buffer.write(kNotRendered);
      auto pending = make_pending_fence(vgem_.get());
      if (!pending) return fail("vgem fence: " + pending.error().describe());
      fence.emplace(std::move(*pending));
    }
    uint32_t colour = kColours[i % 2];
    if (o_.sync == SyncMode::none) slot.buffer.write(colour);
    if (o_.sync == SyncMode::implicit) {
      auto imported =
          fence->sync_file.import_into_dmabuf(slot.buffer.dmabuf(), sync::Access::write);
      if (!imported) return fail(imported.error().describe());
    }
    if (o_.sync == SyncMode::explicit_) {
      uint64_t acquire = static_cast<uint64_t>(i) + 1;
      // On the shared release timeline the point follows the acquire point;
      // on the slot's own one it counts the slot's uses.
      slot.release_point = slot.release_timeline ? slot.release_point + 1 : acquire;
      auto imported = sync_.acquire->import_sync_file(acquire, fence->sync_file);
      if (!imported) return fail(imported.error().describe());
      wp_linux_drm_syncobj_surface_v1_set_acquire_point(sync_.surface.get(), sync_.wl_acquire.get(),
                                                        0, static_cast<uint32_t>(acquire));
      wp_linux_drm_syncobj_surface_v1_set_release_point(
          sync_.surface.get(),
          slot.release_timeline ? slot.wl_release.get() : sync_.wl_release.get(), 0,
          static_cast<uint32_t>(slot.release_point));
      if (slot.poisoner) slot.poisoner->watch(*slot.release_timeline, slot.release_point);
    } else if (slot.poisoner) {
      slot.poisoner->watch_release_event();
    }
    wl_surface_attach(window_.surface(), slot.wl.get(), 0, 0);
    wl_surface_damage_buffer(window_.surface(), 0, 0, width_, height_);
    auto committed = Clock::now();
    uint32_t serial = window_.commit_with_frame();

    if (fence && i == o_.stall_at) {
      // The "GPU" never finishes: the compositor must keep the previous frame.
      std::printf("dmabuf-client: frame %d: stalling (fence never signalled)\n", i);
      std::fflush(stdout);
      done();
      const auto stalled_at = Clock::now();
      if (!hold()) return fail("the connection died while stalled");
      if (window_.frame_done(serial))
        return fail("frame " + std::to_string(i) +
                    " was presented though its fence never signalled");
      std::printf("dmabuf-client: frame %d still held after %.0f ms, as it must be\n", i,
                  ms_since(stalled_at));
      return kStalled;
    }
    double signalled_at = 0;
    int64_t signalled_ns = 0;
    if (fence) {
      // The "GPU" is still busy: the compositor must not present this yet.
      if (!window_.dispatch_for(std::chrono::milliseconds(o_.delay_ms)))
        return fail("the connection died (protocol error?)");
      bool presented_early = window_.frame_done(serial);
      slot.buffer.write(colour);
      signalled_at = ms_since(committed);
      signalled_ns = monotonic_ns();
      auto signalled = fence->fence.signal();
      if (!signalled) return fail(signalled.error().describe());
      if (presented_early && !o_.early_by_flip) ++early;
    }
    // The first two frames may wait for lavapipe to compile: it JIT-compiles
    // a shader variant the first time it draws a texture format and state,
    // on its queue thread and holding its queue lock, and baton's main loop
    // waits on that lock in vkCreateImageView (strace -k in the guest caught
    // it for a new swapchain slot; Mesa's source takes the same lock for a
    // new client buffer's view). The guest's shader
    // cache starts empty at each boot: release-poison's first cell logged
    // single dispatches of 0.9 to 5.3 s (0.5 s with the cache kept across
    // boots; on the host 30-47 ms cold, 3-5 ms warm), and frame 1 came
    // after 2.6 s or not within 5 on a busy machine. Later frames get 5 s.
    const auto limit = i <= 1 ? 60s : 5s;
    const std::string in = " in " + std::to_string(limit.count()) + " s";
    if (!window_.wait_frame(serial, limit))
      return fail("frame " + std::to_string(i) + " was never presented (no frame callback" + in +
                  ")");
    if (o_.early_by_flip) {
      if (!window_.has_presentation()) return fail("--early-by flip needs wp_presentation");
      if (!window_.wait_feedback(serial, limit))
        return fail("frame " + std::to_string(i) + ": no presentation feedback" + in);
      const WaylandWindow::Feedback shown = *window_.feedback(serial);
      if (shown.presented) {
        ++flips_;
        // The flip's time is the vblank at which the commit latched; a
        // vblank handled late (vkms under TCG) carries its ideal time, up to
        // a refresh before the handler saw the signalled fence. A flip that
        // did not wait is a whole fence delay early.
        const bool before = fence && shown.when_ns + shown.refresh_ns < signalled_ns;
        const double after = static_cast<double>(shown.when_ns - signalled_ns) / 1e6;
        std::printf("dmabuf-client: frame %d: flipped %.1f ms after its fence signalled%s\n", i,
                    after, before ? "  <-- BEFORE its fence" : "");
        if (before) ++early;
      }
    }
    std::printf("dmabuf-client: frame %d: fence signalled at %.1f ms, presented at %.1f ms%s\n", i,
                signalled_at, ms_since(committed),
                fence && ms_since(committed) < signalled_at ? "  <-- BEFORE its fence" : "");
    return 0;
  }

  Options o_;
  WaylandWindow window_;
  WlPtr<zwp_linux_dmabuf_v1> dmabuf_v3_;  // --implicit
  int v3_pairs_ = 0, v3_implicit_ = 0;
  bool v3_xrgb_implicit_ = false, v3_xrgb_linear_ = false;
  UniqueFd vgem_, card_;
  std::vector<Slot> slots_;
  ExplicitSync sync_;
  std::atomic<int> poisoned_{0};
  int flips_ = 0;  // frames whose presentation feedback reported a flip
  int32_t width_ = kWindowSize, height_ = kWindowSize;
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
        "usage: %s [--alloc udmabuf|vgem|virtio-gpu|shm] [--sync implicit|explicit|none] "
        "[--frames N] [--delay-ms MS] [--hold-ms MS] [--done-file PATH] [--stall-at N] "
        "[--misbehave conflicting-points|bad-timeline|many-timelines|many-held|unordered-planes] "
        "[--unshown fenced|unsubmitted] [--on-release poison] [--fullscreen yes] [--tearing yes] "
        "[--early-by frame|flip] [--close-fds yes] [--implicit yes|refused]\n",
        argv[0]);
    return 2;
  }
  return baton::testing::Producer(*options).run();
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
