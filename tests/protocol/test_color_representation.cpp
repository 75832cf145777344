// wp_color_representation_v1 from a client's side, in-process: what the
// manager advertises, every protocol error the XML names (at the request
// or at wl_surface.commit, where the XML puts each), and what reaches the
// buffer the renderer imports: the representation baton records on the
// client's wlr_buffer, looked up on the server's side of the connection.
// Y'CbCr buffers come from the fake linux-dmabuf global (planes are memfds:
// the headless pixman renderer shows none of them, and what is checked is
// the record on the buffer, not pixels); RGB ones from wl_shm.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "color-representation-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "renderer/color_representation.hpp"
#include "security-context-v1-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/fake_dmabuf.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr int kSize = 8;
using Manager = wp_color_representation_manager_v1;
using RepSurface = wp_color_representation_surface_v1;

constexpr uint32_t kIdentity = WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_IDENTITY;
constexpr uint32_t kBt601 = WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601;
constexpr uint32_t kBt709 = WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709;
constexpr uint32_t kBt2020 = WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020;
constexpr uint32_t kFull = WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL;
constexpr uint32_t kLimited = WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED;

// What the manager sent when bound.
struct Advertised {
  std::vector<uint32_t> alpha_modes;
  std::vector<std::pair<uint32_t, uint32_t>> coefficients_and_ranges;
  int done = 0;
  bool event_after_done = false;
};

const wp_color_representation_manager_v1_listener kManagerListener = {
    .supported_alpha_mode =
        [](void* data, Manager*, uint32_t mode) {
          auto* a = static_cast<Advertised*>(data);
          a->event_after_done = a->event_after_done || a->done > 0;
          a->alpha_modes.push_back(mode);
        },
    .supported_coefficients_and_ranges =
        [](void* data, Manager*, uint32_t coefficients, uint32_t range) {
          auto* a = static_cast<Advertised*>(data);
          a->event_after_done = a->event_after_done || a->done > 0;
          a->coefficients_and_ranges.emplace_back(coefficients, range);
        },
    .done = [](void* data, Manager*) { ++static_cast<Advertised*>(data)->done; },
};

