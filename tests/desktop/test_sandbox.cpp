// security-context-v1 from the client side: a sandbox engine hands its app a
// socket of its own; clients coming through it see none of the globals that
// read the screen, the clipboard or other windows, or that drive input and
// outputs, and binding one anyway is a protocol error for that client only.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compositor/shell/sandbox.hpp"
#include "security-context-v1-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/held_files.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "wlr-screencopy-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

/// Every global a client's registry lists, by interface name.
struct Registry {
  Registry(Harness& h, wl_display* display) : registry(wl_display_get_registry(display)) {
    static const wl_registry_listener listener = {
        [](void* data, wl_registry*, uint32_t name, const char* interface, uint32_t) {
          auto* self = static_cast<Registry*>(data);
          self->names.insert(interface);
          self->ids[interface] = name;
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_registry_add_listener(registry, &listener, this);
    h.sync();
  }
  ~Registry() { wl_registry_destroy(registry); }
  wl_registry* registry;
  std::set<std::string> names;
  std::map<std::string, uint32_t> ids;
};

/// A listening socket at `path`, as a sandbox engine makes one per app.
int listening_socket(const std::string& path) {
  unlink(path.c_str());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(listen(fd, 4), 0);
  return fd;
}

class Sandboxed : public ::testing::Test {
 protected:
  Sandboxed() : engine(h), engine_globals(h, engine.display()) {
    manager = static_cast<wp_security_context_manager_v1*>(
        engine_globals.bind(&wp_security_context_manager_v1_interface, 1));
    path = scratch_dir("sandbox") + "/app.sock";
    int listen_fd = listening_socket(path);
    int close_fds[2];
    EXPECT_EQ(pipe2(close_fds, O_CLOEXEC), 0);
    close_writer = close_fds[1];
    context = wp_security_context_manager_v1_create_listener(manager, listen_fd, close_fds[0]);
    // The fds travel over the wire; the engine keeps only the pipe's writer.
    close(listen_fd);
    close(close_fds[0]);
    wp_security_context_v1_set_sandbox_engine(context, "org.example.engine");
    wp_security_context_v1_set_app_id(context, "org.example.App");
    wp_security_context_v1_set_instance_id(context, "1");
    wp_security_context_v1_commit(context);
    h.sync();
  }
  ~Sandboxed() override {
    wp_security_context_v1_destroy(context);
    wp_security_context_manager_v1_destroy(manager);
    if (close_writer >= 0) close(close_writer);
  }

  Harness h;
  Client engine;
  Globals engine_globals;
  wp_security_context_manager_v1* manager = nullptr;
  wp_security_context_v1* context = nullptr;
  std::string path;
  int close_writer = -1;
};

TEST_F(Sandboxed, AppsSeeOnlyUnprivilegedGlobals) {
  Registry outside(h, engine.display());
  wl_display* app = h.connect_to(path);
  Registry inside(h, app);

  // What every app needs is there...
  for (const char* name : {"wl_compositor", "wl_shm", "wl_seat", "xdg_wm_base", "wl_output",
                           "wp_viewporter", "wp_presentation", "zxdg_decoration_manager_v1",
                           // a sandboxed app's file chooser is parented by handle
                           "zxdg_exporter_v2", "zxdg_exporter_v1",
                           // a sandboxed app's text fields take composed text
                           "zwp_text_input_manager_v3"})
    EXPECT_TRUE(inside.names.count(name)) << name << " is hidden from sandboxed apps";
  // ...and everything privileged that the unsandboxed engine sees is not.
  int privileged = 0;
  for (const std::string& name : outside.names) {
    if (!Sandbox::privileged(name)) continue;
    ++privileged;
    EXPECT_EQ(inside.names.count(name), 0U) << name << " is visible to a sandboxed app";
  }
  // The list is not vacuous: screen capture, clipboard managers, window
  // lists, virtual input and the security context itself exist outside.
  for (const char* name : {"zwlr_screencopy_manager_v1", "ext_image_copy_capture_manager_v1",
                           "ext_data_control_manager_v1", "zwlr_data_control_manager_v1",
                           "ext_foreign_toplevel_list_v1", "zwlr_foreign_toplevel_manager_v1",
                           "zwp_virtual_keyboard_manager_v1", "wp_security_context_manager_v1",
                           // an input method reads every key
                           "zwp_input_method_manager_v2",
                           // a panel switches workspaces
                           "ext_workspace_manager_v1"}) {
    EXPECT_TRUE(outside.names.count(name)) << name << " is not advertised at all";
    EXPECT_TRUE(Sandbox::privileged(name)) << name;
  }
  EXPECT_GE(privileged, 8);
  // The socket is the app's own: an ordinary connection sees everything.
  Client ordinary(h);
  Registry ordinary_registry(h, ordinary.display());
  EXPECT_EQ(ordinary_registry.names, outside.names);
}

TEST_F(Sandboxed, BindingAHiddenGlobalAnywayIsAnErrorForThatAppOnly) {
  Registry outside(h, engine.display());
  wl_display* app = h.connect_to(path);
  Registry inside(h, app);
  // Guessing the global's name does not help.
  Owned<zwlr_screencopy_manager_v1, zwlr_screencopy_manager_v1_destroy> guessed(
      static_cast<zwlr_screencopy_manager_v1*>(
          wl_registry_bind(inside.registry, outside.ids.at("zwlr_screencopy_manager_v1"),
                           &zwlr_screencopy_manager_v1_interface, 1)));
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(app) != 0; }));
  // The engine's connection and a new ordinary client are unaffected.
  EXPECT_EQ(wl_display_get_error(engine.display()), 0);
  Client ordinary(h);
  Window window(ordinary);
  EXPECT_NE(map_window(h, window, 0xff00ff00), nullptr);
}

