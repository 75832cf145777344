// What clients say about their windows, from the client side: their icon
// (xdg-toplevel-icon, shown in the title bar), a bell (xdg-system-bell: an
// unfocused window turns urgent), dialogs (xdg-dialog: centred on the
// parent, modal ones keep the focus), opacity (alpha-modifier), the
// read-only window list (ext-foreign-toplevel-list) and presentation-time
// version 2. No Debian 12 client speaks these (they arrived with GTK 4.16,
// Qt 6.8 and foot 1.20), so the clients are our own, written from the XML.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "alpha-modifier-v1-client-protocol.h"
#include "compositor/desktop/decorations.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"
#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-dialog-v1-client-protocol.h"
#include "xdg-system-bell-v1-client-protocol.h"
#include "xdg-toplevel-icon-v1-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kBar = 0xff4c7899;     // the default focused title bar
constexpr uint32_t kUrgent = 0xff900000;  // the default urgent title bar

class Hints : public ::testing::Test {
 protected:
  Hints() : c(h), globals(h, c.display()) {}
  template <typename T>
  T* bind(const wl_interface* interface, uint32_t version) {
    auto* p = static_cast<T*>(globals.bind(interface, version));
    EXPECT_NE(p, nullptr) << interface->name << " is not advertised";
    return p;
  }
  Harness h;
  Client c;
  Globals globals;
};

// --- xdg-toplevel-icon ------------------------------------------------------

class Icon : public Hints {
 protected:
  Icon() : window(c) {
    decorations = bind<zxdg_decoration_manager_v1>(&zxdg_decoration_manager_v1_interface, 1);
    decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(decorations, window.toplevel());
    icons = bind<xdg_toplevel_icon_manager_v1>(&xdg_toplevel_icon_manager_v1_interface, 1);
    view = map_window(h, window, kRed);
  }
  ~Icon() override {
    zxdg_toplevel_decoration_v1_destroy(decoration);
    zxdg_decoration_manager_v1_destroy(decorations);
    xdg_toplevel_icon_manager_v1_destroy(icons);
  }
  /// The icon's place at the left of the title bar, in layout coordinates.
  [[nodiscard]] Box icon_box() const {
    Rect f = view->frame();
    return {f.x + 4, f.y - Decoration::kTitleHeight + 2, f.x + 4 + Decoration::kIcon,
            f.y - Decoration::kTitleHeight + 2 + Decoration::kIcon};
  }
  Window window;
  zxdg_decoration_manager_v1* decorations = nullptr;
  zxdg_toplevel_decoration_v1* decoration = nullptr;
  xdg_toplevel_icon_manager_v1* icons = nullptr;
  View* view = nullptr;
};

TEST_F(Icon, ABufferIconIsDrawnInTheTitleBarAndUnsetAgain) {
  ASSERT_NE(view, nullptr);
  ASSERT_TRUE(view->server_decorated());
  const Box box = icon_box();
  const long area = static_cast<long>(Decoration::kIcon) * Decoration::kIcon;
  EXPECT_EQ(count_pixels(h.capture(), kBar, box), area) << "the bar has an icon before any was set";

  // A 48x48 green icon, scaled to the bar.
  ShmBuffer pixels(c.shm, 48, 48, kGreen);
  xdg_toplevel_icon_v1* icon = xdg_toplevel_icon_manager_v1_create_icon(icons);
  xdg_toplevel_icon_v1_add_buffer(icon, pixels.get(), 1);
  xdg_toplevel_icon_manager_v1_set_icon(icons, window.toplevel(), icon);
  xdg_toplevel_icon_v1_destroy(icon);  // the window keeps it
  h.sync();
  Image shot = h.capture();
  EXPECT_GT(count_pixels(shot, kGreen, box), area * 8 / 10);
  EXPECT_EQ(count_pixels(shot, kGreen, {0, 0, box.x0, 480}), 0) << "icon drawn left of its place";

  // A null icon takes it away.
  xdg_toplevel_icon_manager_v1_set_icon(icons, window.toplevel(), nullptr);
  h.sync();
  EXPECT_EQ(count_pixels(h.capture(), kGreen), 0);
}

