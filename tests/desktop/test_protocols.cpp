// Desktop protocols from the client side: session lock (our client and
// swaylock), foreign toplevels, shortcut inhibitors, idle
// notification and inhibition, relative pointer, output power, output
// management, decoration mode negotiation.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <signal.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/output/output.hpp"
#include "compositor/shell/session_lock.hpp"
#include "cursor-shape-v1-client-protocol.h"
#include "ext-idle-notify-v1-client-protocol.h"
#include "ext-session-lock-v1-client-protocol.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-gamma-control-unstable-v1-client-protocol.h"
#include "wlr-output-management-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;

class Protocols : public ::testing::Test {
 protected:
  Protocols() : c(h), globals(h, c.display()), keyboard(h, c) {}

  View* map(Window& w, uint32_t colour) { return map_window(h, w, colour); }
  template <typename T>
  T* bind(const wl_interface* interface, uint32_t version) {
    auto* p = static_cast<T*>(globals.bind(interface, version));
    EXPECT_NE(p, nullptr) << interface->name << " is not advertised";
    return p;
  }

  Harness h;
  Client c;
  Globals globals;
  VirtualKeyboard keyboard;
};

// --- session lock ---------------------------------------------------------

struct LockState {
  bool locked = false, finished = false;
  uint32_t serial = 0;
  int width = 0, height = 0;
};

TEST_F(Protocols, SessionLockCoversEverythingAndTakesTheKeyboard) {
  Window a(c);
  map(a, kRed);
  auto* manager = bind<ext_session_lock_manager_v1>(&ext_session_lock_manager_v1_interface, 1);
  LockState state;
  static const ext_session_lock_v1_listener lock_listener = {
      [](void* d, ext_session_lock_v1*) { static_cast<LockState*>(d)->locked = true; },
      [](void* d, ext_session_lock_v1*) { static_cast<LockState*>(d)->finished = true; }};
  ext_session_lock_v1* lock = ext_session_lock_manager_v1_lock(manager);
  ext_session_lock_v1_add_listener(lock, &lock_listener, &state);
  ASSERT_TRUE(h.run_until([&] { return state.locked; }));
  EXPECT_TRUE(h.server().session_lock().locked());
  // Covered before any lock surface exists: no window pixels.
  Image covered = h.capture();
  EXPECT_EQ(count_pixels(covered, kRed), 0);

  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  ext_session_lock_surface_v1* lock_surface =
      ext_session_lock_v1_get_lock_surface(lock, surface, c.output);
  static const ext_session_lock_surface_v1_listener surface_listener = {
      [](void* d, ext_session_lock_surface_v1*, uint32_t serial, uint32_t w, uint32_t hh) {
        auto* s = static_cast<LockState*>(d);
        s->serial = serial;
        s->width = static_cast<int>(w);
        s->height = static_cast<int>(hh);
      }};
  ext_session_lock_surface_v1_add_listener(lock_surface, &surface_listener, &state);
  ASSERT_TRUE(h.run_until([&] { return state.width > 0; }));
  EXPECT_EQ(state.width, 640);
  EXPECT_EQ(state.height, 480);
  ext_session_lock_surface_v1_ack_configure(lock_surface, state.serial);
  ShmBuffer buffer(c.shm, 640, 480, 0xff203040);
  wl_surface_attach(surface, buffer.get(), 0, 0);
  wl_surface_damage_buffer(surface, 0, 0, 640, 480);
  wl_surface_commit(surface);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == surface; }));
  Image shot = h.capture();
  EXPECT_EQ(count_pixels(shot, 0xff203040), 640 * 480) << std::hex << shot.at(320, 240);

  // Focusing a window or pressing a binding changes nothing while locked.
  h.server().windows().focus(h.server().windows().views().front().get());
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(h.server().workspaces().current(), 1);
  EXPECT_EQ(c.keyboard_focus, surface);

  ext_session_lock_v1_unlock_and_destroy(lock);
  ASSERT_TRUE(h.run_until([&] { return !h.server().session_lock().locked(); }));
  EXPECT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  ext_session_lock_surface_v1_destroy(lock_surface);
  wl_surface_destroy(surface);
  h.sync();
  EXPECT_EQ(count_pixels(h.capture(), kRed), 200 * 150);
  ext_session_lock_manager_v1_destroy(manager);
}

TEST_F(Protocols, ALockerThatDiesLeavesTheSessionLocked) {
  Window a(c);
  map(a, kRed);
  wl_display* display = nullptr;
  {
    Client locker(h);
    display = locker.display();
    Globals g(h, locker.display());
    Owned<ext_session_lock_manager_v1, ext_session_lock_manager_v1_destroy> manager(
        static_cast<ext_session_lock_manager_v1*>(
            g.bind(&ext_session_lock_manager_v1_interface, 1)));
    Owned<ext_session_lock_v1, ext_session_lock_v1_destroy> lock(
        ext_session_lock_manager_v1_lock(manager));
    ASSERT_TRUE(h.run_until([&] { return h.server().session_lock().locked(); }));
    // Leaving this scope frees the client's objects and only queues their
    // destroy requests: the disconnect below drops them unsent.
  }
  h.disconnect(display);  // as if the locker crashed
  h.run_for(milliseconds(50));
  EXPECT_TRUE(h.server().session_lock().locked());
  EXPECT_EQ(count_pixels(h.capture(), kRed), 0);
}