// A client with the manager, wl_shm and the fake linux-dmabuf global.
class ColorRep : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(offer_fake_linux_dmabuf(h_.server().display()), nullptr);
    client_ = std::make_unique<Client>(h_);
    registry_ = decltype(registry_)(wl_display_get_registry(client_->display()));
    static const wl_registry_listener listener = {
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
          auto* self = static_cast<ColorRep*>(data);
          if (std::strcmp(iface, wp_color_representation_manager_v1_interface.name) == 0) {
            self->manager_ = decltype(self->manager_)(static_cast<Manager*>(
                wl_registry_bind(r, name, &wp_color_representation_manager_v1_interface, 1)));
            wp_color_representation_manager_v1_add_listener(self->manager_, &kManagerListener,
                                                            &self->advertised_);
          }
          if (std::strcmp(iface, zwp_linux_dmabuf_v1_interface.name) == 0)
            self->dmabuf_ = decltype(self->dmabuf_)(static_cast<zwp_linux_dmabuf_v1*>(
                wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, 4)));
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_registry_add_listener(registry_, &listener, this);
    h_.sync();
    ASSERT_NE(manager_.get(), nullptr) << "wp_color_representation_manager_v1 is not advertised";
    ASSERT_NE(dmabuf_.get(), nullptr);
    ASSERT_TRUE(h_.run_until([&] { return advertised_.done > 0; }));
  }
  void TearDown() override {
    for (wl_buffer* buffer : dmabufs_) wl_buffer_destroy(buffer);
  }

  wl_surface* surface() {
    surfaces_.emplace_back(wl_compositor_create_surface(client_->compositor));
    return surfaces_.back().get();
  }
  // The fixture owns every object it hands out: one a test did not destroy
  // (its client was disconnected first) is freed at the test's end.
  RepSurface* get(wl_surface* surface) {
    reps_.emplace_back(wp_color_representation_manager_v1_get_surface(manager_, surface));
    return reps_.back().get();
  }
  // Sends `rep`'s destroy request now.
  void destroy(RepSurface* rep) {
    for (auto& owned : reps_)
      if (owned.get() == rep) owned.reset();
  }

  // An ARGB8888 wl_shm buffer.
  wl_buffer* rgb() {
    shm_.push_back(std::make_unique<ShmBuffer>(client_->shm, kSize, kSize, 0xff102030));
    return shm_.back()->get();
  }
  // A linear dma-buf of `format`: one memfd per plane, each large enough.
  wl_buffer* dmabuf(uint32_t format = DRM_FORMAT_NV12, int planes = 2) {
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(dmabuf_);
    for (int plane = 0; plane < planes; ++plane) {
      UniqueFd fd(memfd_create("color-representation-test", MFD_CLOEXEC));
      EXPECT_EQ(ftruncate(fd.get(), 4096), 0);
      zwp_linux_buffer_params_v1_add(params, fd.get(), plane, 0, kSize * 4, 0, 0);  // linear
    }
    wl_buffer* buffer = zwp_linux_buffer_params_v1_create_immed(params, kSize, kSize, format, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    dmabufs_.push_back(buffer);
    return buffer;
  }
  void commit(wl_surface* surface, wl_buffer* buffer) {
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, kSize, kSize);
    wl_surface_commit(surface);
  }

  // What baton recorded on the client's buffer (the wlr_buffer the
  // renderer imports), found through the server's side of the connection.
  std::optional<ColorRepresentation> recorded(wl_buffer* buffer) {
    h_.sync();
    wl_client* client = h_.server_client(client_->display());
    wl_resource* resource =
        wl_client_get_object(client, wl_proxy_get_id(reinterpret_cast<wl_proxy*>(buffer)));
    if (resource == nullptr) {
      ADD_FAILURE() << "the server has no such wl_buffer";
      return std::nullopt;
    }
    wlr_buffer* server_buffer = wlr_buffer_try_from_resource(resource);
    if (server_buffer == nullptr) {
      ADD_FAILURE() << "wlroots made no wlr_buffer of it";
      return std::nullopt;
    }
    std::optional<ColorRepresentation> found;
    if (const ColorRepresentation* r = color_representation_of(server_buffer)) found = *r;
    wlr_buffer_unlock(server_buffer);
    return found;
  }

  // The client was cut off with `code` on an object of `iface`.
  void expect_error(const wl_interface* iface, uint32_t code) {
    ASSERT_TRUE(h_.run_until([&] { return wl_display_get_error(client_->display()) != 0; }))
        << "no protocol error";
    const wl_interface* got = nullptr;
    EXPECT_EQ(wl_display_get_protocol_error(client_->display(), &got, nullptr), code);
    ASSERT_NE(got, nullptr);
    EXPECT_STREQ(got->name, iface->name);
  }
  void expect_no_error() {
    h_.sync();
    EXPECT_EQ(wl_display_get_error(client_->display()), 0);
  }

  Harness h_;
  std::unique_ptr<Client> client_;
  Owned<wl_registry, wl_registry_destroy> registry_;
  Owned<Manager, wp_color_representation_manager_v1_destroy> manager_;
  Owned<zwp_linux_dmabuf_v1, zwp_linux_dmabuf_v1_destroy> dmabuf_;
  Advertised advertised_;
  std::vector<Owned<wl_surface, wl_surface_destroy>> surfaces_;
  std::vector<std::unique_ptr<ShmBuffer>> shm_;
  std::vector<wl_buffer*> dmabufs_;
  std::vector<Owned<RepSurface, wp_color_representation_surface_v1_destroy>> reps_;
};

ColorRepresentation expected(YcbcrCoefficients c, QuantizationRange r, ChromaLocation chroma,
                             AlphaMode alpha, bool client_set = true) {
  return {.coefficients = c,
          .range = r,
          .chroma_location = chroma,
          .alpha = alpha,
          .client_set = client_set};
}

// --- events -----------------------------------------------------------------

TEST_F(ColorRep, AdvertisesEveryAlphaModeAndSevenCoefficientRangePairsThenDone) {
  EXPECT_EQ(advertised_.done, 1);
  EXPECT_FALSE(advertised_.event_after_done);
  const std::set<uint32_t> modes(advertised_.alpha_modes.begin(), advertised_.alpha_modes.end());
  EXPECT_EQ(advertised_.alpha_modes.size(), 3U) << "each alpha mode once";
  EXPECT_EQ(modes, (std::set<uint32_t>{
                       WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_ELECTRICAL,
                       WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_OPTICAL,
                       WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT}));
  const std::set<std::pair<uint32_t, uint32_t>> pairs(advertised_.coefficients_and_ranges.begin(),
                                                      advertised_.coefficients_and_ranges.end());
  EXPECT_EQ(advertised_.coefficients_and_ranges.size(), 7U) << "each pair once";
  EXPECT_EQ(pairs, (std::set<std::pair<uint32_t, uint32_t>>{{kIdentity, kFull},
                                                            {kBt601, kFull},
                                                            {kBt601, kLimited},
                                                            {kBt709, kFull},
                                                            {kBt709, kLimited},
                                                            {kBt2020, kFull},
                                                            {kBt2020, kLimited}}));
}

