// Teardown of every kind of object baton keeps, in one server's life: an
// output plugged in at runtime and unplugged under a window, virtual
// keyboards and pointers, a crashing client's buffers, a crashing client's
// cursor image, (on Vulkan) the renderer and allocator rebuilt after GPU
// losses, and last the Server itself with clients still connected.
//
// wlroots 0.19 asserts that nobody still listens to an object it destroys,
// and under tools/test-sanitized AddressSanitizer sees every use after free
// and every leak; each step also checks what the user sees afterwards.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kYellow = 0xffffff00;
constexpr uint32_t kMagenta = 0xffff00ff;
constexpr long kWindowPixels = 200L * 150;  // map_window's size

// Moves the virtual pointer to layout point (x, y): absolute motion is
// relative to the whole layout, whatever outputs it has now.
void point_at(Harness& h, VirtualPointer& pointer, int x, int y) {
  wlr_box layout{};
  wlr_output_layout_get_box(h.server().output_layout(), nullptr, &layout);
  pointer.move_to(x - layout.x, y - layout.y, layout.width, layout.height);
}

// Parks the pointer in the first output's bottom-right corner, where no
// window is, so the cursor image covers no pixel a check counts.
void park(Harness& h, VirtualPointer& pointer) {
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), h.server().outputs().at(0)->wlr(), &box);
  point_at(h, pointer, box.x + box.width - 1, box.y + box.height - 1);
}

bool got_key(const Client& c, uint32_t key) {
  return std::any_of(c.keys.begin(), c.keys.end(), [key](const KeyEvent& k) {
    return k.key == key && k.state == WL_KEYBOARD_KEY_STATE_PRESSED;
  });
}

