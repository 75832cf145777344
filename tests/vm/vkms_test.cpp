// vkms in the guest (built by fetch-vkms.sh), beside virtio_gpu and vgem:
// what it offers, and its writeback connector as the oracle of what a KMS
// commit put on screen. vkms composes every plane of a commit into the
// writeback framebuffer and signals WRITEBACK_OUT_FENCE_PTR when it has, so a
// test can read back exactly the frame a commit showed, and when.
// vkms_nofence (the same driver, refusing IN_FENCE_FD like NVIDIA before 560)
// and vkms_vrr (a VRR panel, below) are loaded in the same boot under their
// own driver names.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "sync/sync_file.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/dumb_buffer.hpp"
#include "tests/clients/udmabuf.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/vm/expect_ok.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using sync::SyncFile;
using testing::DumbBuffer;
using testing::NodeKind;

// How long a commit is held on an unsignalled fence before the test signals it.
constexpr auto kHold = 300ms;
// How long a commit that may complete has to do so: a liveness bound. Quiet,
// vkms completes within a vblank; a TCG guest on a busy host once took over a
// second (the test failed on 1000 ms), so the bound is far above that.
constexpr auto kComplete = 10s;

template <auto Free>
struct Freer {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};
using ResPtr = std::unique_ptr<drmModeRes, Freer<drmModeFreeResources>>;
using PlaneResPtr = std::unique_ptr<drmModePlaneRes, Freer<drmModeFreePlaneResources>>;
using ConnectorPtr = std::unique_ptr<drmModeConnector, Freer<drmModeFreeConnector>>;
using PlanePtr = std::unique_ptr<drmModePlane, Freer<drmModeFreePlane>>;
using PropsPtr = std::unique_ptr<drmModeObjectProperties, Freer<drmModeFreeObjectProperties>>;
using PropPtr = std::unique_ptr<drmModePropertyRes, Freer<drmModeFreeProperty>>;
using BlobPtr = std::unique_ptr<drmModePropertyBlobRes, Freer<drmModeFreePropertyBlob>>;
using AtomicPtr = std::unique_ptr<drmModeAtomicReq, Freer<drmModeAtomicFree>>;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The sync_file `fd` is signalled within `timeout`.
bool signals_within(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, static_cast<int>(timeout.count())) == 1;
}

std::string node_path(int fd) {
  char path[64];
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = readlink(link.c_str(), path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : "?";
}

// CPU pixels of a buffer (XRGB8888), bracketed by DMA_BUF_IOCTL_SYNC so
// caches and the buffer's implicit fences are honoured.
struct Pixels {
  uint32_t* data;
  uint32_t stride;  // bytes
  int dmabuf;
  uint32_t* row(uint32_t y) const { return data + size_t{y} * (stride / 4); }
};
class CpuAccess {
 public:
  CpuAccess(int dmabuf, uint64_t access) : dmabuf_(dmabuf), access_(access) {
    dma_buf_sync s{DMA_BUF_SYNC_START | access_};
    ioctl(dmabuf_, DMA_BUF_IOCTL_SYNC, &s);
  }
  ~CpuAccess() {
    dma_buf_sync s{DMA_BUF_SYNC_END | access_};
    ioctl(dmabuf_, DMA_BUF_IOCTL_SYNC, &s);
  }
  CpuAccess(const CpuAccess&) = delete;
  CpuAccess& operator=(const CpuAccess&) = delete;

 private:
  int dmabuf_;
  uint64_t access_;
};

using Picture = std::function<uint32_t(uint32_t x, uint32_t y)>;

// A frame where every pixel differs from its neighbours and `seed` changes
// every pixel, so a shifted, stale or half-written frame cannot pass.
Picture pattern(uint32_t seed) {
  return [seed](uint32_t x, uint32_t y) -> uint32_t {
    uint32_t r = (x + seed * 40) & 0xff, g = (y + seed * 90) & 0xff,
             b = (x * 3 + y * 5 + seed * 7) & 0xff;
    return 0xff000000u | r << 16 | g << 8 | b;
  };
}
Picture solid(uint32_t colour) {
  return [colour](uint32_t, uint32_t) { return colour; };
}

void draw(const Pixels& px, uint32_t w, uint32_t h, const Picture& picture) {
  CpuAccess cpu(px.dmabuf, DMA_BUF_SYNC_WRITE);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) px.row(y)[x] = picture(x, y);
}