TEST_F(Sandboxed, ClosingTheEnginesPipeStopsNewConnections) {
  wl_display* first = h.connect_to(path);
  Registry inside(h, first);
  EXPECT_TRUE(inside.names.count("wl_compositor"));
  close(close_writer);
  close_writer = -1;
  h.run_for(std::chrono::milliseconds(50));
  // The listening socket is gone from baton's loop: a connection attempt
  // is never served (it may still be queued in the kernel's backlog, so
  // check that no registry answer comes).
  wl_display* late = nullptr;
  try {
    late = h.connect_to(path);
  } catch (const std::exception&) {
  }
  if (late != nullptr) {
    wl_registry* registry = wl_display_get_registry(late);
    wl_callback* done = wl_display_sync(late);
    bool answered = false;
    static const wl_callback_listener listener = {
        [](void* data, wl_callback*, uint32_t) { *static_cast<bool*>(data) = true; }};
    wl_callback_add_listener(done, &listener, &answered);
    EXPECT_FALSE(h.run_until([&] { return answered; }, std::chrono::milliseconds(300)));
    wl_callback_destroy(done);
    wl_registry_destroy(registry);
  }
  // The connection made before keeps working.
  EXPECT_EQ(wl_display_get_error(first), 0);
}

/// One client asks for a listener on `listen_fd` (and a pipe's reader as the
/// close fd), which baton must refuse with a protocol error.
void refused_listener(Harness& h, int listen_fd) {
  wl_display* display = nullptr;
  {
    Client client(h);
    display = client.display();
    Globals globals(h, display);
    auto* manager = static_cast<wp_security_context_manager_v1*>(
        globals.bind(&wp_security_context_manager_v1_interface, 1));
    ASSERT_NE(manager, nullptr);
    int close_fds[2];
    ASSERT_EQ(pipe2(close_fds, O_CLOEXEC), 0);
    wp_security_context_v1* context =
        wp_security_context_manager_v1_create_listener(manager, listen_fd, close_fds[0]);
    close(listen_fd);
    close(close_fds[0]);
    close(close_fds[1]);
    ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(display) != 0; }))
        << "baton accepted a listener that is not a listening socket";
    EXPECT_EQ(wl_display_get_error(display), EPROTO);
    wp_security_context_v1_destroy(context);
    wp_security_context_manager_v1_destroy(manager);
  }
  // The harness keeps every connection open until it ends: this test
  // counts fds, so the client's own end goes now.
  h.disconnect(display);
}

// wlroots 0.19.2 kept both fds of every create_listener it refused: any
// unsandboxed client, reconnecting, could fill baton's fd table until it
// could accept no client and open nothing.
// tools/sources/wlroots/0005-security-context-close-refused-fds.patch closes them.
TEST(SandboxEngine, RefusedListenersLeaveNoFdBehind) {
  Harness h;
  int warm_up[2];
  ASSERT_EQ(pipe2(warm_up, O_CLOEXEC), 0);
  close(warm_up[1]);
  refused_listener(h, warm_up[0]);  // whatever the first client makes baton open
  const std::multiset<std::string> before = open_fds();
  constexpr int kRefusals = 20;
  for (int i = 0; i < kRefusals; ++i) {
    if (i % 2 == 0) {  // not a socket
      int fds[2];
      ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
      close(fds[1]);
      refused_listener(h, fds[0]);
    } else {  // a socket nobody listens on
      int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      ASSERT_GE(fd, 0);
      refused_listener(h, fd);
    }
  }
  h.run_for(std::chrono::milliseconds(50));
  const std::multiset<std::string> after = open_fds();
  EXPECT_EQ(after.size(), before.size())
      << "baton kept fds of " << kRefusals << " refused listeners:" << added(before, after);
  // And it still serves clients.
  Client ordinary(h);
  Window window(ordinary);
  EXPECT_NE(map_window(h, window, 0xff00ff00), nullptr);
}

}  // namespace
}  // namespace baton::test
