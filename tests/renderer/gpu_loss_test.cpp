// Whole Servers on baton's Vulkan renderer. A lost GPU is survived: the Server
// builds a new renderer and allocator, outputs keep presenting, and client
// windows keep their pixels without drawing again. The compute compositing
// path shows real clients' windows as the raster path does, and survives too.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "protocols/linux_dmabuf.hpp"
#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/clients/dmabuf_feedback.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/support/client.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/harness.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kGreen = 0xff00ff00;

View* mapped_view(Server& server) {
  for (const auto& v : server.windows().views())
    if (v->mapped()) return v.get();
  return nullptr;
}

// Loses the device the way a real loss shows up (the next pass fails) and
// runs until the Server rebuilt its renderer.
void lose_gpu(Harness& h) {
  const int before = h.server().renderer_rebuilds();
  vulkan::renderer_simulate_device_lost(h.server().renderer());
  for (Output* output : h.server().outputs()) wlr_output_schedule_frame(output->wlr());
  ASSERT_TRUE(h.run_until([&] { return h.server().renderer_rebuilds() == before + 1; }))
      << "the renderer was not rebuilt after the loss";
  EXPECT_TRUE(vulkan::is_vulkan_renderer(h.server().renderer()));
}

TEST(GpuLoss, WindowKeepsItsPixelsWithoutRedrawing) {
  REQUIRE_VULKAN(h);
  Client c(*h);
  Window a(c), b(c);
  for (auto [w, colour] : {std::pair{&a, kRed}, std::pair{&b, kBlue}}) {
    w->initial_commit();
    ASSERT_TRUE(h->run_until([&, w = w] { return w->configure_count() == 1; }));
    w->draw(120, 90, colour);
    h->sync();
  }
  ASSERT_EQ(h->server().windows().views().size(), 2u);
  View& red = *h->server().windows().views()[1];  // most recently focused first
  View& blue = *h->server().windows().views()[0];
  Image shown = h->capture();
  const uint32_t background = shown.at(0, 0);
  ASSERT_EQ(shown.at(red.x() + 5, red.y() + 5), kRed);
  ASSERT_EQ(shown.at(blue.x() + 100, blue.y() + 80), kBlue);
  const uint64_t frames = h->server().outputs()[0]->frames();

  lose_gpu(*h);

  // Neither client committed again: their pixels came from their buffers.
  Image after = h->capture();
  EXPECT_GT(h->server().outputs()[0]->frames(), frames) << "the output stopped presenting";
  EXPECT_EQ(after.at(red.x() + 5, red.y() + 5), kRed);
  EXPECT_EQ(after.at(blue.x() + 100, blue.y() + 80), kBlue);
  EXPECT_EQ(after.at(0, 0), background);
  EXPECT_EQ(diff_images(after, shown, 0).pixels_over_tolerance, 0);
  EXPECT_EQ(vulkan::renderer_debug_messages(h->server().renderer()), 0);
}

TEST(GpuLoss, ClientsKeepCommittingAcrossRepeatedLosses) {
  REQUIRE_VULKAN(h);
  Client c(*h);
  Window w(c);
  w.initial_commit();
  ASSERT_TRUE(h->run_until([&] { return w.configure_count() == 1; }));
  w.draw(200, 150, kRed);
  ASSERT_TRUE(h->run_until([&] { return mapped_view(h->server()) != nullptr; }));
  View& view = *mapped_view(h->server());

  const uint32_t colours[] = {kGreen, kBlue, kRed};
  for (int loss = 0; loss < 3; ++loss) {
    SCOPED_TRACE("loss " + std::to_string(loss + 1));
    lose_gpu(*h);
    EXPECT_EQ(h->server().renderer_rebuilds(), loss + 1);
    // A new buffer after the loss goes through the new renderer.
    w.draw(200, 150, colours[loss]);
    h->sync();
    Image image = h->capture();
    EXPECT_EQ(image.at(view.x(), view.y()), colours[loss]);
    EXPECT_EQ(image.at(view.x() + 199, view.y() + 149), colours[loss]);
  }
}