// Compares the colour channels (X is padding); counts the pixels whose X byte
// is not 0xff separately, for the record.
struct Comparison {
  size_t pixels = 0, mismatches = 0, x_not_ff = 0;
  uint32_t first_x = 0, first_y = 0, got = 0, want = 0;
};
Comparison compare(const Pixels& px, uint32_t w, uint32_t h, const Picture& want) {
  CpuAccess cpu(px.dmabuf, DMA_BUF_SYNC_READ);
  Comparison c;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t got = px.row(y)[x], expected = want(x, y);
      ++c.pixels;
      if ((got >> 24) != 0xff) ++c.x_not_ff;
      if (((got ^ expected) & 0x00ffffff) != 0 && c.mismatches++ == 0) {
        c.first_x = x;
        c.first_y = y;
        c.got = got;
        c.want = expected;
      }
    }
  }
  return c;
}
std::string describe(const Comparison& c) {
  char text[160];
  if (c.mismatches == 0)
    std::snprintf(text, sizeof(text), "%zu/%zu pixels match", c.pixels, c.pixels);
  else
    std::snprintf(text, sizeof(text), "%zu/%zu pixels differ, first at (%u,%u): %08x, want %08x",
                  c.mismatches, c.pixels, c.first_x, c.first_y, c.got, c.want);
  return text;
}
// The test fails unless `px` holds `picture`; prints the comparison.
void expect_shows(const Pixels& px, uint32_t w, uint32_t h, const Picture& picture) {
  Comparison c = compare(px, w, h, picture);
  std::printf("  writeback: %s, X byte not 0xff in %zu\n", describe(c).c_str(), c.x_not_ff);
  EXPECT_EQ(c.mismatches, 0u) << describe(c);
  EXPECT_EQ(c.x_not_ff, 0u) << "vkms writes X as 0xff into an XRGB8888 writeback buffer";
}

// What one atomic commit sets. The writeback job and both out-fences are
// asked for whenever a writeback buffer is given.
struct Frame {
  uint32_t fb = 0;            // the primary plane's, full screen
  int in_fence = -1;          // IN_FENCE_FD on the primary plane
  uint32_t writeback_fb = 0;  // WRITEBACK_FB_ID + WRITEBACK_OUT_FENCE_PTR
  bool out_fence = true;      // OUT_FENCE_PTR on the CRTC
  bool modeset = false;       // mode, ACTIVE and which connectors drive the CRTC:
  bool virtual_on = false;    //   the Virtual one
  bool writeback_on = true;   //   the writeback one
  bool nonblock = true;
  bool test_only = false;
  uint32_t cursor_fb = 0;  // the cursor plane at (cursor_x, cursor_y)
  uint32_t cursor_x = 0, cursor_y = 0, cursor_size = 0;
  std::optional<bool> vrr;  // the CRTC's VRR_ENABLED
};
struct Committed {
  int error = 0;  // -errno
  UniqueFd out_fence, writeback_fence;
  Clock::time_point at;
};

class VkmsTest : public ::testing::Test {
 protected:
  virtual const char* driver() const { return "vkms"; }