// --- what reaches the buffer ------------------------------------------------

TEST_F(ColorRep, EverythingSetReachesTheYcbcrBuffer) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kLimited);
  wp_color_representation_surface_v1_set_chroma_location(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_2);
  wp_color_representation_surface_v1_set_alpha_mode(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT);
  wl_buffer* nv12 = dmabuf();
  commit(s, nv12);
  EXPECT_EQ(recorded(nv12), expected(YcbcrCoefficients::bt709, QuantizationRange::limited,
                                     ChromaLocation::type2, AlphaMode::straight));
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, EachCoefficientRangePairAndChromaLocationMapsToTheRendererEnum) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  const std::pair<uint32_t, YcbcrCoefficients> coefficients[] = {
      {kBt601, YcbcrCoefficients::bt601},
      {kBt709, YcbcrCoefficients::bt709},
      {kBt2020, YcbcrCoefficients::bt2020}};
  const std::pair<uint32_t, QuantizationRange> ranges[] = {{kFull, QuantizationRange::full},
                                                           {kLimited, QuantizationRange::limited}};
  uint32_t chroma = WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0;
  for (const auto& [wire_c, ours_c] : coefficients) {
    for (const auto& [wire_r, ours_r] : ranges) {
      wp_color_representation_surface_v1_set_coefficients_and_range(rep, wire_c, wire_r);
      wp_color_representation_surface_v1_set_chroma_location(rep, chroma);
      wl_buffer* nv12 = dmabuf();
      commit(s, nv12);
      const auto ours_chroma = static_cast<ChromaLocation>(
          chroma - WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0);
      EXPECT_EQ(recorded(nv12),
                expected(ours_c, ours_r, ours_chroma, AlphaMode::premultiplied_electrical))
          << "coefficients " << wire_c << " range " << wire_r << " chroma " << chroma;
      chroma = chroma % 6 + 1;  // type_0..type_5 are 1..6: the next one, round
    }
  }
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, WhatWasNotSetKeepsTheFormatsDefault) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_alpha_mode(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_OPTICAL);
  wl_buffer* nv12 = dmabuf();
  commit(s, nv12);
  // Y'CbCr without coefficients: BT.601 limited, as players expect.
  EXPECT_EQ(recorded(nv12), expected(YcbcrCoefficients::bt601, QuantizationRange::limited,
                                     ChromaLocation::type0, AlphaMode::premultiplied_optical));
  wl_buffer* argb = rgb();
  commit(s, argb);
  EXPECT_EQ(recorded(argb), expected(YcbcrCoefficients::identity, QuantizationRange::full,
                                     ChromaLocation::type0, AlphaMode::premultiplied_optical));
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, IdentityFullOnAnRgbBufferIsRecorded) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kIdentity, kFull);
  wp_color_representation_surface_v1_set_alpha_mode(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT);
  wl_buffer* argb = rgb();
  commit(s, argb);
  EXPECT_EQ(recorded(argb), expected(YcbcrCoefficients::identity, QuantizationRange::full,
                                     ChromaLocation::type0, AlphaMode::straight));
  // An RGB dma-buf too.
  wl_buffer* xrgb = dmabuf(DRM_FORMAT_XRGB8888, 1);
  commit(s, xrgb);
  EXPECT_EQ(recorded(xrgb), expected(YcbcrCoefficients::identity, QuantizationRange::full,
                                     ChromaLocation::type0, AlphaMode::straight));
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, AClientThatSetsNothingGetsNothingRecorded) {
  // No object at all...
  wl_surface* plain = surface();
  wl_buffer* first = dmabuf();
  commit(plain, first);
  EXPECT_EQ(recorded(first), std::nullopt);
  // ...or an object that was never told anything: the renderer's defaults.
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wl_buffer* second = dmabuf();
  commit(s, second);
  EXPECT_EQ(recorded(second), std::nullopt);
  wl_buffer* argb = rgb();
  commit(s, argb);
  EXPECT_EQ(recorded(argb), std::nullopt);
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, StateIsDoubleBufferedAndStaysUntilChanged) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  wl_buffer* a = dmabuf();
  commit(s, a);
  // Set, not committed: the next commit carries it, the last one keeps its own.
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt2020, kLimited);
  h_.sync();
  EXPECT_EQ(recorded(a)->coefficients, YcbcrCoefficients::bt709);
  wl_buffer* b = dmabuf();
  wl_surface_attach(s, b, 0, 0);
  h_.sync();
  EXPECT_EQ(recorded(b), std::nullopt) << "attached, not committed";
  wl_surface_commit(s);
  EXPECT_EQ(recorded(b), expected(YcbcrCoefficients::bt2020, QuantizationRange::limited,
                                  ChromaLocation::type0, AlphaMode::premultiplied_electrical));
  // A later commit without a request keeps what was set.
  wl_buffer* c = dmabuf();
  commit(s, c);
  EXPECT_EQ(recorded(c), recorded(b));
  EXPECT_EQ(recorded(a)->coefficients, YcbcrCoefficients::bt709);
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, DestroyingTheObjectUnsetsFromTheNextCommit) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  wl_buffer* a = dmabuf();
  commit(s, a);
  ASSERT_TRUE(recorded(a).has_value());
  destroy(rep);
  h_.sync();
  EXPECT_EQ(recorded(a)->coefficients, YcbcrCoefficients::bt709) << "committed before: kept";
  wl_buffer* b = dmabuf();
  commit(s, b);
  EXPECT_EQ(recorded(b), std::nullopt);
  // The same buffer committed again is read with the defaults now.
  commit(s, a);
  const auto again = recorded(a);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, default_color_representation(DRM_FORMAT_NV12));
  EXPECT_FALSE(again->client_set);
  // A new object for the same surface starts from nothing set.
  RepSurface* second = get(s);
  wl_buffer* c = dmabuf();
  commit(s, c);
  EXPECT_EQ(recorded(c), std::nullopt);
  wp_color_representation_surface_v1_set_coefficients_and_range(second, kBt2020, kFull);
  wl_buffer* d = dmabuf();
  commit(s, d);
  EXPECT_EQ(recorded(d)->coefficients, YcbcrCoefficients::bt2020);
  expect_no_error();
  destroy(second);
}