TEST_F(Protocols, SwaylockLocksTheSession) {
  if (std::system("command -v swaylock >/dev/null 2>&1") != 0)
    GTEST_SKIP()
        << "SKIPPED LOUDLY: swaylock is not installed (tools/deps.d/tests/desktop-clients.list)";
  Window a(c);
  map(a, kRed);
  Result<pid_t> pid = h.server().spawn("exec swaylock --color 305070");
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(h.run_until([&] { return h.server().session_lock().locked(); }, milliseconds(5000)));
  // swaylock's surface, in its colour, covers the screen.
  EXPECT_TRUE(h.run_until([&] { return count_pixels(h.capture(), 0xff305070) > 640 * 480 / 2; },
                          milliseconds(5000)));
  EXPECT_EQ(count_pixels(h.capture(), kRed), 0);
  // Killing the locker does not unlock (the password is the only way).
  kill(*pid, SIGKILL);
  h.run_for(milliseconds(200));
  EXPECT_TRUE(h.server().session_lock().locked());
  EXPECT_EQ(count_pixels(h.capture(), kRed), 0);
}

// --- foreign toplevel management -------------------------------------------

struct Toplevels {
  bool finished = false;
  std::vector<zwlr_foreign_toplevel_handle_v1*> handles;
  std::map<zwlr_foreign_toplevel_handle_v1*, std::string> titles;
  std::map<zwlr_foreign_toplevel_handle_v1*, bool> activated;
};

TEST_F(Protocols, ForeignToplevelsListActivateMaximizeAndClose) {
  Window a(c), b(c);
  xdg_toplevel_set_title(a.toplevel(), "first");
  xdg_toplevel_set_title(b.toplevel(), "second");
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  auto* manager =
      bind<zwlr_foreign_toplevel_manager_v1>(&zwlr_foreign_toplevel_manager_v1_interface, 3);
  Toplevels t;
  static const zwlr_foreign_toplevel_handle_v1_listener handle_listener = {
      [](void* d, zwlr_foreign_toplevel_handle_v1* h, const char* title) {
        static_cast<Toplevels*>(d)->titles[h] = title;
      },
      [](void*, zwlr_foreign_toplevel_handle_v1*, const char*) {},
      [](void*, zwlr_foreign_toplevel_handle_v1*, wl_output*) {},
      [](void*, zwlr_foreign_toplevel_handle_v1*, wl_output*) {},
      [](void* d, zwlr_foreign_toplevel_handle_v1* h, wl_array* states) {
        bool active = false;
        auto* s = static_cast<uint32_t*>(states->data);
        for (size_t i = 0; i < states->size / sizeof(uint32_t); ++i)
          active |= s[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED;
        static_cast<Toplevels*>(d)->activated[h] = active;
      },
      [](void*, zwlr_foreign_toplevel_handle_v1*) {},
      [](void*, zwlr_foreign_toplevel_handle_v1*) {},
      [](void*, zwlr_foreign_toplevel_handle_v1*, zwlr_foreign_toplevel_handle_v1*) {}};
  static const zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
      [](void* d, zwlr_foreign_toplevel_manager_v1*, zwlr_foreign_toplevel_handle_v1* handle) {
        static_cast<Toplevels*>(d)->handles.push_back(handle);
        zwlr_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener, d);
      },
      [](void* d, zwlr_foreign_toplevel_manager_v1*) {
        static_cast<Toplevels*>(d)->finished = true;
      }};
  zwlr_foreign_toplevel_manager_v1_add_listener(manager, &manager_listener, &t);
  ASSERT_TRUE(h.run_until([&] { return t.titles.size() == 2; }));
  zwlr_foreign_toplevel_handle_v1* first = nullptr;
  for (auto& [handle, title] : t.titles)
    if (title == "first") first = handle;
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(t.activated[first]);
  EXPECT_EQ(h.server().windows().focused(), vb);

  zwlr_foreign_toplevel_handle_v1_activate(first, c.seat);
  ASSERT_TRUE(
      h.run_until([&] { return h.server().windows().focused() == va && t.activated[first]; }));
  zwlr_foreign_toplevel_handle_v1_set_maximized(first);
  ASSERT_TRUE(h.run_until([&] { return va->maximized(); }));
  zwlr_foreign_toplevel_handle_v1_close(first);
  EXPECT_TRUE(h.run_until([&] { return a.closed; }));
  zwlr_foreign_toplevel_manager_v1_stop(manager);
  // The server destroys the manager after `finished`; the client frees its proxy then.
  EXPECT_TRUE(h.run_until([&] { return t.finished; }));
  zwlr_foreign_toplevel_manager_v1_destroy(manager);
  for (auto* handle : t.handles) zwlr_foreign_toplevel_handle_v1_destroy(handle);
}