  void SetUp() override {
    card_ = BATON_ASSERT_OK(testing::open_drm_node(driver(), NodeKind::primary));
    int fd = card_.get();
    ASSERT_EQ(drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
    ASSERT_EQ(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1), 0) << driver() << " is not atomic";
    ASSERT_EQ(drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0)
        << "writeback connectors not offered";
    ResPtr res(drmModeGetResources(fd));
    ASSERT_TRUE(res);
    for (int i = 0; i < res->count_connectors; ++i) {
      ConnectorPtr c(drmModeGetConnector(fd, res->connectors[i]));
      if (!c) continue;
      if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
        writeback_ = c->connector_id;
      } else if (c->connection == DRM_MODE_CONNECTED && c->count_modes > 0 && connector_ == 0) {
        connector_ = c->connector_id;
        mode_ = c->modes[0];
        for (int m = 0; m < c->count_modes; ++m)
          if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED) mode_ = c->modes[m];
      }
    }
    ASSERT_NE(connector_, 0u) << "no connected connector with a mode";
    ASSERT_NE(writeback_, 0u) << "no writeback connector";
    ASSERT_EQ(res->count_crtcs, 1);
    crtc_ = res->crtcs[0];
    PlaneResPtr planes(drmModeGetPlaneResources(fd));
    ASSERT_TRUE(planes);
    for (uint32_t i = 0; i < planes->count_planes; ++i) {
      auto type = prop(planes->planes[i], DRM_MODE_OBJECT_PLANE, "type");
      if (!type) continue;
      if (type->second == DRM_PLANE_TYPE_PRIMARY) primary_ = planes->planes[i];
      if (type->second == DRM_PLANE_TYPE_CURSOR) cursor_ = planes->planes[i];
      if (type->second == DRM_PLANE_TYPE_OVERLAY) ++overlays_;
    }
    ASSERT_NE(primary_, 0u);
    width_ = mode_.hdisplay;
    height_ = mode_.vdisplay;
  }

  void TearDown() override {
    for (uint32_t fb : fbs_) drmModeRmFB(card_.get(), fb);
  }

  // {property id, current value} by name.
  std::optional<std::pair<uint32_t, uint64_t>> prop(uint32_t object, uint32_t type,
                                                    std::string_view name) {
    PropsPtr props(drmModeObjectGetProperties(card_.get(), object, type));
    for (uint32_t i = 0; props && i < props->count_props; ++i) {
      PropPtr p(drmModeGetProperty(card_.get(), props->props[i]));
      if (p && name == p->name) return std::pair{p->prop_id, props->prop_values[i]};
    }
    return std::nullopt;
  }
  void set(drmModeAtomicReq* req, uint32_t object, uint32_t type, const char* name,
           uint64_t value) {
    auto key = std::pair{object, std::string(name)};
    auto it = prop_ids_.find(key);
    if (it == prop_ids_.end()) {
      auto p = prop(object, type, name);
      if (!p) ADD_FAILURE() << "object " << object << " has no property " << name;
      it = prop_ids_.emplace(key, p ? p->first : 0).first;
    }
    drmModeAtomicAddProperty(req, object, it->second, value);
  }

  void place(drmModeAtomicReq* req, uint32_t plane, uint32_t fb, uint32_t x, uint32_t y, uint32_t w,
             uint32_t h) {
    auto p = [&](const char* name, uint64_t v) { set(req, plane, DRM_MODE_OBJECT_PLANE, name, v); };
    p("FB_ID", fb);
    p("CRTC_ID", fb ? crtc_ : 0);
    p("SRC_X", 0);
    p("SRC_Y", 0);
    p("SRC_W", uint64_t{w} << 16);
    p("SRC_H", uint64_t{h} << 16);
    p("CRTC_X", x);
    p("CRTC_Y", y);
    p("CRTC_W", w);
    p("CRTC_H", h);
  }

  Committed commit(const Frame& f) {
    AtomicPtr req(drmModeAtomicAlloc());
    Committed out;
    uint32_t blob = 0;
    if (f.modeset) {
      EXPECT_EQ(drmModeCreatePropertyBlob(card_.get(), &mode_, sizeof(mode_), &blob), 0);
      set(req.get(), connector_, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", f.virtual_on ? crtc_ : 0);
      set(req.get(), writeback_, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", f.writeback_on ? crtc_ : 0);
      set(req.get(), crtc_, DRM_MODE_OBJECT_CRTC, "MODE_ID", blob);
      set(req.get(), crtc_, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
    }
    place(req.get(), primary_, f.fb, 0, 0, width_, height_);
    if (f.cursor_fb)
      place(req.get(), cursor_, f.cursor_fb, f.cursor_x, f.cursor_y, f.cursor_size, f.cursor_size);
    if (f.in_fence >= 0)
      set(req.get(), primary_, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD",
          static_cast<uint64_t>(f.in_fence));
    int32_t out_fence = -1, wb_fence = -1;
    if (f.out_fence && !f.test_only)
      set(req.get(), crtc_, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR",
          reinterpret_cast<uintptr_t>(&out_fence));
    if (f.vrr) set(req.get(), crtc_, DRM_MODE_OBJECT_CRTC, "VRR_ENABLED", *f.vrr ? 1 : 0);
    if (f.writeback_fb) {
      set(req.get(), writeback_, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID", f.writeback_fb);
      if (!f.test_only)
        set(req.get(), writeback_, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_OUT_FENCE_PTR",
            reinterpret_cast<uintptr_t>(&wb_fence));
    }
    uint32_t flags = (f.modeset ? DRM_MODE_ATOMIC_ALLOW_MODESET : 0) |
                     (f.nonblock ? DRM_MODE_ATOMIC_NONBLOCK : 0) |
                     (f.test_only ? DRM_MODE_ATOMIC_TEST_ONLY : 0);
    out.at = Clock::now();
    int r = drmModeAtomicCommit(card_.get(), req.get(), flags, nullptr);
    out.error = r < 0 ? -errno : 0;
    if (blob) drmModeDestroyPropertyBlob(card_.get(), blob);
    out.out_fence = UniqueFd(out_fence);
    out.writeback_fence = UniqueFd(wb_fence);
    return out;
  }

  // A full-screen XRGB8888 dumb buffer on this device and its framebuffer.
  struct Fb {
    DumbBuffer buffer;
    uint32_t id = 0;
    Pixels pixels() const { return {buffer.pixels(), buffer.stride(), buffer.dmabuf()}; }
  };
  std::unique_ptr<Fb> make_fb(const Picture& picture, uint32_t w = 0, uint32_t h = 0,
                              uint32_t format = DRM_FORMAT_XRGB8888) {
    w = w ? w : width_;
    h = h ? h : height_;
    auto buffer = DumbBuffer::create(card_.get(), w, h);
    EXPECT_TRUE(buffer.ok()) << buffer.error().describe();
    if (!buffer) return nullptr;
    auto fb = std::make_unique<Fb>(Fb{std::move(*buffer), 0});
    draw(fb->pixels(), w, h, picture);
    fb->id = add_fb(fb->buffer.handle(), fb->buffer.stride(), w, h, format);
    if (fb->id == 0) return nullptr;
    return fb;
  }
  uint32_t add_fb(uint32_t handle, uint32_t stride, uint32_t w, uint32_t h,
                  uint32_t format = DRM_FORMAT_XRGB8888) {
    uint32_t handles[4] = {handle}, pitches[4] = {stride}, offsets[4] = {}, id = 0;
    int r = drmModeAddFB2(card_.get(), w, h, format, handles, pitches, offsets, &id, 0);
    EXPECT_EQ(r, 0) << "drmModeAddFB2: " << strerror(errno);
    if (r == 0) fbs_.push_back(id);
    return r == 0 ? id : 0;
  }
  // A framebuffer on a foreign dma-buf (PRIME import); 0 and the errno's
  // name in `why` when vkms refuses it.
  uint32_t import_fb(int dmabuf, uint32_t stride, std::string* why) {
    uint32_t handle = 0;
    if (drmPrimeFDToHandle(card_.get(), dmabuf, &handle) != 0) {
      *why = std::string("PRIME import: ") + strerror(errno);
      return 0;
    }
    uint32_t handles[4] = {handle}, pitches[4] = {stride}, offsets[4] = {}, id = 0;
    int r = drmModeAddFB2(card_.get(), width_, height_, DRM_FORMAT_XRGB8888, handles, pitches,
                          offsets, &id, 0);
    if (r != 0) *why = std::string("AddFB2: ") + strerror(errno);
    drmCloseBufferHandle(card_.get(), handle);  // the framebuffer holds the object
    if (r == 0) fbs_.push_back(id);
    return r == 0 ? id : 0;
  }

  // The first frame: a blocking modeset that shows `fb`, checked by writeback.
  void show_first(const Fb& fb, const Picture& picture) {
    auto wb = make_fb(solid(0xffff00ff));
    ASSERT_TRUE(wb);
    Frame f{.fb = fb.id, .writeback_fb = wb->id, .modeset = true, .nonblock = false};
    auto c = commit(f);
    ASSERT_EQ(c.error, 0) << "modeset: " << strerror(-c.error);
    ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete))
        << "no writeback after the modeset";
    expect_shows(wb->pixels(), width_, height_, picture);
  }

  // Commits `fb` (nonblocking) held on the unsignalled `hold`, signals it after
  // kHold, and checks the out-fence, the writeback fence and the writeback
  // buffer: nothing before the signal, `picture` after it.
  void expect_held_until_signalled(Frame f, testing::VgemFence& hold, const Picture& picture,
                                   const char* what) {
    auto wb = make_fb(solid(0xffff00ff));  // magenta: "nothing written yet"
    ASSERT_TRUE(wb);
    f.writeback_fb = wb->id;
    auto c = commit(f);
    ASSERT_EQ(c.error, 0) << what << ": " << strerror(-c.error);
    ASSERT_TRUE(c.out_fence && c.writeback_fence);
    bool early =
        signals_within(c.out_fence.get(), kHold) || signals_within(c.writeback_fence.get(), 0ms);
    Comparison untouched = compare(wb->pixels(), width_, height_, solid(0xffff00ff));
    auto signalled_at = Clock::now();
    ASSERT_OK(hold.signal());
    ASSERT_TRUE(signals_within(c.out_fence.get(), kComplete)) << "no out-fence after the signal";
    double out_ms = ms_since(signalled_at);
    ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete))
        << "no writeback after the signal";
    double wb_ms = ms_since(signalled_at);
    std::printf(
        "  %s: held %.0f ms with out-fence and writeback unsignalled: %s, writeback "
        "buffer untouched: %s;\n  after the signal: out-fence +%.2f ms, writeback "
        "+%.2f ms\n",
        what, std::chrono::duration<double, std::milli>(signalled_at - c.at).count(),
        early ? "NO" : "yes", untouched.mismatches == 0 ? "yes" : "NO", out_ms, wb_ms);
    EXPECT_FALSE(early) << what << ": the commit did not wait for the fence";
    EXPECT_EQ(untouched.mismatches, 0u) << "written back before the fence signalled";
    expect_shows(wb->pixels(), width_, height_, picture);
  }

  UniqueFd card_;
  uint32_t connector_ = 0, writeback_ = 0, crtc_ = 0, primary_ = 0, cursor_ = 0;
  uint32_t overlays_ = 0, width_ = 0, height_ = 0;
  drmModeModeInfo mode_{};
  std::map<std::pair<uint32_t, std::string>, uint32_t> prop_ids_;
  std::vector<uint32_t> fbs_;
};