TEST_F(ColorRep, AHeldCommitKeepsItsOwnRepresentation) {
  // A synchronized subsurface's commit waits (cached) for its parent's.
  Owned<wl_subcompositor, wl_subcompositor_destroy> subcompositor;
  {
    Owned<wl_registry, wl_registry_destroy> registry(wl_display_get_registry(client_->display()));
    static const wl_registry_listener listener = {
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
          if (std::strcmp(iface, wl_subcompositor_interface.name) == 0)
            *static_cast<wl_subcompositor**>(data) = static_cast<wl_subcompositor*>(
                wl_registry_bind(r, name, &wl_subcompositor_interface, 1));
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_subcompositor* bound = nullptr;
    wl_registry_add_listener(registry, &listener, &bound);
    h_.sync();
    subcompositor = decltype(subcompositor)(bound);
  }
  ASSERT_NE(subcompositor.get(), nullptr);
  wl_surface* parent = surface();
  wl_surface* child = surface();
  Owned<wl_subsurface, wl_subsurface_destroy> sub(
      wl_subcompositor_get_subsurface(subcompositor, child, parent));
  RepSurface* rep = get(child);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kLimited);
  wl_buffer* held = dmabuf();
  commit(child, held);
  h_.sync();
  EXPECT_EQ(recorded(held), std::nullopt) << "not applied while its parent has not committed";
  // Unset after the held commit was made: that commit keeps what it carried.
  destroy(rep);
  wl_surface_commit(parent);
  const auto applied = recorded(held);
  ASSERT_TRUE(applied.has_value()) << "the held commit lost its representation";
  EXPECT_EQ(applied->coefficients, YcbcrCoefficients::bt709);
  EXPECT_EQ(applied->range, QuantizationRange::limited);
  wl_buffer* next = dmabuf();
  commit(child, next);
  wl_surface_commit(parent);
  EXPECT_EQ(recorded(next), std::nullopt);
  expect_no_error();
}

TEST_F(ColorRep, TheObjectMayBeDestroyedAfterItsSurface) {
  RepSurface* rep = get(surface());
  surfaces_.clear();  // destroys the wl_surface: the object is inert
  h_.sync();
  destroy(rep);  // destroy is allowed on it
  expect_no_error();
}

// --- errors at the request --------------------------------------------------