// What a task bar sees of one window: its title and app id as they change,
// its maximized and fullscreen states whoever changed them, and its end.
// WLCS's ForeignToplevelHandleTest and ForeignToplevelManagerTest, which its
// surface builders keep from baton (docs/wlcs.md); baton has no minimized
// state, so their minimize cases are not here.
struct OneToplevel {
  zwlr_foreign_toplevel_handle_v1* handle = nullptr;
  std::string title, app_id;
  bool maximized = false, fullscreen = false, activated = false, closed = false;
  int done = 0;
};

TEST_F(Protocols, ForeignToplevelsFollowTitleAppIdAndStatesAndSayWhenClosed) {
  auto a = std::make_unique<Window>(c);
  xdg_toplevel_set_title(a->toplevel(), "one");
  xdg_toplevel_set_app_id(a->toplevel(), "org.baton.One");
  View* va = map(*a, kRed);
  ASSERT_NE(va, nullptr);
  auto* manager =
      bind<zwlr_foreign_toplevel_manager_v1>(&zwlr_foreign_toplevel_manager_v1_interface, 3);
  OneToplevel t;
  static const zwlr_foreign_toplevel_handle_v1_listener handle_listener = {
      [](void* d, zwlr_foreign_toplevel_handle_v1*, const char* title) {
        static_cast<OneToplevel*>(d)->title = title;
      },
      [](void* d, zwlr_foreign_toplevel_handle_v1*, const char* app_id) {
        static_cast<OneToplevel*>(d)->app_id = app_id;
      },
      [](void*, zwlr_foreign_toplevel_handle_v1*, wl_output*) {},
      [](void*, zwlr_foreign_toplevel_handle_v1*, wl_output*) {},
      [](void* d, zwlr_foreign_toplevel_handle_v1*, wl_array* states) {
        auto* t = static_cast<OneToplevel*>(d);
        t->maximized = t->fullscreen = t->activated = false;
        auto* s = static_cast<uint32_t*>(states->data);
        for (size_t i = 0; i < states->size / sizeof(uint32_t); ++i) {
          t->maximized |= s[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MAXIMIZED;
          t->fullscreen |= s[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN;
          t->activated |= s[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED;
        }
      },
      [](void* d, zwlr_foreign_toplevel_handle_v1*) { ++static_cast<OneToplevel*>(d)->done; },
      [](void* d, zwlr_foreign_toplevel_handle_v1*) {
        static_cast<OneToplevel*>(d)->closed = true;
      },
      [](void*, zwlr_foreign_toplevel_handle_v1*, zwlr_foreign_toplevel_handle_v1*) {}};
  static const zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
      [](void* d, zwlr_foreign_toplevel_manager_v1*, zwlr_foreign_toplevel_handle_v1* handle) {
        static_cast<OneToplevel*>(d)->handle = handle;
        zwlr_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener, d);
      },
      [](void*, zwlr_foreign_toplevel_manager_v1*) {}};
  zwlr_foreign_toplevel_manager_v1_add_listener(manager, &manager_listener, &t);
  ASSERT_TRUE(h.run_until([&] { return t.done > 0; }));
  EXPECT_EQ(t.title, "one");
  EXPECT_EQ(t.app_id, "org.baton.One");
  EXPECT_TRUE(t.activated) << "the only window, focused, is not activated";
  EXPECT_FALSE(t.maximized);
  EXPECT_FALSE(t.fullscreen);

  xdg_toplevel_set_title(a->toplevel(), "two");
  wl_surface_commit(a->surface());
  EXPECT_TRUE(h.run_until([&] { return t.title == "two"; })) << "a new title did not reach it";

  // The window maximizes itself: the task bar hears of it, and of the restore.
  xdg_toplevel_set_maximized(a->toplevel());
  EXPECT_TRUE(h.run_until([&] { return va->maximized() && t.maximized; }));
  xdg_toplevel_unset_maximized(a->toplevel());
  EXPECT_TRUE(h.run_until([&] { return !va->maximized() && !t.maximized; }));

  // The task bar makes it fullscreen: the window is told so, and so is the bar.
  zwlr_foreign_toplevel_handle_v1_set_fullscreen(t.handle, nullptr);
  EXPECT_TRUE(h.run_until([&] { return va->fullscreen() && t.fullscreen; }));
  EXPECT_EQ(a->last_configure().width, 640)
      << "fullscreen, but not configured at the output's size";
  zwlr_foreign_toplevel_handle_v1_unset_fullscreen(t.handle);
  EXPECT_TRUE(h.run_until([&] { return !va->fullscreen() && !t.fullscreen; }));

  // The window goes: the bar hears `closed`, and then may destroy its handle.
  a.reset();
  EXPECT_TRUE(h.run_until([&] { return t.closed; })) << "a gone window's handle was not closed";
  zwlr_foreign_toplevel_handle_v1_destroy(t.handle);
  zwlr_foreign_toplevel_manager_v1_stop(manager);
  h.sync();
  zwlr_foreign_toplevel_manager_v1_destroy(manager);
}

// --- keyboard shortcuts inhibit --------------------------------------------

TEST_F(Protocols, ShortcutInhibitorSendsBoundKeysToTheClient) {
  Window a(c);
  map(a, kRed);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  auto* manager = bind<zwp_keyboard_shortcuts_inhibit_manager_v1>(
      &zwp_keyboard_shortcuts_inhibit_manager_v1_interface, 1);
  auto* inhibitor =
      zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(manager, a.surface(), c.seat);
  h.sync();
  c.keys.clear();
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(h.server().workspaces().current(), 1);
  bool saw_2 = false;
  for (const auto& k : c.keys) saw_2 |= k.key == KEY_2;
  EXPECT_TRUE(saw_2);
  zwp_keyboard_shortcuts_inhibitor_v1_destroy(inhibitor);
  h.sync();
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(h.server().workspaces().current(), 2);
  zwp_keyboard_shortcuts_inhibit_manager_v1_destroy(manager);
}

// --- idle ------------------------------------------------------------------

struct Idle {
  int idled = 0, resumed = 0;
};

TEST_F(Protocols, IdleNotificationAndInhibitor) {
  // The window is mapped first: with a 100 ms timeout, any slow step after
  // the seat resumes could let it go idle again (a busy machine), so every
  // check below waits for an event or holds while an inhibitor exists.
  Window a(c);
  map(a, kRed);
  auto* inhibit_manager =
      bind<zwp_idle_inhibit_manager_v1>(&zwp_idle_inhibit_manager_v1_interface, 1);
  auto* notifier = bind<ext_idle_notifier_v1>(&ext_idle_notifier_v1_interface, 1);
  Idle idle;
  static const ext_idle_notification_v1_listener listener = {
      [](void* d, ext_idle_notification_v1*) { ++static_cast<Idle*>(d)->idled; },
      [](void* d, ext_idle_notification_v1*) { ++static_cast<Idle*>(d)->resumed; }};
  auto* notification = ext_idle_notifier_v1_get_idle_notification(notifier, 100, c.seat);
  ext_idle_notification_v1_add_listener(notification, &listener, &idle);
  ASSERT_TRUE(h.run_until([&] { return idle.idled == 1; }, milliseconds(1000)));
  keyboard.chord({KEY_A});
  ASSERT_TRUE(h.run_until([&] { return idle.resumed == 1; }));
  ASSERT_TRUE(h.run_until([&] { return idle.idled == 2; }, milliseconds(1000)))
      << "the seat did not go idle again without input";

  // A video player's inhibitor wakes the idle seat and keeps it from going
  // idle, however long nothing happens.
  auto* inhibitor = zwp_idle_inhibit_manager_v1_create_inhibitor(inhibit_manager, a.surface());
  ASSERT_TRUE(h.run_until([&] { return idle.resumed == 2; }))
      << "an inhibitor did not wake the idle seat";
  h.run_for(milliseconds(300));
  EXPECT_EQ(idle.idled, 2) << "the seat went idle while an inhibitor existed";
  zwp_idle_inhibitor_v1_destroy(inhibitor);
  EXPECT_TRUE(h.run_until([&] { return idle.idled == 3; }, milliseconds(1000)));
  ext_idle_notification_v1_destroy(notification);
  ext_idle_notifier_v1_destroy(notifier);
  zwp_idle_inhibit_manager_v1_destroy(inhibit_manager);
}

// --- relative pointer ------------------------------------------------------

TEST_F(Protocols, RelativePointerReportsMotion) {
  VirtualPointer pointer(h, c);
  ASSERT_TRUE(h.run_until([&] { return c.pointer != nullptr; }));
  auto* manager =
      bind<zwp_relative_pointer_manager_v1>(&zwp_relative_pointer_manager_v1_interface, 1);
  auto* relative = zwp_relative_pointer_manager_v1_get_relative_pointer(manager, c.pointer);
  double dx = 0;
  static const zwp_relative_pointer_v1_listener listener = {
      [](void* d, zwp_relative_pointer_v1*, uint32_t, uint32_t, wl_fixed_t x, wl_fixed_t,
         wl_fixed_t, wl_fixed_t) { *static_cast<double*>(d) += wl_fixed_to_double(x); }};
  zwp_relative_pointer_v1_add_listener(relative, &listener, &dx);
  Window a(c);
  View* va = map(a, kRed);
  Rect f = va->frame();
  pointer.move_to(f.x + 10, f.y + 10, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  dx = 0;
  pointer.move_to(f.x + 40, f.y + 10, 640, 480);
  EXPECT_TRUE(h.run_until([&] { return dx > 29 && dx < 31; }));
  zwp_relative_pointer_v1_destroy(relative);
  zwp_relative_pointer_manager_v1_destroy(manager);
}

// A client with a window and a relative pointer, and a virtual pointer
// (another client's, as wayvnc's) that jumps: what does the relative
// pointer hear of the jump?
class RelativeJumps : public Protocols {
 protected:
  // Moves onto the window in a layout `width` pixels wide (relative motion
  // goes to the window under the pointer) and forgets that motion.
  Rect point_at_window(int width) {
    EXPECT_TRUE(h.run_until([&] { return c.pointer != nullptr; }));
    manager = Owned<zwp_relative_pointer_manager_v1, zwp_relative_pointer_manager_v1_destroy>(
        bind<zwp_relative_pointer_manager_v1>(&zwp_relative_pointer_manager_v1_interface, 1));
    relative = Owned<zwp_relative_pointer_v1, zwp_relative_pointer_v1_destroy>(
        zwp_relative_pointer_manager_v1_get_relative_pointer(manager, c.pointer));
    static const zwp_relative_pointer_v1_listener listener = {
        [](void* d, zwp_relative_pointer_v1*, uint32_t, uint32_t, wl_fixed_t x, wl_fixed_t,
           wl_fixed_t, wl_fixed_t) {
          auto* self = static_cast<RelativeJumps*>(d);
          self->dx += wl_fixed_to_double(x);
          ++self->events;
        }};
    zwp_relative_pointer_v1_add_listener(relative, &listener, this);
    const Rect f = map(window, kRed)->frame();
    pointer.move_to(f.x + 10, f.y + 10, width, 480);
    EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == window.surface(); }));
    dx = 0;
    events = 0;
    return f;
  }

  VirtualPointer pointer{h, c};
  Window window{c};
  Owned<zwp_relative_pointer_manager_v1, zwp_relative_pointer_manager_v1_destroy> manager{nullptr};
  Owned<zwp_relative_pointer_v1, zwp_relative_pointer_v1_destroy> relative{nullptr};
  double dx = 0;
  int events = 0;
};