class VkmsNoFence : public VkmsTest {
 protected:
  const char* driver() const override { return "vkms_nofence"; }
};

// The variant has syncobj timelines (as NVIDIA's driver has), so wlroots
// hands a compositor wait points on it, which its planes then refuse.
TEST_F(VkmsNoFence, HasSyncobjTimelines) {
  uint64_t timeline = 0;
  ASSERT_EQ(drmGetCap(card_.get(), DRM_CAP_SYNCOBJ_TIMELINE, &timeline), 0);
  EXPECT_EQ(timeline, 1u) << "vkms_nofence lacks DRIVER_SYNCOBJ_TIMELINE (fetch-vkms.sh)";
}

TEST(VkmsNodes, LoadedBesideVirtioGpuAndVgem) {
  for (const char* driver : {"vkms", "vkms_nofence", "virtio_gpu", "vgem"}) {
    auto card = testing::open_drm_node(driver, NodeKind::primary);
    ASSERT_TRUE(card.ok()) << "no " << driver << " card: " << card.error().describe();
    std::printf("  %-12s %s\n", driver, node_path(card->get()).c_str());
  }
}

TEST_F(VkmsTest, OffersAtomicPlanesAndWriteback) {
  int fd = card_.get();
  uint64_t syncobj = 0, timeline = 0, modifiers = 0;
  ASSERT_EQ(drmGetCap(fd, DRM_CAP_SYNCOBJ, &syncobj), 0);
  ASSERT_EQ(drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &timeline), 0);
  ASSERT_EQ(drmGetCap(fd, DRM_CAP_ADDFB2_MODIFIERS, &modifiers), 0);
  bool in_formats = prop(primary_, DRM_MODE_OBJECT_PLANE, "IN_FORMATS").has_value();
  std::printf("  connector %u %ux%u@%u, crtc %u, writeback connector %u\n", connector_, width_,
              height_, mode_.vrefresh, crtc_, writeback_);
  std::printf("  DRM_CAP_SYNCOBJ=%" PRIu64 " DRM_CAP_SYNCOBJ_TIMELINE=%" PRIu64
              " DRM_CAP_ADDFB2_MODIFIERS=%" PRIu64 ", IN_FORMATS %s\n",
              syncobj, timeline, modifiers, in_formats ? "present" : "absent");
  std::printf("  planes: primary %u, cursor %u, %u overlay(s)\n", primary_, cursor_, overlays_);
  // vkms' driver_features lack DRIVER_SYNCOBJ(_TIMELINE): wlroots' DRM backend
  // offers no linux-drm-syncobj-v1 timelines on it. Pinned so a change shows.
  EXPECT_EQ(timeline, 0u) << "vkms now has syncobj timelines: update tests/vm/README.md";
  EXPECT_NE(cursor_, 0u) << "vkms' cursor plane (enable_cursor defaults to on)";
  EXPECT_EQ(overlays_, 0u) << "vkms' overlays (enable_overlay defaults to off)";
  EXPECT_TRUE(prop(primary_, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD"));
  EXPECT_TRUE(prop(crtc_, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR"));
  EXPECT_TRUE(prop(writeback_, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID"));
  EXPECT_TRUE(prop(writeback_, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_OUT_FENCE_PTR"));
  auto formats = prop(writeback_, DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_PIXEL_FORMATS");
  ASSERT_TRUE(formats);
  BlobPtr blob(drmModeGetPropertyBlob(fd, static_cast<uint32_t>(formats->second)));
  ASSERT_TRUE(blob);
  bool xrgb = false;
  std::printf("  writeback formats:");
  for (size_t i = 0; i < blob->length / 4; ++i) {
    uint32_t f = static_cast<const uint32_t*>(blob->data)[i];
    std::printf(" %.4s", reinterpret_cast<const char*>(&f));
    xrgb = xrgb || f == DRM_FORMAT_XRGB8888;
  }
  std::printf("\n");
  EXPECT_TRUE(xrgb);

  // Clients that did not ask for writeback connectors never see one.
  auto other = BATON_ASSERT_OK(testing::open_drm_node(driver(), NodeKind::primary));
  ResPtr res(drmModeGetResources(other.get()));
  ASSERT_TRUE(res);
  for (int i = 0; i < res->count_connectors; ++i)
    EXPECT_NE(res->connectors[i], writeback_) << "writeback connector shown without the cap";
}

// vkms (6.12) leaves its encoders' possible_clones at "only itself", so the
// core's clone check refuses a CRTC driving both connectors: the writeback
// oracle drives the CRTC alone, never beside the Virtual output.
TEST_F(VkmsTest, WritebackDrivesTheCrtcAlone) {
  auto a = make_fb(pattern(1));
  auto wb = make_fb(solid(0xffff00ff));
  ASSERT_TRUE(a && wb);
  struct Case {
    const char* what;
    Frame frame;
    int want;
  } cases[] = {
      {"Virtual alone",
       {.fb = a->id, .modeset = true, .virtual_on = true, .writeback_on = false},
       0},
      {"writeback alone", {.fb = a->id, .modeset = true}, 0},
      {"writeback alone, with a job", {.fb = a->id, .writeback_fb = wb->id, .modeset = true}, 0},
      {"Virtual + writeback", {.fb = a->id, .modeset = true, .virtual_on = true}, -EINVAL},
      {"Virtual + writeback, with a job",
       {.fb = a->id, .writeback_fb = wb->id, .modeset = true, .virtual_on = true},
       -EINVAL},
  };
  for (auto& c : cases) {
    c.frame.test_only = true;
    int error = commit(c.frame).error;
    std::printf("  TEST_ONLY modeset, %s: %s\n", c.what, error ? strerror(-error) : "accepted");
    EXPECT_EQ(error, c.want) << c.what;
  }
}

TEST_F(VkmsTest, WritebackCapturesEachCommittedFrame) {
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  show_first(*a, pattern(1));
  // Flips back and forth, each with its own writeback buffer.
  for (auto [fb, seed] : {std::pair{b.get(), 2u}, std::pair{a.get(), 1u}, std::pair{b.get(), 2u}}) {
    auto wb = make_fb(solid(0xffff00ff));
    ASSERT_TRUE(wb);
    auto c = commit({.fb = fb->id, .writeback_fb = wb->id});
    ASSERT_EQ(c.error, 0) << strerror(-c.error);
    ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete));
    double wb_ms = ms_since(c.at);
    ASSERT_TRUE(signals_within(c.out_fence.get(), kComplete));
    std::printf("  flip to pattern %u: writeback fence %.2f ms after the commit\n", seed, wb_ms);
    expect_shows(wb->pixels(), width_, height_, pattern(seed));
  }
  // Every plane is in the capture: an opaque 64x64 cursor over pattern 2.
  auto cursor = make_fb(solid(0xff20c040), 64, 64, DRM_FORMAT_ARGB8888);
  auto wb = make_fb(solid(0xffff00ff));
  ASSERT_TRUE(cursor && wb);
  auto c = commit({.fb = b->id,
                   .writeback_fb = wb->id,
                   .cursor_fb = cursor->id,
                   .cursor_x = 100,
                   .cursor_y = 50,
                   .cursor_size = 64});
  ASSERT_EQ(c.error, 0) << strerror(-c.error);
  ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete));
  ASSERT_TRUE(signals_within(c.out_fence.get(), kComplete));
  std::printf("  pattern 2 with the cursor at (100,50):\n");
  expect_shows(wb->pixels(), width_, height_, [](uint32_t x, uint32_t y) {
    bool in_cursor = x >= 100 && x < 164 && y >= 50 && y < 114;
    return in_cursor ? 0xff20c040u : pattern(2)(x, y);
  });
}

TEST_F(VkmsTest, InFenceHoldsTheFlipAndItsWriteback) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  show_first(*a, pattern(1));
  auto fence = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  expect_held_until_signalled({.fb = b->id, .in_fence = fence.sync_file.fd()}, fence.fence,
                              pattern(2), "IN_FENCE_FD");
}

// Foreign dma-bufs as framebuffers: vgem and udmabuf (CPU memory) and
// virtio_gpu dumb buffers, filled by the CPU, shown by vkms.
TEST_F(VkmsTest, ScansOutForeignDmabufs) {
  auto first = make_fb(pattern(1));
  ASSERT_TRUE(first);
  show_first(*first, pattern(1));
  auto try_source = [&](const char* source, const Pixels& px, uint32_t seed) {
    draw(px, width_, height_, pattern(seed));
    std::string why;
    uint32_t fb = import_fb(px.dmabuf, px.stride, &why);
    std::printf("  %s dma-buf: %s\n", source, fb ? "imported" : why.c_str());
    EXPECT_NE(fb, 0u) << source << ": " << why;
    if (!fb) return;
    auto wb = make_fb(solid(0xffff00ff));
    ASSERT_TRUE(wb);
    auto c = commit({.fb = fb, .writeback_fb = wb->id});
    ASSERT_EQ(c.error, 0) << source << ": " << strerror(-c.error);
    ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete));
    ASSERT_TRUE(signals_within(c.out_fence.get(), kComplete));
    expect_shows(wb->pixels(), width_, height_, pattern(seed));
  };
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto vgem_buffer = BATON_ASSERT_OK(DumbBuffer::create(vgem.get(), width_, height_));
  try_source("vgem", {vgem_buffer.pixels(), vgem_buffer.stride(), vgem_buffer.dmabuf()}, 2);
  auto udmabuf = BATON_ASSERT_OK(testing::Udmabuf::create(size_t{width_} * height_ * 4));
  try_source("udmabuf", {reinterpret_cast<uint32_t*>(udmabuf.data()), width_ * 4, udmabuf.dmabuf()},
             3);
  auto virtio = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::primary));
  auto virtio_buffer = BATON_ASSERT_OK(DumbBuffer::create(virtio.get(), width_, height_));
  try_source("virtio_gpu", {virtio_buffer.pixels(), virtio_buffer.stride(), virtio_buffer.dmabuf()},
             4);
}