TEST_F(ColorRep, ASecondObjectForOneSurfaceIsSurfaceExists) {
  wl_surface* s = surface();
  get(s);
  get(s);
  expect_error(&wp_color_representation_manager_v1_interface,
               WP_COLOR_REPRESENTATION_MANAGER_V1_ERROR_SURFACE_EXISTS);
}

TEST_F(ColorRep, AnObjectPerSurfaceIsFine) {
  RepSurface* first = get(surface());
  RepSurface* second = get(surface());
  expect_no_error();
  destroy(first);
  destroy(second);
}

TEST_F(ColorRep, AnUnadvertisedAlphaModeIsAlphaMode) {
  RepSurface* rep = get(surface());
  wp_color_representation_surface_v1_set_alpha_mode(rep, 3);
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_ALPHA_MODE);
}

class ColorRepUnadvertised : public ColorRep,
                             public ::testing::WithParamInterface<std::pair<uint32_t, uint32_t>> {};

TEST_P(ColorRepUnadvertised, IsCoefficients) {
  RepSurface* rep = get(surface());
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, GetParam().first,
                                                                GetParam().second);
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_COEFFICIENTS);
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, ColorRepUnadvertised,
    ::testing::Values(std::pair{kIdentity, kLimited},  // limited-range RGB
                      std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_FCC, kFull},
                      std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_SMPTE240, kLimited},
                      std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020_CL, kFull},
                      std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_ICTCP, kLimited},
                      std::pair{0U, kFull},     // 0 is never a coefficient
                      std::pair{9U, kFull},     // past the enum
                      std::pair{kBt709, 0U},    // 0 is never a range
                      std::pair{kBt709, 3U}));  // past the enum

class ColorRepInert : public ColorRep, public ::testing::WithParamInterface<int> {};

// Every request but destroy on an object whose surface is gone.
TEST_P(ColorRepInert, IsInert) {
  RepSurface* rep = get(surface());
  surfaces_.clear();
  h_.sync();
  EXPECT_EQ(wl_display_get_error(client_->display()), 0) << "destroying the surface alone is fine";
  switch (GetParam()) {
    case 0:
      wp_color_representation_surface_v1_set_alpha_mode(
          rep, WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT);
      break;
    case 1:
      wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
      break;
    default:
      wp_color_representation_surface_v1_set_chroma_location(
          rep, WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_1);
      break;
  }
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_INERT);
}

INSTANTIATE_TEST_SUITE_P(Requests, ColorRepInert, ::testing::Values(0, 1, 2));

// --- errors at the commit ---------------------------------------------------

TEST_F(ColorRep, YcbcrCoefficientsOnAnRgbBufferArePixelFormatAtTheCommit) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kLimited);
  wl_surface_attach(s, rgb(), 0, 0);
  expect_no_error();  // the request alone is fine: the commit checks
  wl_surface_commit(s);
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

TEST_F(ColorRep, YcbcrCoefficientsOnAnRgbDmabufArePixelFormat) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt601, kFull);
  commit(s, dmabuf(DRM_FORMAT_ARGB8888, 1));
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

class ColorRepYcbcrFormats : public ColorRep,
                             public ::testing::WithParamInterface<std::pair<uint32_t, int>> {};

TEST_P(ColorRepYcbcrFormats, IdentityIsPixelFormat) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kIdentity, kFull);
  commit(s, dmabuf(GetParam().first, GetParam().second));
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

TEST_P(ColorRepYcbcrFormats, Bt2020AndAChromaLocationAreFine) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt2020, kLimited);
  wp_color_representation_surface_v1_set_chroma_location(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_5);
  wl_buffer* buffer = dmabuf(GetParam().first, GetParam().second);
  commit(s, buffer);
  EXPECT_EQ(recorded(buffer), expected(YcbcrCoefficients::bt2020, QuantizationRange::limited,
                                       ChromaLocation::type5, AlphaMode::premultiplied_electrical));
  expect_no_error();
  destroy(rep);
}

INSTANTIATE_TEST_SUITE_P(Formats, ColorRepYcbcrFormats,
                         ::testing::Values(std::pair{DRM_FORMAT_NV12, 2},
                                           std::pair{DRM_FORMAT_P010, 2},
                                           std::pair{DRM_FORMAT_YUV420, 3},
                                           std::pair{DRM_FORMAT_YUYV, 1}));

TEST_F(ColorRep, AChromaLocationOnAnRgbBufferIsPixelFormat) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_chroma_location(
      rep, WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0);
  commit(s, rgb());
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