// A virtual pointer aiming far past its extent (x = 2^32-1 of 1) moves the
// cursor to the layout's edge, and the relative motion says just that much:
// not 2^32 screen widths, nor (as wl_fixed wrapped it) a jump to the left.
TEST_F(RelativeJumps, AJumpPastTheLayoutEndsAtItsEdge) {
  const Rect f = point_at_window(640);
  pointer.move_to(-1, f.y + 10, 1, 480);  // x = UINT32_MAX, x_extent = 1
  ASSERT_TRUE(h.run_until([&] { return events == 1; }));
  EXPECT_NEAR(dx, 640 - (f.x + 10), 1) << "the relative motion went past the layout's edge";
  EXPECT_NEAR(h.server().seat().cursor_x(), 640, 1);
  Window other(c);
  EXPECT_NE(map(other, kGreen), nullptr) << "the client was cut off";
}

// Outputs 20 million pixels apart: a jump from one to the other is more
// than wl_fixed carries, so the relative motion says the most it can in the
// right direction instead of wrapping around. baton's own ways of placing
// outputs (config, wlr-output-management) refuse such a place (kLayoutReach),
// so the layout is set here directly, as wlroots' layout itself allows.
TEST_F(RelativeJumps, AJumpBeyondWlFixedKeepsItsDirection) {
  constexpr int kFar = 20'000'000;
  wlr_output* near = h.server().outputs()[0]->wlr();
  wlr_output* far = wlr_headless_add_output(h.server().backend(), 640, 480);
  wlr_output_layout_add(h.server().output_layout(), near, 0, 0);
  wlr_output_layout_add(h.server().output_layout(), far, kFar, 0);
  const Rect f = point_at_window(kFar + 640);
  pointer.move_to(kFar + 100, f.y + 10, kFar + 640, 480);
  ASSERT_TRUE(h.run_until([&] { return events == 1; }));
  EXPECT_GT(dx, 8'388'607) << "the jump to the right was sent as " << dx;
  EXPECT_NEAR(h.server().seat().cursor_x(), kFar + 100, 1) << "the cursor did not make the jump";
}