// wl_shm lets a buffer start at any byte of its pool. An icon two bytes in,
// in XRGB8888 with its unused byte zero, is drawn whole and opaque (its rows
// are not 4-byte aligned: reading them as words was undefined behaviour,
// found by the protocol fuzzer under UBSan).
TEST_F(Icon, AnIconAtAnOddOffsetInItsPoolIsDrawn) {
  ASSERT_NE(view, nullptr);
  constexpr int kSide = 48;
  constexpr int kOffset = 2;
  constexpr size_t kBytes = kOffset + size_t{kSide} * kSide * 4;
  const int fd = memfd_create("baton-test-odd-icon", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kBytes), 0);
  void* map = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  const uint32_t green_no_alpha = kGreen & 0x00ffffffu;
  for (size_t i = 0; i < size_t{kSide} * kSide; ++i)
    std::memcpy(static_cast<unsigned char*>(map) + kOffset + i * 4, &green_no_alpha, 4);
  munmap(map, kBytes);
  wl_shm_pool* pool = wl_shm_create_pool(c.shm, fd, static_cast<int32_t>(kBytes));
  close(fd);
  wl_buffer* pixels =
      wl_shm_pool_create_buffer(pool, kOffset, kSide, kSide, kSide * 4, WL_SHM_FORMAT_XRGB8888);
  wl_shm_pool_destroy(pool);

  xdg_toplevel_icon_v1* icon = xdg_toplevel_icon_manager_v1_create_icon(icons);
  xdg_toplevel_icon_v1_add_buffer(icon, pixels, 1);
  xdg_toplevel_icon_manager_v1_set_icon(icons, window.toplevel(), icon);
  xdg_toplevel_icon_v1_destroy(icon);
  h.sync();
  const long area = static_cast<long>(Decoration::kIcon) * Decoration::kIcon;
  EXPECT_GT(count_pixels(h.capture(), kGreen, icon_box()), area * 8 / 10)
      << "the icon is missing or not opaque green";
  wl_buffer_destroy(pixels);
}

TEST_F(Icon, ANamedIconComesFromTheIconTheme) {
  ASSERT_NE(view, nullptr);
  xdg_toplevel_icon_v1* icon = xdg_toplevel_icon_manager_v1_create_icon(icons);
  xdg_toplevel_icon_v1_set_name(icon, "foot");  // hicolor/48x48/apps/foot.png
  xdg_toplevel_icon_manager_v1_set_icon(icons, window.toplevel(), icon);
  xdg_toplevel_icon_v1_destroy(icon);
  h.sync();
  const long area = static_cast<long>(Decoration::kIcon) * Decoration::kIcon;
  Image shot = h.capture();
  EXPECT_LT(count_pixels(shot, kBar, icon_box()), area * 9 / 10)
      << "foot's icon is not in the title bar";
  auto golden = compare_to_golden(shot, "ssd-title-bar-named-icon");
  EXPECT_TRUE(golden.ok) << golden.message;
}

// --- xdg-system-bell ---------------------------------------------------------

TEST_F(Hints, ABellMarksAnUnfocusedWindowUrgentOnly) {
  auto* bell = bind<xdg_system_bell_v1>(&xdg_system_bell_v1_interface, 1);
  Window first(c), second(c);
  View* a = map_window(h, first, kRed);
  View* b = map_window(h, second, kBlue);  // mapped last: focused
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(b->activated());
  xdg_system_bell_v1_ring(bell, first.surface());
  xdg_system_bell_v1_ring(bell, second.surface());
  xdg_system_bell_v1_ring(bell, nullptr);  // a bell of no window: nothing to mark
  h.sync();
  EXPECT_TRUE(a->urgent());
  EXPECT_FALSE(b->urgent()) << "the focused window itself rang";
  // Focusing it clears the mark.
  h.server().windows().focus(a);
  EXPECT_FALSE(a->urgent());
  xdg_system_bell_v1_destroy(bell);
}

// --- xdg-dialog ----------------------------------------------------------------