class ColorRepBadChroma : public ColorRep, public ::testing::WithParamInterface<uint32_t> {};

// v1 has no error for the request itself: a location outside the enum fits
// no pixel format, so the commit that has contents says so.
TEST_P(ColorRepBadChroma, IsPixelFormatAtTheCommitWithContents) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_chroma_location(rep, GetParam());
  wl_surface_commit(s);  // no contents yet: nothing to check
  expect_no_error();
  commit(s, dmabuf());
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

INSTANTIATE_TEST_SUITE_P(Values, ColorRepBadChroma, ::testing::Values(0U, 7U, 0xffffffffU));

TEST_F(ColorRep, TheCheckCoversContentsTheCommitKeeps) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  commit(s, rgb());
  expect_no_error();
  // No new buffer: the RGB contents stay, and BT.709 does not fit them.
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  wl_surface_commit(s);
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

TEST_F(ColorRep, ContentsCommittedBeforeTheObjectAreChecked) {
  wl_surface* s = surface();
  commit(s, rgb());
  expect_no_error();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt2020, kFull);
  wl_surface_commit(s);
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

TEST_F(ColorRep, SetStateIsCheckedAgainstEachNewBuffer) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  commit(s, dmabuf());
  expect_no_error();
  // The state stays: an RGB buffer committed under it does not fit.
  commit(s, rgb());
  expect_error(&wp_color_representation_surface_v1_interface,
               WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT);
}

TEST_F(ColorRep, NoContentsNothingToCheck) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  wl_surface_commit(s);
  commit(s, dmabuf());
  wl_surface_attach(s, nullptr, 0, 0);  // contents removed
  wl_surface_commit(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kIdentity, kFull);
  wl_surface_commit(s);
  expect_no_error();
  destroy(rep);
}

TEST_F(ColorRep, AfterDestroyNothingIsChecked) {
  wl_surface* s = surface();
  RepSurface* rep = get(s);
  wp_color_representation_surface_v1_set_coefficients_and_range(rep, kBt709, kFull);
  commit(s, dmabuf());
  destroy(rep);
  commit(s, rgb());
  expect_no_error();
}

// --- the sandbox ------------------------------------------------------------

// The interface names a connection's registry lists.
std::set<std::string> registry_names(Harness& h, wl_display* display) {
  std::set<std::string> names;
  Owned<wl_registry, wl_registry_destroy> registry(wl_display_get_registry(display));
  static const wl_registry_listener listener = {
      [](void* data, wl_registry*, uint32_t, const char* iface, uint32_t) {
        static_cast<std::set<std::string>*>(data)->insert(iface);
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry, &listener, &names);
  h.sync();
  return names;
}

// An app behind a sandbox engine's socket (security-context-v1) sees the
// global: it describes only the app's own buffers, so it is not among the
// privileged ones (compositor/shell/sandbox.cpp), and a sandboxed video
// player needs it.
TEST(ColorRepSandbox, ASandboxedAppSeesTheGlobal) {
  Harness h;
  Client engine(h);
  Globals globals(h, engine.display());
  Owned<wp_security_context_manager_v1, wp_security_context_manager_v1_destroy> manager(
      static_cast<wp_security_context_manager_v1*>(
          globals.bind(&wp_security_context_manager_v1_interface, 1)));
  ASSERT_NE(manager.get(), nullptr);
  const std::string path = scratch_dir("color-representation-sandbox") + "/app.sock";
  unlink(path.c_str());
  UniqueFd listening(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof(address.sun_path));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(bind(listening.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listening.get(), 4), 0);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd close_reader(pipe_fds[0]);
  UniqueFd close_writer(pipe_fds[1]);
  Owned<wp_security_context_v1, wp_security_context_v1_destroy> context(
      wp_security_context_manager_v1_create_listener(manager, listening.get(), close_reader.get()));
  wp_security_context_v1_set_sandbox_engine(context, "org.example.engine");
  wp_security_context_v1_set_app_id(context, "org.example.Player");
  wp_security_context_v1_commit(context);
  h.sync();

  const std::set<std::string> inside = registry_names(h, h.connect_to(path));
  EXPECT_TRUE(inside.count(wp_color_representation_manager_v1_interface.name));
  // The socket is a sandbox's: what reads the screen is hidden there.
  EXPECT_TRUE(registry_names(h, engine.display()).count("zwlr_screencopy_manager_v1"));
  EXPECT_FALSE(inside.count("zwlr_screencopy_manager_v1"));
}

}  // namespace
}  // namespace baton::test