// --- output power ----------------------------------------------------------

TEST_F(Protocols, OutputPowerTurnsTheOutputOffAndOn) {
  auto* manager = bind<zwlr_output_power_manager_v1>(&zwlr_output_power_manager_v1_interface, 1);
  auto* power = zwlr_output_power_manager_v1_get_output_power(manager, c.output);
  wlr_output* output = h.server().outputs()[0]->wlr();
  zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
  ASSERT_TRUE(h.run_until([&] { return !output->enabled; }));
  zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_ON);
  ASSERT_TRUE(h.run_until([&] { return output->enabled; }));
  zwlr_output_power_v1_destroy(power);
  zwlr_output_power_manager_v1_destroy(manager);
}

// --- output management -----------------------------------------------------

/// What a wlr-output-management client knows of the one head: the mode
/// objects it holds, their sizes and the one named current.
struct HeadView {
  zwlr_output_head_v1* head = nullptr;
  std::vector<zwlr_output_mode_v1*> modes;
  std::map<zwlr_output_mode_v1*, std::pair<int, int>> sizes;
  zwlr_output_mode_v1* current = nullptr;
  int enabled = -1;
};

const zwlr_output_mode_v1_listener kModeListener = {
    .size =
        [](void* data, zwlr_output_mode_v1* mode, int32_t w, int32_t h) {
          static_cast<HeadView*>(data)->sizes[mode] = {w, h};
        },
    .refresh = [](void*, zwlr_output_mode_v1*, int32_t) {},
    .preferred = [](void*, zwlr_output_mode_v1*) {},
    .finished = [](void*, zwlr_output_mode_v1*) {},
};