TEST_F(Hints, ADialogOpensCentredOnItsParentAndAModalOneKeepsTheFocus) {
  auto* dialogs = bind<xdg_wm_dialog_v1>(&xdg_wm_dialog_v1_interface, 1);
  Window parent(c), child(c), other(c);
  View* p = map_window(h, parent, kRed, 400, 300);
  ASSERT_NE(p, nullptr);
  xdg_toplevel_set_parent(child.toplevel(), parent.toplevel());
  xdg_dialog_v1* dialog = xdg_wm_dialog_v1_get_xdg_dialog(dialogs, child.toplevel());
  xdg_dialog_v1_set_modal(dialog);
  View* d = map_window(h, child, kBlue, 100, 80);
  ASSERT_NE(d, nullptr);
  const Rect pf = p->frame(), df = d->frame();
  EXPECT_EQ(df.x + df.width / 2, pf.x + pf.width / 2);
  EXPECT_EQ(df.y + df.height / 2, pf.y + pf.height / 2);

  // Another window takes the focus; giving it back to the parent gives it
  // to the modal dialog.
  View* o = map_window(h, other, kGreen);
  ASSERT_TRUE(o->activated());
  h.server().windows().focus(p);
  EXPECT_TRUE(d->activated());
  EXPECT_FALSE(p->activated());
  EXPECT_EQ(h.server().seat().wlr()->keyboard_state.focused_surface, d->surface());

  // Not modal any more: the parent can have it.
  xdg_dialog_v1_unset_modal(dialog);
  h.sync();
  h.server().windows().focus(p);
  EXPECT_TRUE(p->activated());
  xdg_dialog_v1_destroy(dialog);
  xdg_wm_dialog_v1_destroy(dialogs);
}

// --- alpha-modifier ----------------------------------------------------------

/// Half opacity from alpha-modifier blends a window over the background.
void expect_alpha_blend(Harness& h) {
  Client c(h);
  Globals globals(h, c.display());
  auto* alpha =
      static_cast<wp_alpha_modifier_v1*>(globals.bind(&wp_alpha_modifier_v1_interface, 1));
  ASSERT_NE(alpha, nullptr) << "alpha-modifier is not advertised";
  Window window(c);
  View* view = map_window(h, window, kRed);
  ASSERT_NE(view, nullptr);
  const int x = view->x() + 100, y = view->y() + 75;
  const uint32_t behind = h.capture().at(5, 5);  // the background
  ASSERT_EQ(h.capture().at(x, y), kRed);
  wp_alpha_modifier_surface_v1* modifier =
      wp_alpha_modifier_v1_get_surface(alpha, window.surface());
  wp_alpha_modifier_surface_v1_set_multiplier(modifier, UINT32_MAX / 2);  // 50 %
  window.draw(200, 150, kRed);                                            // state is per commit
  h.sync();
  const uint32_t blended = h.capture().at(x, y);
  auto channel = [](uint32_t p, int shift) { return static_cast<int>((p >> shift) & 0xff); };
  for (int shift : {16, 8, 0}) {
    const int expected = (channel(kRed, shift) + channel(behind, shift)) / 2;
    EXPECT_NEAR(channel(blended, shift), expected, 2) << "channel at bit " << shift;
  }
  // Destroying the modifier restores full opacity on the next commit.
  wp_alpha_modifier_surface_v1_destroy(modifier);
  window.draw(200, 150, kRed);
  h.sync();
  EXPECT_EQ(h.capture().at(x, y), kRed);
  wp_alpha_modifier_v1_destroy(alpha);
}

TEST(AlphaModifier, BlendsTheSurfaceOnPixman) {
  Harness h;
  expect_alpha_blend(h);
}

TEST(AlphaModifier, BlendsTheSurfaceOnVulkan) {
  Options options = headless_options();
  options.renderer = RendererChoice::vulkan;
  Harness h(options);
  expect_alpha_blend(h);
}

// --- ext-foreign-toplevel-list -----------------------------------------------

struct ListedToplevel {
  std::string title, app_id, identifier;
  int dones = 0;
  bool closed = false;
};

struct ToplevelList {
  ToplevelList(Hints& t, ext_foreign_toplevel_list_v1* list) : list(list) {
    static const ext_foreign_toplevel_list_v1_listener listener = {
        .toplevel =
            [](void* data, ext_foreign_toplevel_list_v1*, ext_foreign_toplevel_handle_v1* handle) {
              auto* self = static_cast<ToplevelList*>(data);
              self->entries.push_back(std::make_unique<ListedToplevel>());
              self->handles.push_back(handle);
              static const ext_foreign_toplevel_handle_v1_listener handle_listener = {
                  .closed =
                      [](void* d, ext_foreign_toplevel_handle_v1*) {
                        static_cast<ListedToplevel*>(d)->closed = true;
                      },
                  .done =
                      [](void* d, ext_foreign_toplevel_handle_v1*) {
                        ++static_cast<ListedToplevel*>(d)->dones;
                      },
                  .title = [](void* d, ext_foreign_toplevel_handle_v1*,
                              const char* s) { static_cast<ListedToplevel*>(d)->title = s; },
                  .app_id = [](void* d, ext_foreign_toplevel_handle_v1*,
                               const char* s) { static_cast<ListedToplevel*>(d)->app_id = s; },
                  .identifier =
                      [](void* d, ext_foreign_toplevel_handle_v1*, const char* s) {
                        static_cast<ListedToplevel*>(d)->identifier = s;
                      }};
              ext_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener,
                                                          self->entries.back().get());
            },
        .finished = [](void*, ext_foreign_toplevel_list_v1*) {}};
    ext_foreign_toplevel_list_v1_add_listener(list, &listener, this);
    t_ = &t;
  }
  ~ToplevelList() {
    for (auto* handle : handles) ext_foreign_toplevel_handle_v1_destroy(handle);
    ext_foreign_toplevel_list_v1_destroy(list);
  }
  ext_foreign_toplevel_list_v1* list;
  std::vector<std::unique_ptr<ListedToplevel>> entries;
  std::vector<ext_foreign_toplevel_handle_v1*> handles;
  Hints* t_ = nullptr;
};

