// KMS on virtio-gpu in the guest: what the device offers (connectors, CRTCs,
// planes, formats) and the fence contract baton's KMS backend relies on: a
// nonblocking flip with IN_FENCE_FD waits for that fence, and OUT_FENCE_PTR
// signals when the flip has happened.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <chrono>
#include <cinttypes>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "sync/sync_file.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/dumb_buffer.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/vm/expect_ok.hpp"

namespace baton {
namespace {

using namespace std::chrono_literals;
using sync::SyncFile;
using testing::NodeKind;

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

// Property id and current value by name; nullopt when the object lacks it.
struct Prop {
  uint32_t id;
  uint64_t value;
};
std::optional<Prop> find_prop(int fd, uint32_t object, uint32_t type, std::string_view name) {
  PropsPtr props(drmModeObjectGetProperties(fd, object, type));
  for (uint32_t i = 0; props && i < props->count_props; ++i) {
    PropPtr prop(drmModeGetProperty(fd, props->props[i]));
    if (prop && name == prop->name) return Prop{prop->prop_id, props->prop_values[i]};
  }
  return std::nullopt;
}

bool drm_event_within(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1;
}

class Kms : public ::testing::Test {
 protected:
  void SetUp() override {
    card_ = BATON_ASSERT_OK(testing::open_drm_node("virtio_gpu", NodeKind::primary));
    ASSERT_EQ(drmSetClientCap(card_.get(), DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
    ASSERT_EQ(drmSetClientCap(card_.get(), DRM_CLIENT_CAP_ATOMIC, 1), 0)
        << "virtio_gpu must offer atomic modesetting";
    ResPtr res(drmModeGetResources(card_.get()));
    ASSERT_TRUE(res);
    for (int i = 0; i < res->count_connectors && connector_ == 0; ++i) {
      ConnectorPtr c(drmModeGetConnector(card_.get(), res->connectors[i]));
      if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0) {
        connector_ = c->connector_id;
        mode_ = c->modes[0];
        for (int m = 0; m < c->count_modes; ++m)
          if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED) mode_ = c->modes[m];
      }
    }
    ASSERT_NE(connector_, 0u) << "no connected connector with a mode";
    ASSERT_GT(res->count_crtcs, 0);
    crtc_ = res->crtcs[0];
    PlaneResPtr planes(drmModeGetPlaneResources(card_.get()));
    ASSERT_TRUE(planes);
    for (uint32_t i = 0; i < planes->count_planes; ++i) {
      PlanePtr plane(drmModeGetPlane(card_.get(), planes->planes[i]));
      if (!plane || (plane->possible_crtcs & 1u) == 0) continue;
      auto type = find_prop(card_.get(), plane->plane_id, DRM_MODE_OBJECT_PLANE, "type");
      if (!type) continue;
      if (type->value == DRM_PLANE_TYPE_PRIMARY) primary_ = plane->plane_id;
      if (type->value == DRM_PLANE_TYPE_CURSOR) cursor_ = plane->plane_id;
    }
    ASSERT_NE(primary_, 0u) << "no primary plane for CRTC " << crtc_;
  }

  uint32_t prop_id(uint32_t object, uint32_t type, std::string_view name) {
    auto prop = find_prop(card_.get(), object, type, name);
    EXPECT_TRUE(prop) << "object " << object << " has no " << name << " property";
    return prop ? prop->id : 0;
  }

  // A full-screen XRGB8888 framebuffer of one colour.
  struct Fb {
    testing::DumbBuffer buffer;
    uint32_t id = 0;
  };
  std::unique_ptr<Fb> make_fb(uint32_t colour) {
    auto buffer = testing::DumbBuffer::create(card_.get(), mode_.hdisplay, mode_.vdisplay);
    EXPECT_TRUE(buffer.ok()) << buffer.error().describe();
    if (!buffer) return nullptr;
    auto fb = std::make_unique<Fb>(Fb{std::move(*buffer), 0});
    fb->buffer.fill(colour);
    uint32_t handles[4] = {fb->buffer.handle()}, pitches[4] = {fb->buffer.stride()},
             offsets[4] = {};
    EXPECT_EQ(drmModeAddFB2(card_.get(), mode_.hdisplay, mode_.vdisplay, DRM_FORMAT_XRGB8888,
                            handles, pitches, offsets, &fb->id, 0),
              0);
    fbs_.push_back(fb->id);
    return fb;
  }