const zwlr_output_head_v1_listener kHeadListener = {
    .name = [](void*, zwlr_output_head_v1*, const char*) {},
    .description = [](void*, zwlr_output_head_v1*, const char*) {},
    .physical_size = [](void*, zwlr_output_head_v1*, int32_t, int32_t) {},
    .mode =
        [](void* data, zwlr_output_head_v1*, zwlr_output_mode_v1* mode) {
          static_cast<HeadView*>(data)->modes.push_back(mode);
          zwlr_output_mode_v1_add_listener(mode, &kModeListener, data);
        },
    .enabled = [](void* data, zwlr_output_head_v1*,
                  int32_t on) { static_cast<HeadView*>(data)->enabled = on; },
    .current_mode = [](void* data, zwlr_output_head_v1*,
                       zwlr_output_mode_v1* mode) { static_cast<HeadView*>(data)->current = mode; },
    .position = [](void*, zwlr_output_head_v1*, int32_t, int32_t) {},
    .transform = [](void*, zwlr_output_head_v1*, int32_t) {},
    .scale = [](void*, zwlr_output_head_v1*, wl_fixed_t) {},
    .finished = [](void*, zwlr_output_head_v1*) {},
    .make = [](void*, zwlr_output_head_v1*, const char*) {},
    .model = [](void*, zwlr_output_head_v1*, const char*) {},
    .serial_number = [](void*, zwlr_output_head_v1*, const char*) {},
    .adaptive_sync = [](void*, zwlr_output_head_v1*, uint32_t) {},
};

const zwlr_output_manager_v1_listener kManagerListener = {
    .head =
        [](void* data, zwlr_output_manager_v1*, zwlr_output_head_v1* head) {
          static_cast<HeadView*>(data)->head = head;
          zwlr_output_head_v1_add_listener(head, &kHeadListener, data);
        },
    .done = [](void*, zwlr_output_manager_v1*, uint32_t) {},
    .finished = [](void*, zwlr_output_manager_v1*) {},
};

// A client may release its mode objects at any time (version 3). When the
// head's state is sent again (here: the output turned off and on), its
// current mode is announced to it anew, so current_mode names a live object,
// even while another client still holds its own object for that mode (then
// wlroots made none, failed an assertion and took baton down: found by the
// protocol fuzzer).
TEST_F(Protocols, OutputManagementNamesTheCurrentModeAfterItsObjectWasReleased) {
  Client keeper(h);
  Globals keeper_globals(h, keeper.display());
  auto* kept = static_cast<zwlr_output_manager_v1*>(
      keeper_globals.bind(&zwlr_output_manager_v1_interface, 4));
  auto* manager = bind<zwlr_output_manager_v1>(&zwlr_output_manager_v1_interface, 4);
  auto* powers = bind<zwlr_output_power_manager_v1>(&zwlr_output_power_manager_v1_interface, 1);
  ASSERT_TRUE(kept && manager && powers);
  HeadView keeper_view, view;
  zwlr_output_manager_v1_add_listener(kept, &kManagerListener, &keeper_view);
  zwlr_output_manager_v1_add_listener(manager, &kManagerListener, &view);
  ASSERT_TRUE(h.run_until([&] { return view.current && keeper_view.current; }));
  ASSERT_EQ(view.enabled, 1);
  for (zwlr_output_mode_v1* mode : view.modes) zwlr_output_mode_v1_release(mode);
  view.modes.clear();
  view.sizes.clear();
  view.current = nullptr;

  auto* power = zwlr_output_power_manager_v1_get_output_power(powers, c.output);
  zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
  ASSERT_TRUE(h.run_until([&] { return view.enabled == 0; }));
  zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_ON);
  ASSERT_TRUE(h.run_until([&] { return view.enabled == 1 && view.current != nullptr; }))
      << "the enabled head named no current mode";
  ASSERT_EQ(view.modes.size(), 1u) << "the current mode was not announced again";
  EXPECT_EQ(view.current, view.modes[0]);
  const wlr_output* output = h.server().outputs()[0]->wlr();
  EXPECT_EQ(view.sizes[view.current], std::make_pair(output->width, output->height));
  EXPECT_EQ(keeper_view.enabled, 1);
  h.sync();  // baton still answers both

  zwlr_output_power_v1_destroy(power);
  zwlr_output_power_manager_v1_destroy(powers);
  zwlr_output_mode_v1_release(view.current);
  zwlr_output_head_v1_release(view.head);
  zwlr_output_manager_v1_stop(manager);
  zwlr_output_manager_v1_destroy(manager);
  for (zwlr_output_mode_v1* mode : keeper_view.modes) zwlr_output_mode_v1_release(mode);
  zwlr_output_head_v1_release(keeper_view.head);
  zwlr_output_manager_v1_stop(kept);
  zwlr_output_manager_v1_destroy(kept);
}