// Implicit sync at scanout: a framebuffer whose dma-buf has an unsignalled
// writer fence, flipped to without IN_FENCE_FD.
TEST_F(VkmsTest, WaitsForTheFramebuffersImplicitFence) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto first = make_fb(pattern(1));
  ASSERT_TRUE(first);
  show_first(*first, pattern(1));

  // A vgem buffer imported into vkms, fenced by VGEM_FENCE_ATTACH (write).
  auto buffer = BATON_ASSERT_OK(DumbBuffer::create(vgem.get(), width_, height_));
  draw({buffer.pixels(), buffer.stride(), buffer.dmabuf()}, width_, height_, pattern(2));
  std::string why;
  uint32_t fb = import_fb(buffer.dmabuf(), buffer.stride(), &why);
  ASSERT_NE(fb, 0u) << why;
  auto attached = BATON_ASSERT_OK(testing::VgemFence::attach(vgem.get(), buffer.handle(), true));
  expect_held_until_signalled({.fb = fb}, attached, pattern(2), "vgem buffer, VGEM_FENCE_ATTACH");

  // vkms' own dumb buffer with a sync_file imported as its writer.
  auto own = make_fb(pattern(3));
  ASSERT_TRUE(own);
  auto pending = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  ASSERT_OK(pending.sync_file.import_into_dmabuf(own->buffer.dmabuf(), sync::Access::write));
  expect_held_until_signalled({.fb = own->id}, pending.fence, pattern(3),
                              "vkms buffer, IMPORT_SYNC_FILE (write)");
}