// A client that destroyed its buffer after the compositor released it: the
// compositor may still hold the memory (then the pixels come back) or not
// (then the window is blank); either way its next commit shows.
TEST(GpuLoss, WindowWhoseBufferWasDestroyedComesBack) {
  REQUIRE_VULKAN(h);
  Client c(*h);
  Window w(c);
  w.initial_commit();
  ASSERT_TRUE(h->run_until([&] { return w.configure_count() == 1; }));
  w.draw(100, 100, kRed);
  ASSERT_TRUE(h->run_until([&] { return mapped_view(h->server()) != nullptr; }));
  View& view = *mapped_view(h->server());
  {
    ShmBuffer blue(c.shm, 100, 100, kBlue);
    wl_surface_attach(w.surface(), blue.get(), 0, 0);
    wl_surface_damage_buffer(w.surface(), 0, 0, 100, 100);
    wl_surface_commit(w.surface());
    ASSERT_TRUE(h->run_until([&] { return blue.released(); }));
  }  // wl_buffer.destroy
  h->sync();
  ASSERT_EQ(h->capture().at(view.x() + 50, view.y() + 50), kBlue);
  lose_gpu(*h);
  w.draw(100, 100, kGreen);
  h->sync();
  EXPECT_EQ(h->capture().at(view.x() + 50, view.y() + 50), kGreen);
}

// The first /dev/dri/cardN of `driver`, or "".
std::string card_of(std::string_view driver) {
  for (int i = 0; i < 16; ++i) {
    std::string path = "/dev/dri/card" + std::to_string(i);
    UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (fd && baton::testing::drm_driver_name(fd.get()) == driver) return path;
  }
  return "";
}

// linux-dmabuf-v1 checks a client's buffer against the importable formats of
// the renderer of the moment; the set it used before a loss died with the
// old renderer. A client's default feedback is sent again after the loss
// (a second done), listing the rebuilt renderer's pairs (here the same
// lavapipe's, so the second done is what shows the resend). (Needs a Vulkan
// device that imports dma-bufs without a DRM node of its own, as lavapipe
// does with /dev/udmabuf: the qemu guest.)
TEST(GpuLoss, LinuxDmabufChecksTheRebuiltRenderersFormats) {
  const std::string vgem = card_of("vgem");
  if (vgem.empty()) {
    if (std::getenv("BATON_REQUIRE_DMABUF") != nullptr) FAIL() << "required: a vgem card";
    GTEST_SKIP()
        << "UNTESTED HERE: no vgem card for --drm-device (run in tests/vm/: vk-dmabuf-server)";
  }
  Options options = headless_options();
  options.renderer = RendererChoice::vulkan;
  options.drm_device = vgem;
  Harness h(std::move(options));
  const LinuxDmabuf* dmabuf = h.server().linux_dmabuf();
  if (dmabuf == nullptr) {
    if (std::getenv("BATON_REQUIRE_DMABUF") != nullptr) FAIL() << "required: linux-dmabuf-v1";
    GTEST_SKIP() << "UNTESTED HERE: the Vulkan device imports no dma-bufs (run in tests/vm/)";
  }
  ASSERT_TRUE(dmabuf->accepts(DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR));
  EXPECT_FALSE(dmabuf->accepts(DRM_FORMAT_ARGB8888, 0x0100000000000001ULL));  // Intel X-tiled
  Client client(h);
  Globals globals(h, client.display());
  auto* manager = static_cast<zwp_linux_dmabuf_v1*>(globals.bind(
      &zwp_linux_dmabuf_v1_interface, ZWP_LINUX_DMABUF_V1_GET_DEFAULT_FEEDBACK_SINCE_VERSION));
  ASSERT_NE(manager, nullptr);
  testing::Feedback feedback;
  zwp_linux_dmabuf_feedback_v1* object = zwp_linux_dmabuf_v1_get_default_feedback(manager);
  zwp_linux_dmabuf_feedback_v1_add_listener(object, &testing::kFeedbackListener, &feedback);
  ASSERT_TRUE(h.run_until([&] { return feedback.dones == 1; }));
  lose_gpu(h);
  const wlr_drm_format_set* after =
      wlr_renderer_get_texture_formats(h.server().renderer(), WLR_BUFFER_CAP_DMABUF);
  EXPECT_EQ(dmabuf->checked_formats(), after);
  EXPECT_TRUE(dmabuf->accepts(DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR));
  ASSERT_TRUE(h.run_until([&] { return feedback.dones == 2; }))
      << "the default feedback was not sent again after the loss";
  // What it lists: the rebuilt renderer's pairs, and the implicit modifier
  // beside each format it imports as LINEAR.
  testing::Pairs want;
  for (size_t i = 0; i < after->len; ++i)
    for (size_t m = 0; m < after->formats[i].len; ++m) {
      want.insert({after->formats[i].format, after->formats[i].modifiers[m]});
      if (after->formats[i].modifiers[m] == DRM_FORMAT_MOD_LINEAR)
        want.insert({after->formats[i].format, DRM_FORMAT_MOD_INVALID});
    }
  testing::Pairs got;
  for (const testing::Tranche& t : feedback.tranches) got.insert(t.pairs.begin(), t.pairs.end());
  EXPECT_EQ(got, want) << "sent:" << testing::describe(got)
                       << "\nwanted:" << testing::describe(want);
  zwp_linux_dmabuf_feedback_v1_destroy(object);
  zwp_linux_dmabuf_v1_destroy(manager);
}