// --- xdg-decoration ---------------------------------------------------------

TEST_F(Protocols, DecorationModeFollowsTheClientsPreference) {
  auto* manager = bind<zxdg_decoration_manager_v1>(&zxdg_decoration_manager_v1_interface, 1);
  uint32_t mode_a = 0, mode_b = 0;
  static const zxdg_toplevel_decoration_v1_listener listener = {
      [](void* d, zxdg_toplevel_decoration_v1*, uint32_t mode) {
        *static_cast<uint32_t*>(d) = mode;
      }};
  Window a(c), b(c);
  auto* da = zxdg_decoration_manager_v1_get_toplevel_decoration(manager, a.toplevel());
  auto* db = zxdg_decoration_manager_v1_get_toplevel_decoration(manager, b.toplevel());
  zxdg_toplevel_decoration_v1_add_listener(da, &listener, &mode_a);
  zxdg_toplevel_decoration_v1_add_listener(db, &listener, &mode_b);
  zxdg_toplevel_decoration_v1_set_mode(da, ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  ASSERT_TRUE(h.run_until([&] { return mode_a != 0 && mode_b != 0; }));
  EXPECT_EQ(mode_a, static_cast<uint32_t>(ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE));
  EXPECT_EQ(mode_b, static_cast<uint32_t>(ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE));
  EXPECT_FALSE(va->server_decorated());
  EXPECT_TRUE(vb->server_decorated());
  zxdg_toplevel_decoration_v1_destroy(da);
  zxdg_toplevel_decoration_v1_destroy(db);
  h.sync();
  EXPECT_FALSE(vb->server_decorated());
  zxdg_decoration_manager_v1_destroy(manager);
}

// A mode outside the protocol's enum (the fuzzer sent 393): wlroots keeps it
// unchecked; baton takes it as no preference and draws the title bar.
TEST_F(Protocols, AnUnknownDecorationModeIsNoPreference) {
  auto* manager = bind<zxdg_decoration_manager_v1>(&zxdg_decoration_manager_v1_interface, 1);
  uint32_t mode = 0;
  static const zxdg_toplevel_decoration_v1_listener listener = {
      [](void* d, zxdg_toplevel_decoration_v1*, uint32_t m) { *static_cast<uint32_t*>(d) = m; }};
  Window a(c);
  auto* deco = zxdg_decoration_manager_v1_get_toplevel_decoration(manager, a.toplevel());
  zxdg_toplevel_decoration_v1_add_listener(deco, &listener, &mode);
  zxdg_toplevel_decoration_v1_set_mode(deco, 393);
  View* va = map(a, kRed);
  ASSERT_TRUE(h.run_until([&] { return mode != 0; }));
  EXPECT_EQ(mode, static_cast<uint32_t>(ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE));
  EXPECT_TRUE(va->server_decorated());
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  zxdg_toplevel_decoration_v1_destroy(deco);
  zxdg_decoration_manager_v1_destroy(manager);
}

// --- pointer: cursor shape, lock, title-bar drag ----------------------------

TEST_F(Protocols, CursorShapeChangesTheCursorImage) {
  VirtualPointer pointer(h, c);
  Window a(c);
  View* va = map(a, kRed);
  Rect f = va->frame();
  pointer.move_to(f.x + 50, f.y + 50, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  auto crop = [&](const Image& img) {
    std::vector<uint32_t> px;
    for (int y = f.y + 40; y < f.y + 80; ++y)
      for (int x = f.x + 40; x < f.x + 80; ++x) px.push_back(img.at(x, y));
    return px;
  };
  auto before = crop(h.capture());
  auto* manager = bind<wp_cursor_shape_manager_v1>(&wp_cursor_shape_manager_v1_interface, 1);
  auto* device = wp_cursor_shape_manager_v1_get_pointer(manager, c.pointer);
  wp_cursor_shape_device_v1_set_shape(device, c.pointer_enter_serial,
                                      WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_TEXT);
  h.sync();
  EXPECT_TRUE(h.run_until([&] { return crop(h.capture()) != before; }))
      << "the cursor image did not change";
  wp_cursor_shape_device_v1_destroy(device);
  wp_cursor_shape_manager_v1_destroy(manager);
}

TEST_F(Protocols, LockedPointerStaysPutAndStillReportsMotion) {
  VirtualPointer pointer(h, c);
  Window a(c);
  View* va = map(a, kRed);
  Rect f = va->frame();
  auto* constraints = bind<zwp_pointer_constraints_v1>(&zwp_pointer_constraints_v1_interface, 1);
  auto* relative_manager =
      bind<zwp_relative_pointer_manager_v1>(&zwp_relative_pointer_manager_v1_interface, 1);
  ASSERT_TRUE(h.run_until([&] { return c.pointer != nullptr; }));
  auto* relative =
      zwp_relative_pointer_manager_v1_get_relative_pointer(relative_manager, c.pointer);
  double dx = 0;
  static const zwp_relative_pointer_v1_listener rlistener = {
      [](void* d, zwp_relative_pointer_v1*, uint32_t, uint32_t, wl_fixed_t x, wl_fixed_t,
         wl_fixed_t, wl_fixed_t) { *static_cast<double*>(d) += wl_fixed_to_double(x); }};
  zwp_relative_pointer_v1_add_listener(relative, &rlistener, &dx);
  bool locked = false;
  auto* lock = zwp_pointer_constraints_v1_lock_pointer(
      constraints, a.surface(), c.pointer, nullptr, ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
  static const zwp_locked_pointer_v1_listener llistener = {
      [](void* d, zwp_locked_pointer_v1*) { *static_cast<bool*>(d) = true; },
      [](void* d, zwp_locked_pointer_v1*) { *static_cast<bool*>(d) = false; }};
  zwp_locked_pointer_v1_add_listener(lock, &llistener, &locked);
  pointer.move_to(f.x + 20, f.y + 20, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return locked; }));
  double x0 = h.server().seat().cursor_x();
  dx = 0;
  pointer.move_to(f.x + 70, f.y + 20, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return dx > 49; }));
  EXPECT_EQ(h.server().seat().cursor_x(), x0);
  zwp_locked_pointer_v1_destroy(lock);
  zwp_relative_pointer_v1_destroy(relative);
  zwp_relative_pointer_manager_v1_destroy(relative_manager);
  zwp_pointer_constraints_v1_destroy(constraints);
}