void live_and_die(std::unique_ptr<Harness> h, bool lose_gpu) {
  // Client-side objects are declared after the harness: they go first.
  auto c = std::make_unique<Client>(*h);
  auto keyboard_a = std::make_unique<VirtualKeyboard>(*h, *c);
  auto keyboard_b = std::make_unique<VirtualKeyboard>(*h, *c);
  auto pointer_a = std::make_unique<VirtualPointer>(*h, *c);
  auto pointer_b = std::make_unique<VirtualPointer>(*h, *c);
  ASSERT_EQ(h->server().outputs().size(), 1u);
  Output* first = h->server().outputs()[0];

  // 1. A monitor plugged in at runtime takes a window, then is unplugged:
  // the window comes to the remaining output, where input still reaches it.
  wlr_output* plugged = wlr_headless_add_output(h->server().backend(), 640, 480);
  ASSERT_NE(plugged, nullptr);
  ASSERT_TRUE(h->run_until([&] {
    auto outputs = h->server().outputs();
    return outputs.size() == 2 && outputs[1]->frames() > 0;
  }));
  Output* second = h->server().outputs()[1];
  wlr_box box{};
  wlr_output_layout_get_box(h->server().output_layout(), plugged, &box);
  point_at(*h, *pointer_a, box.x + box.width - 1, box.y + box.height - 1);
  auto window = std::make_unique<Window>(*c);
  View* view = map_window(*h, *window, kGreen);
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->output(), second) << "new windows open on the output the user is on";
  EXPECT_EQ(count_pixels(h->capture(1), kGreen), kWindowPixels);
  wlr_output_destroy(plugged);
  ASSERT_EQ(h->server().outputs().size(), 1u);
  EXPECT_EQ(view->output(), first);
  EXPECT_TRUE(view->visible());
  park(*h, *pointer_a);
  EXPECT_EQ(count_pixels(h->capture(0), kGreen), kWindowPixels);
  point_at(*h, *pointer_a, view->x() + 100, view->y() + 75);
  ASSERT_TRUE(h->run_until([&] { return c->pointer_focus == window->surface(); }));
  keyboard_a->chord({KEY_A});
  EXPECT_TRUE(got_key(*c, KEY_A));

  // 2. The devices the seat used last go away (their wlr_keyboard and
  // wlr_pointer, and the pointer's attachment to the cursor, with them):
  // the others still type and point.
  keyboard_a.reset();
  pointer_a.reset();
  h->sync();
  EXPECT_EQ(c->seat_capabilities, WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_POINTER);
  keyboard_b->chord({KEY_B});
  EXPECT_TRUE(got_key(*c, KEY_B)) << "the remaining keyboard does not type";
  point_at(*h, *pointer_b, view->x() + 30, view->y() + 40);
  EXPECT_TRUE(h->run_until([&] { return c->pointer_x == 30 && c->pointer_y == 40; }))
      << "the remaining pointer does not move the cursor";
  pointer_b->button(BTN_LEFT, true);
  pointer_b->button(BTN_LEFT, false);
  EXPECT_FALSE(c->buttons.empty()) << "the remaining pointer does not click";

  // 3. A client commits two shm buffers and crashes: its window and the
  // buffer on screen go; the other window takes the focus back.
  {
    auto crasher = std::make_unique<Client>(*h);
    auto doomed = std::make_unique<Window>(*crasher);
    ASSERT_NE(map_window(*h, *doomed, kRed), nullptr);
    doomed->draw(200, 150, kBlue);
    h->sync();
    park(*h, *pointer_b);
    EXPECT_EQ(count_pixels(h->capture(), kBlue), kWindowPixels);
    wl_display* display = crasher->display();
    // Freeing the client's objects only queues their destroy requests; the
    // disconnect drops them unsent, as a crash does.
    doomed.reset();
    crasher.reset();
    h->disconnect(display);
    ASSERT_TRUE(h->run_until([&] { return h->server().windows().views().size() == 1; }));
  }
  {
    Image shot = h->capture();
    EXPECT_EQ(count_pixels(shot, kBlue), 0) << "a crashed client's buffer is still shown";
    EXPECT_EQ(count_pixels(shot, kGreen), kWindowPixels);
    EXPECT_EQ(h->server().windows().focused(), view);
  }

  // 4. A client sets a cursor image over its window and crashes: the image
  // goes with it, and the pointer still enters the other window.
  {
    auto pointing = std::make_unique<Client>(*h);
    auto hovered = std::make_unique<Window>(*pointing);
    View* hovered_view = map_window(*h, *hovered, kYellow);
    ASSERT_NE(hovered_view, nullptr);
    const int px = hovered_view->x() + 100;
    const int py = hovered_view->y() + 75;
    point_at(*h, *pointer_b, px, py);
    ASSERT_TRUE(h->run_until([&] { return pointing->pointer_focus == hovered->surface(); }));
    auto image = std::make_unique<ShmBuffer>(pointing->shm, 16, 16, kMagenta);
    Owned<wl_surface, wl_surface_destroy> cursor(
        wl_compositor_create_surface(pointing->compositor));
    wl_surface_attach(cursor, image->get(), 0, 0);
    wl_surface_damage_buffer(cursor, 0, 0, 16, 16);
    wl_surface_commit(cursor);
    wl_pointer_set_cursor(pointing->pointer, pointing->pointer_enter_serial, cursor, 0, 0);
    h->sync();
    EXPECT_EQ(h->capture().at(px + 8, py + 8), kMagenta)
        << "the client's cursor image is not shown";
    wl_display* display = pointing->display();
    cursor.reset();
    image.reset();
    hovered.reset();
    pointing.reset();
    h->disconnect(display);
    ASSERT_TRUE(h->run_until([&] { return h->server().windows().views().size() == 1; }));
    Image shot = h->capture();
    EXPECT_EQ(count_pixels(shot, kMagenta), 0) << "a crashed client's cursor image is still shown";
    EXPECT_EQ(count_pixels(shot, kYellow), 0);
    point_at(*h, *pointer_b, view->x() + 50, view->y() + 60);
    EXPECT_TRUE(h->run_until([&] {
      return c->pointer_focus == window->surface() && c->pointer_x == 50 && c->pointer_y == 60;
    }));
  }

  // 5. Vulkan: the device is lost twice; each time the renderer and its
  // allocator are destroyed and built again (the second rebuild also drops
  // the textures the first made for the clients' buffers), and the window
  // keeps its pixels without drawing again.
  if (lose_gpu) {
    park(*h, *pointer_b);
    for (int loss = 1; loss <= 2; ++loss) {
      SCOPED_TRACE("GPU loss " + std::to_string(loss));
      const uint64_t frames = h->server().outputs()[0]->frames();
      vulkan::renderer_simulate_device_lost(h->server().renderer());
      for (Output* output : h->server().outputs()) wlr_output_schedule_frame(output->wlr());
      ASSERT_TRUE(h->run_until([&] { return h->server().renderer_rebuilds() == loss; }))
          << "the renderer was not rebuilt";
      EXPECT_TRUE(vulkan::is_vulkan_renderer(h->server().renderer()));
      EXPECT_EQ(count_pixels(h->capture(), kGreen), kWindowPixels)
          << "the window lost its pixels with the renderer";
      EXPECT_GT(h->server().outputs()[0]->frames(), frames) << "the output stopped presenting";
    }
  }

  // 6. After all that, a new client maps a window that shows, takes the
  // focus and gets the keys.
  auto late = std::make_unique<Client>(*h);
  auto late_window = std::make_unique<Window>(*late);
  View* late_view = map_window(*h, *late_window, kBlue);
  ASSERT_NE(late_view, nullptr);
  EXPECT_EQ(h->server().windows().focused(), late_view);
  park(*h, *pointer_b);
  EXPECT_EQ(count_pixels(h->capture(), kBlue), kWindowPixels);
  keyboard_b->chord({KEY_C});
  EXPECT_TRUE(got_key(*late, KEY_C));

  // 7. The Server goes while its clients are still connected, with windows,
  // buffers and virtual devices: the harness disconnects them without
  // flushing (so their objects are alive on the server's side), then
  // destroys the Server: seat, cursor, outputs, renderer, allocator, backend.
  ASSERT_EQ(h->server().windows().views().size(), 2u);
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  ASSERT_NE(runtime, nullptr);
  const std::string socket = std::string(runtime) + "/" + h->server().socket_name();
  struct stat info {};
  ASSERT_EQ(stat(socket.c_str(), &info), 0) << socket;
  late_window.reset();
  late.reset();
  window.reset();
  keyboard_b.reset();
  pointer_b.reset();
  c.reset();
  h.reset();
  EXPECT_NE(stat(socket.c_str(), &info), 0) << "the socket outlived its server";
  // Nothing of it is left behind in this process: a new Server works.
  Harness again;
  Client client(again);
  Window fresh(client);
  EXPECT_NE(map_window(again, fresh, kGreen), nullptr);
}

TEST(Teardown, EveryObjectKindInOneServersLife) {
  live_and_die(std::make_unique<Harness>(), false);
}

TEST(Teardown, EveryObjectKindAndGpuLossesOnVulkan) {
  std::string why;
  auto h = vulkan_harness(why);
  if (!h) GTEST_SKIP() << "UNTESTED HERE: needs a Vulkan device (lavapipe will do): " << why;
  ASSERT_TRUE(vulkan::is_vulkan_renderer(h->server().renderer()));
  live_and_die(std::move(h), true);
}

}  // namespace
}  // namespace baton::test