TEST_F(VkmsNoFence, RefusesInFenceFdWithEperm) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  show_first(*a, pattern(1));

  auto pending = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  auto done = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  ASSERT_OK(done.fence.signal());
  for (auto [fence, what] :
       {std::pair{&pending.sync_file, "unsignalled"}, std::pair{&done.sync_file, "signalled"}}) {
    for (bool test_only : {true, false}) {
      auto wb = make_fb(solid(0xffff00ff));
      ASSERT_TRUE(wb);
      auto c = commit(
          {.fb = b->id, .in_fence = fence->fd(), .writeback_fb = wb->id, .test_only = test_only});
      std::printf("  IN_FENCE_FD (%s)%s: %s\n", what, test_only ? ", TEST_ONLY" : "",
                  c.error ? strerror(-c.error) : "accepted");
      EXPECT_EQ(c.error, -EPERM);
      EXPECT_FALSE(c.out_fence || c.writeback_fence);
    }
  }
  // The same commit without IN_FENCE_FD goes through.
  auto wb = make_fb(solid(0xffff00ff));
  ASSERT_TRUE(wb);
  auto c = commit({.fb = b->id, .writeback_fb = wb->id});
  std::printf("  without IN_FENCE_FD: %s\n", c.error ? strerror(-c.error) : "accepted");
  ASSERT_EQ(c.error, 0);
  ASSERT_TRUE(signals_within(c.writeback_fence.get(), kComplete));
  expect_shows(wb->pixels(), width_, height_, pattern(2));
}