TEST_F(Protocols, DraggingTheTitleBarMovesTheWindow) {
  VirtualPointer pointer(h, c);
  auto* decorations = bind<zxdg_decoration_manager_v1>(&zxdg_decoration_manager_v1_interface, 1);
  Window a(c);
  auto* deco = zxdg_decoration_manager_v1_get_toplevel_decoration(decorations, a.toplevel());
  View* va = map(a, kRed);
  ASSERT_TRUE(h.run_until([&] { return va->server_decorated(); }));
  Rect f = va->frame();
  int x0 = f.x + 100, y0 = f.y - 10;  // on the title bar
  pointer.move_to(x0, y0, 640, 480);
  pointer.button(BTN_LEFT, true);
  pointer.move_to(x0 - 40, y0 + 33, 640, 480);
  pointer.button(BTN_LEFT, false);
  EXPECT_EQ(va->frame().x, f.x - 40);
  EXPECT_EQ(va->frame().y, f.y + 33);
  zxdg_toplevel_decoration_v1_destroy(deco);
  zxdg_decoration_manager_v1_destroy(decorations);
}

// --- gamma -----------------------------------------------------------------

TEST_F(Protocols, GammaControlFailsCleanlyWhereTheOutputHasNoGammaTable) {
  auto* manager = bind<zwlr_gamma_control_manager_v1>(&zwlr_gamma_control_manager_v1_interface, 1);
  auto* control = zwlr_gamma_control_manager_v1_get_gamma_control(manager, c.output);
  struct State {
    uint32_t size = 0;
    bool failed = false;
  } state;
  static const zwlr_gamma_control_v1_listener listener = {
      [](void* d, zwlr_gamma_control_v1*, uint32_t size) { static_cast<State*>(d)->size = size; },
      [](void* d, zwlr_gamma_control_v1*) { static_cast<State*>(d)->failed = true; }};
  zwlr_gamma_control_v1_add_listener(control, &listener, &state);
  // The headless backend has no gamma ramp: gammastep is told "failed" and
  // baton keeps running (a DRM output would report its ramp size here).
  EXPECT_TRUE(h.run_until([&] { return state.failed || state.size > 0; }));
  EXPECT_TRUE(state.failed);
  zwlr_gamma_control_v1_destroy(control);
  zwlr_gamma_control_manager_v1_destroy(manager);
}

TEST_F(Protocols, EveryDesktopGlobalIsAdvertised) {
  for (const char* name : {"zwlr_layer_shell_v1",
                           "zxdg_decoration_manager_v1",
                           "xdg_activation_v1",
                           "zwlr_foreign_toplevel_manager_v1",
                           "wl_data_device_manager",
                           "zwp_primary_selection_device_manager_v1",
                           "zwlr_data_control_manager_v1",
                           "zwlr_screencopy_manager_v1",
                           "zwlr_output_manager_v1",
                           "zwlr_output_power_manager_v1",
                           "zwlr_gamma_control_manager_v1",
                           "wp_content_type_manager_v1",
                           "wp_cursor_shape_manager_v1",
                           "zwp_pointer_constraints_v1",
                           "zwp_relative_pointer_manager_v1",
                           "zwp_keyboard_shortcuts_inhibit_manager_v1",
                           "zwp_virtual_keyboard_manager_v1",
                           "zwlr_virtual_pointer_manager_v1",
                           "ext_idle_notifier_v1",
                           "zwp_idle_inhibit_manager_v1",
                           "ext_session_lock_manager_v1"})
    EXPECT_TRUE(c.has_global(name)) << name;
}

}  // namespace
}  // namespace baton::test