  void add_plane(drmModeAtomicReq* req, uint32_t fb) {
    auto plane = [&](const char* name, uint64_t v) {
      drmModeAtomicAddProperty(req, primary_, prop_id(primary_, DRM_MODE_OBJECT_PLANE, name), v);
    };
    plane("FB_ID", fb);
    plane("CRTC_ID", crtc_);
    plane("SRC_X", 0);
    plane("SRC_Y", 0);
    plane("SRC_W", uint64_t{mode_.hdisplay} << 16);
    plane("SRC_H", uint64_t{mode_.vdisplay} << 16);
    plane("CRTC_X", 0);
    plane("CRTC_Y", 0);
    plane("CRTC_W", mode_.hdisplay);
    plane("CRTC_H", mode_.vdisplay);
  }

  int modeset(uint32_t fb) {
    AtomicPtr req(drmModeAtomicAlloc());
    uint32_t blob = 0;
    EXPECT_EQ(drmModeCreatePropertyBlob(card_.get(), &mode_, sizeof(mode_), &blob), 0);
    drmModeAtomicAddProperty(req.get(), connector_,
                             prop_id(connector_, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID"), crtc_);
    drmModeAtomicAddProperty(req.get(), crtc_, prop_id(crtc_, DRM_MODE_OBJECT_CRTC, "MODE_ID"),
                             blob);
    drmModeAtomicAddProperty(req.get(), crtc_, prop_id(crtc_, DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
    add_plane(req.get(), fb);
    int r = drmModeAtomicCommit(card_.get(), req.get(), DRM_MODE_ATOMIC_ALLOW_MODESET, nullptr);
    drmModeDestroyPropertyBlob(card_.get(), blob);
    return r < 0 ? -errno : 0;
  }

  // A nonblocking page flip with a flip event and an out-fence; -errno or 0.
  int flip(uint32_t fb, int in_fence, int32_t* out_fence) {
    AtomicPtr req(drmModeAtomicAlloc());
    add_plane(req.get(), fb);
    if (in_fence >= 0)
      drmModeAtomicAddProperty(req.get(), primary_,
                               prop_id(primary_, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD"),
                               static_cast<uint64_t>(in_fence));
    *out_fence = -1;
    drmModeAtomicAddProperty(req.get(), crtc_,
                             prop_id(crtc_, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR"),
                             reinterpret_cast<uintptr_t>(out_fence));
    int r = drmModeAtomicCommit(card_.get(), req.get(),
                                DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, &flips_);
    return r < 0 ? -errno : 0;
  }

  // Reads pending DRM events; counts page flips into flips_.
  void dispatch() {
    drmEventContext ctx{};
    ctx.version = 3;
    ctx.page_flip_handler2 = [](int, unsigned, unsigned, unsigned, unsigned, void* data) {
      ++*static_cast<int*>(data);
    };
    drmHandleEvent(card_.get(), &ctx);
  }

  void TearDown() override {
    for (uint32_t fb : fbs_) drmModeRmFB(card_.get(), fb);
  }

  UniqueFd card_;
  uint32_t connector_ = 0, crtc_ = 0, primary_ = 0, cursor_ = 0;
  drmModeModeInfo mode_{};
  std::vector<uint32_t> fbs_;
  int flips_ = 0;
};

TEST_F(Kms, ProbesConnectorsCrtcsAndPlanes) {
  std::printf("connector %u: %ux%u@%u, crtc %u, primary plane %u\n", connector_, mode_.hdisplay,
              mode_.vdisplay, mode_.vrefresh, crtc_, primary_);
  EXPECT_GT(mode_.hdisplay, 0);
  PlanePtr plane(drmModeGetPlane(card_.get(), primary_));
  ASSERT_TRUE(plane);
  bool xrgb = false;
  for (uint32_t i = 0; i < plane->count_formats; ++i)
    xrgb = xrgb || plane->formats[i] == DRM_FORMAT_XRGB8888;
  EXPECT_TRUE(xrgb) << "the primary plane scans out XRGB8888";
}

TEST_F(Kms, CursorPlaneNeedsTheHotspotCap) {
  // Since 6.8 virtualized drivers hide their cursor plane from atomic clients
  // that do not promise to set its hotspot (DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT).
  EXPECT_EQ(cursor_, 0u) << "cursor plane visible without the hotspot cap";
  ASSERT_EQ(drmSetClientCap(card_.get(), DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT, 1), 0);
  PlaneResPtr planes(drmModeGetPlaneResources(card_.get()));
  ASSERT_TRUE(planes);
  uint32_t cursor = 0;
  for (uint32_t i = 0; i < planes->count_planes; ++i) {
    auto type = find_prop(card_.get(), planes->planes[i], DRM_MODE_OBJECT_PLANE, "type");
    if (type && type->value == DRM_PLANE_TYPE_CURSOR) cursor = planes->planes[i];
  }
  ASSERT_NE(cursor, 0u) << "no cursor plane even with the hotspot cap";
  EXPECT_TRUE(find_prop(card_.get(), cursor, DRM_MODE_OBJECT_PLANE, "HOTSPOT_X"));
  EXPECT_TRUE(find_prop(card_.get(), cursor, DRM_MODE_OBJECT_PLANE, "HOTSPOT_Y"));
}

TEST_F(Kms, InFormatsMatchesTheModifierCap) {
  // A KMS backend negotiates modifiers from IN_FORMATS when the device has
  // it; without DRM_CAP_ADDFB2_MODIFIERS it must fall back to the plane's
  // format list with the implicit modifier. virtio_gpu is such a device.
  uint64_t modifiers = 0;
  ASSERT_EQ(drmGetCap(card_.get(), DRM_CAP_ADDFB2_MODIFIERS, &modifiers), 0);
  auto in_formats = find_prop(card_.get(), primary_, DRM_MODE_OBJECT_PLANE, "IN_FORMATS");
  std::printf("DRM_CAP_ADDFB2_MODIFIERS=%" PRIu64 ", IN_FORMATS %s\n", modifiers,
              in_formats ? "present" : "absent");
  ASSERT_EQ(in_formats.has_value(), modifiers == 1);
  if (!in_formats) return;
  BlobPtr blob(drmModeGetPropertyBlob(card_.get(), static_cast<uint32_t>(in_formats->value)));
  ASSERT_TRUE(blob);
  drmModeFormatModifierIterator iter{};
  bool linear_xrgb = false;
  while (drmModeFormatModifierBlobIterNext(blob.get(), &iter))
    linear_xrgb =
        linear_xrgb || (iter.fmt == DRM_FORMAT_XRGB8888 && iter.mod == DRM_FORMAT_MOD_LINEAR);
  EXPECT_TRUE(linear_xrgb);
}

TEST_F(Kms, FenceProperties) {
  EXPECT_TRUE(find_prop(card_.get(), primary_, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD"));
  EXPECT_TRUE(find_prop(card_.get(), crtc_, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR"));
}

TEST_F(Kms, FlipWaitsForItsInFence) {
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto red = make_fb(0xffff0000);
  auto blue = make_fb(0xff0000ff);
  ASSERT_TRUE(red && blue);
  ASSERT_EQ(modeset(red->id), 0) << "blocking atomic modeset";

  // Unfenced: the flip happens by itself and its out-fence signals.
  int32_t out = -1;
  ASSERT_EQ(flip(blue->id, -1, &out), 0);
  SyncFile first_out{UniqueFd(out)};
  ASSERT_TRUE(drm_event_within(card_.get(), 1000)) << "no flip event for an unfenced flip";
  dispatch();
  EXPECT_EQ(flips_, 1);
  EXPECT_TRUE(BATON_ASSERT_OK(first_out.wait(1000ms)));

  // Fenced on an unsignalled vgem fence: nothing may happen until it signals.
  auto fence = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  ASSERT_EQ(flip(red->id, fence.sync_file.fd(), &out), 0) << "fenced nonblocking flip";
  SyncFile fenced_out{UniqueFd(out)};
  ASSERT_TRUE(fenced_out.fd() >= 0) << "OUT_FENCE_PTR was not written";
  EXPECT_FALSE(drm_event_within(card_.get(), 300)) << "flipped before its IN_FENCE_FD signalled";
  EXPECT_FALSE(BATON_ASSERT_OK(fenced_out.signalled())) << "out-fence signalled before the flip";
  int32_t busy_out = -1;
  EXPECT_EQ(flip(blue->id, -1, &busy_out), -EBUSY)
      << "a second nonblocking commit while one is pending";
  UniqueFd busy_guard(busy_out);

  auto signalled_at = std::chrono::steady_clock::now();
  ASSERT_OK(fence.fence.signal());
  ASSERT_TRUE(drm_event_within(card_.get(), 1000)) << "no flip event after the in-fence signalled";
  dispatch();
  EXPECT_EQ(flips_, 2);
  EXPECT_TRUE(BATON_ASSERT_OK(fenced_out.wait(1000ms)));
  auto ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - signalled_at);
  std::printf("flip event and out-fence %.2f ms after the in-fence signalled\n", ms.count());
}

TEST_F(Kms, FlipIgnoresTheFramebuffersImplicitFence) {
  // The architecture's fallback for drivers that ignore IN_FENCE_FD is the
  // render-done fence imported as a writer into the framebuffer's dma-buf.
  // virtio_gpu (6.12) does not wait for that (its prepare_fb takes no
  // implicit fences), so on it only IN_FENCE_FD holds a flip. Pinned here so
  // a kernel that changes it is noticed.
  auto vgem = BATON_ASSERT_OK(testing::open_drm_node("vgem", NodeKind::primary));
  auto red = make_fb(0xffff0000);
  auto blue = make_fb(0xff0000ff);
  ASSERT_TRUE(red && blue);
  ASSERT_EQ(modeset(red->id), 0);

  auto fence = BATON_ASSERT_OK(testing::make_pending_fence(vgem.get()));
  ASSERT_OK(fence.sync_file.import_into_dmabuf(blue->buffer.dmabuf(), sync::Access::write));
  EXPECT_FALSE(BATON_ASSERT_OK(sync::wait_dmabuf(blue->buffer.dmabuf(), sync::Access::read, 0ms)))
      << "the framebuffer's dma-buf has a pending writer";
  int32_t out = -1;
  ASSERT_EQ(flip(blue->id, -1, &out), 0);
  SyncFile out_fence{UniqueFd(out)};
  bool flipped = drm_event_within(card_.get(), 300);
  std::printf("flip onto a framebuffer with a pending implicit write fence: %s\n",
              flipped ? "happened at once (implicit fence ignored)" : "waited for it");
  EXPECT_TRUE(flipped) << "virtio_gpu now waits for implicit fences: update tests/vm/README.md";
  ASSERT_OK(fence.fence.signal());
  ASSERT_TRUE(drm_event_within(card_.get(), 1000));
  dispatch();
  EXPECT_EQ(flips_, 1);
  EXPECT_TRUE(BATON_ASSERT_OK(out_fence.wait(1000ms)));
}

}  // namespace
}  // namespace baton