TEST(ComputeCompositing, OverlappingWindowsShowAndSurviveAGpuLoss) {
  REQUIRE_VULKAN(h, CompositingChoice::compute);
  ASSERT_TRUE(vulkan::renderer_composites_with_compute(h->server().renderer()));
  Client c(*h);
  Window a(c), b(c);
  for (auto [w, colour] : {std::pair{&a, kRed}, std::pair{&b, kBlue}}) {
    w->initial_commit();
    ASSERT_TRUE(h->run_until([&, w = w] { return w->configure_count() == 1; }));
    w->draw(160, 120, colour);
    h->sync();
  }
  ASSERT_EQ(h->server().windows().views().size(), 2u);
  View& top = *h->server().windows().views()[0];  // blue, focused and above
  View& below = *h->server().windows().views()[1];
  // Placement keeps new windows apart: put the top one over the other, offset,
  // so that it wins where they overlap.
  top.move_to(below.x() + 32, below.y() + 32);
  h->sync();
  const uint64_t compute_before = vulkan::renderer_pass_counts(h->server().renderer()).compute;
  Image shown = h->capture();
  EXPECT_EQ(shown.at(top.x() + 5, top.y() + 5), kBlue);
  // A corner of the lower window outside the top one shows red.
  bool seen_red = false;
  for (auto [x, y] :
       {std::pair{below.x() + 1, below.y() + 1}, std::pair{below.x() + 158, below.y() + 1},
        std::pair{below.x() + 1, below.y() + 118}, std::pair{below.x() + 158, below.y() + 118}}) {
    const bool under_top = x >= top.x() && x < top.x() + 160 && y >= top.y() && y < top.y() + 120;
    if (!under_top) {
      EXPECT_EQ(shown.at(x, y), kRed) << "at " << x << "," << y;
      seen_red = true;
    }
  }
  EXPECT_TRUE(seen_red) << "the top window hides the lower one entirely";
  EXPECT_EQ(shown.at(top.x() + 159, top.y() + 119), kBlue);
  EXPECT_GT(vulkan::renderer_pass_counts(h->server().renderer()).compute, compute_before);
  EXPECT_EQ(vulkan::renderer_pass_counts(h->server().renderer()).raster, 0u);

  lose_gpu(*h);
  ASSERT_TRUE(vulkan::renderer_composites_with_compute(h->server().renderer()))
      << "the rebuilt renderer lost the requested compositing path";
  b.draw(160, 120, kGreen);
  h->sync();
  Image after = h->capture();
  EXPECT_EQ(after.at(top.x() + 5, top.y() + 5), kGreen);
  EXPECT_EQ(vulkan::renderer_debug_messages(h->server().renderer()), 0);
}

}  // namespace
}  // namespace baton::test