TEST_F(Hints, TheToplevelListFollowsTitlesAndClosedWindows) {
  Window first(c);
  xdg_toplevel_set_title(first.toplevel(), "first");
  xdg_toplevel_set_app_id(first.toplevel(), "org.example.First");
  ASSERT_NE(map_window(h, first, kRed), nullptr);
  ToplevelList list(*this,
                    bind<ext_foreign_toplevel_list_v1>(&ext_foreign_toplevel_list_v1_interface, 1));
  ASSERT_TRUE(h.run_until([&] { return list.entries.size() == 1 && list.entries[0]->dones > 0; }));
  EXPECT_EQ(list.entries[0]->title, "first");
  EXPECT_EQ(list.entries[0]->app_id, "org.example.First");
  EXPECT_FALSE(list.entries[0]->identifier.empty());

  // A second window appears with its own identifier; a title change follows.
  Window second(c);
  xdg_toplevel_set_title(second.toplevel(), "second");
  ASSERT_NE(map_window(h, second, kBlue), nullptr);
  ASSERT_TRUE(h.run_until([&] { return list.entries.size() == 2 && list.entries[1]->dones > 0; }));
  EXPECT_EQ(list.entries[1]->title, "second");
  EXPECT_NE(list.entries[1]->identifier, list.entries[0]->identifier);
  xdg_toplevel_set_title(first.toplevel(), "first, renamed");
  wl_surface_commit(first.surface());
  ASSERT_TRUE(h.run_until([&] { return list.entries[0]->title == "first, renamed"; }));

  // Unmapping closes its entry, and only its.
  second.unmap();
  ASSERT_TRUE(h.run_until([&] { return list.entries[1]->closed; }));
  EXPECT_FALSE(list.entries[0]->closed);
}

// --- presentation-time version 2 ---------------------------------------------

TEST_F(Hints, PresentationTimeVersion2ReportsTheRefreshPeriod) {
  auto* presentation = bind<wp_presentation>(&wp_presentation_interface, 2);
  ASSERT_NE(presentation, nullptr);
  EXPECT_EQ(wp_presentation_get_version(presentation), 2U);
  Window window(c);
  ASSERT_NE(map_window(h, window, kRed), nullptr);
  struct Presented {
    bool done = false;
    uint32_t refresh = 0;
    uint32_t flags = 0;
  } presented;
  struct wp_presentation_feedback* feedback =
      wp_presentation_feedback(presentation, window.surface());
  static const wp_presentation_feedback_listener listener = {
      .sync_output = [](void*, struct wp_presentation_feedback*, wl_output*) {},
      .presented =
          [](void* data, struct wp_presentation_feedback*, uint32_t, uint32_t, uint32_t,
             uint32_t refresh, uint32_t, uint32_t, uint32_t flags) {
            auto* p = static_cast<Presented*>(data);
            p->done = true;
            p->refresh = refresh;
            p->flags = flags;
          },
      .discarded =
          [](void* data, struct wp_presentation_feedback*) {
            static_cast<Presented*>(data)->done = true;
          }};
  wp_presentation_feedback_add_listener(feedback, &listener, &presented);
  window.draw(200, 150, kBlue);
  ASSERT_TRUE(h.run_until([&] { return presented.done; }));
  wp_presentation_feedback_destroy(feedback);  // the server is done with it
  // The headless output refreshes at 60 Hz: a period of 16.67 ms.
  EXPECT_NEAR(static_cast<double>(presented.refresh), 1e9 / 60.0, 1e5);
  wp_presentation_destroy(presentation);
}

}  // namespace
}  // namespace baton::test