// What a compositor falls back to on such a driver: the render-done fence as
// the framebuffer's implicit writer fence. vkms_nofence still waits for it.
TEST_F(VkmsNoFence, StillWaitsForImplicitFences) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  show_first(*a, pattern(1));
  auto pending = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  ASSERT_OK(pending.sync_file.import_into_dmabuf(b->buffer.dmabuf(), sync::Access::write));
  expect_held_until_signalled({.fb = b->id}, pending.fence, pattern(2),
                              "vkms_nofence buffer, IMPORT_SYNC_FILE (write)");
}

// vkms_vrr: vkms_timeline whose connector is vrr_capable with an EDID range of
// 48-144 Hz, and whose CRTC, with VRR_ENABLED, flips a commit as soon as the
// minimum frame time since the last refresh has passed (its vblank counter
// and timestamps follow the flips), refreshing by itself and counting a gap
// (debugfs vkms_vrr) when no flip comes within the maximum frame time.
class VkmsVrr : public VkmsTest {
 protected:
  const char* driver() const override { return "vkms_vrr"; }

  // Commits `fb` with a page-flip event and waits for it: the event's time.
  int64_t flip(uint32_t fb) {
    AtomicPtr req(drmModeAtomicAlloc());
    set(req.get(), primary_, DRM_MODE_OBJECT_PLANE, "FB_ID", fb);
    int64_t when = 0;
    int r = drmModeAtomicCommit(card_.get(), req.get(),
                                DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, &when);
    EXPECT_EQ(r, 0) << "flip: " << strerror(errno);
    if (r != 0) return 0;
    if (!signals_within(card_.get(), kComplete)) return 0;
    drmEventContext events{};
    events.version = 3;
    events.page_flip_handler2 = [](int, unsigned, unsigned sec, unsigned usec, unsigned,
                                   void* data) {
      *static_cast<int64_t*>(data) = int64_t{sec} * 1'000'000'000 + int64_t{usec} * 1000;
    };
    if (drmHandleEvent(card_.get(), &events) != 0) return 0;
    return when;
  }

  // Starts the CRTC with VRR_ENABLED = `vrr`, showing `fb`.
  void start(const Fb& fb, bool vrr) {
    Frame f{.fb = fb.id,
            .modeset = true,
            .virtual_on = true,
            .writeback_on = false,
            .nonblock = false,
            .vrr = vrr};
    f.out_fence = false;
    auto c = commit(f);
    ASSERT_EQ(c.error, 0) << "modeset with VRR_ENABLED=" << vrr << ": " << strerror(-c.error);
  }

  // Flips between `a` and `b` `count` times, each commit `interval` after the
  // previous one (or at once after its flip, when that came later): the
  // intervals between the flips' event times, in ms.
  std::vector<double> flip_intervals(const Fb& a, const Fb& b, int count,
                                     std::chrono::microseconds interval) {
    std::vector<double> out;
    int64_t last = 0;
    auto next_commit = Clock::now();
    for (int i = 0; i < count; ++i) {
      std::this_thread::sleep_until(next_commit);
      next_commit = Clock::now() + interval;
      int64_t when = flip(i % 2 ? a.id : b.id);
      if (when == 0) {
        ADD_FAILURE() << "no page-flip event for flip " << i;
        break;
      }
      if (last != 0) out.push_back(static_cast<double>(when - last) / 1e6);
      last = when;
    }
    return out;
  }

  // vkms_vrr's debugfs counters: {gaps, flips under VRR}.
  std::optional<std::pair<uint64_t, uint64_t>> vrr_counters() {
    if (access("/sys/kernel/debug/dri", F_OK) != 0)
      mount("debugfs", "/sys/kernel/debug", "debugfs", 0, nullptr);
    struct stat st {};
    if (fstat(card_.get(), &st) != 0) return std::nullopt;
    std::string path = "/sys/kernel/debug/dri/" + std::to_string(minor(st.st_rdev)) + "/vkms_vrr";
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return std::nullopt;
    unsigned long long gaps = 0, flips = 0;
    int n = std::fscanf(f, "vrr_gaps=%llu vrr_flips=%llu", &gaps, &flips);
    std::fclose(f);
    if (n != 2) return std::nullopt;
    return std::pair<uint64_t, uint64_t>{gaps, flips};
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST_F(VkmsVrr, IsVrrCapableWithARangeInItsEdid) {
  auto capable = prop(connector_, DRM_MODE_OBJECT_CONNECTOR, "vrr_capable");
  ASSERT_TRUE(capable) << "no vrr_capable property";
  EXPECT_EQ(capable->second, 1u);
  ASSERT_TRUE(prop(crtc_, DRM_MODE_OBJECT_CRTC, "VRR_ENABLED")) << "no VRR_ENABLED on the CRTC";
  auto edid = prop(connector_, DRM_MODE_OBJECT_CONNECTOR, "EDID");
  ASSERT_TRUE(edid && edid->second != 0) << "no EDID";
  BlobPtr blob(drmModeGetPropertyBlob(card_.get(), static_cast<uint32_t>(edid->second)));
  ASSERT_TRUE(blob && blob->length >= 128);
  const auto* bytes = static_cast<const uint8_t*>(blob->data);
  int min_hz = 0, max_hz = 0;
  for (int offset : {54, 72, 90, 108})  // the four 18-byte descriptors
    if (bytes[offset] == 0 && bytes[offset + 1] == 0 && bytes[offset + 3] == 0xfd) {
      min_hz = bytes[offset + 5];
      max_hz = bytes[offset + 6];
    }
  std::printf("  vkms_vrr: vrr_capable, EDID range %d-%d Hz\n", min_hz, max_hz);
  EXPECT_EQ(min_hz, 48);
  EXPECT_EQ(max_hz, 144);
  EXPECT_NE(bytes[24] & 0x01, 0) << "the EDID does not say continuous frequencies";
}

// A commit every 13 ms (77 fps, inside the panel's range): with VRR each is
// flipped at its own time; without, none is faster than the fixed 60 Hz
// grid (16.7 ms). Commits right after each flip are held to the minimum
// frame time (144 Hz).
TEST_F(VkmsVrr, UnderVrrFlipsFollowTheCommitsNotAGrid) {
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  start(*a, false);
  const double fixed = median(flip_intervals(*a, *b, 20, 13ms));
  start(*a, true);
  const double vrr = median(flip_intervals(*a, *b, 20, 13ms));
  const double fastest = median(flip_intervals(*a, *b, 20, 0ms));
  std::printf(
      "  vkms_vrr: a commit every 13 ms flipped every %.2f ms with VRR, %.2f ms without; "
      "commits at once flipped every %.2f ms (minimum frame time %.2f ms)\n",
      vrr, fixed, fastest, 1000.0 / 144);
  EXPECT_LT(vrr, fixed * 0.85) << "VRR flips were not sooner than the fixed grid's";
  EXPECT_GT(fixed, 16.0) << "without VRR, flips came faster than the 60 Hz grid";
  EXPECT_GT(fastest, 1000.0 / 144 * 0.9) << "flips came faster than the panel's 144 Hz";
  start(*a, false);
}

// Flips every 10 ms keep the panel in range: no gap, except where the
// test itself was late (an interval between two flips longer than the
// maximum frame time holds that many refreshes the panel made by itself;
// under load the guest's sleeps overrun). None for 200 ms: the panel
// refreshes by itself every 20.8 ms (48 Hz), each a counted gap.
TEST_F(VkmsVrr, CountsGapsLongerThanTheMaximumFrameTime) {
  auto a = make_fb(pattern(1));
  auto b = make_fb(pattern(2));
  ASSERT_TRUE(a && b);
  start(*a, true);
  (void)flip(b->id);  // after the modeset, which may have taken longer than 20.8 ms
  auto before = vrr_counters();
  ASSERT_TRUE(before) << "no vkms_vrr debugfs file";
  const std::vector<double> intervals = flip_intervals(*a, *b, 41, 10ms);
  auto flowing = vrr_counters();
  ASSERT_TRUE(flowing);
  const double max_frame_ms = 1000.0 / 48;
  uint64_t late = 0;  // refreshes the test's own lateness left to the panel
  for (double interval : intervals) late += static_cast<uint64_t>(interval / max_frame_ms);
  std::this_thread::sleep_for(200ms);
  auto idle = vrr_counters();
  ASSERT_TRUE(idle);
  std::printf(
      "  vkms_vrr: 40 flips 10 ms apart: %llu gaps (the test's own lateness allows %llu), "
      "%llu flips; then 200 ms without a flip: %llu gaps\n",
      static_cast<unsigned long long>(flowing->first - before->first),
      static_cast<unsigned long long>(late),
      static_cast<unsigned long long>(flowing->second - before->second),
      static_cast<unsigned long long>(idle->first - flowing->first));
  // +1: the read of `before` and the first commit may straddle one.
  EXPECT_LE(flowing->first - before->first, late + 1) << "gaps while flips came in range";
  EXPECT_GE(flowing->second - before->second, 40u);
  EXPECT_GE(idle->first - flowing->first, 3u) << "200 ms without a flip counted no gaps";
  start(*a, false);
}

}  // namespace
}  // namespace baton
