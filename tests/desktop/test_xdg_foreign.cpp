// xdg-foreign from the clients' side: an app exports its window and another
// client (a portal's file chooser, as xdg-desktop-portal-gtk opens it for a
// sandboxed app) imports the handle and makes its own window a child of the
// app's. The chooser then opens centred on the app's window, and a modal one
// keeps the focus when the user goes back to the app. v2 is what GTK 4 and
// Qt 6 speak, v1 what GTK 3 does. The clients are our own, from the XML.
#include <gtest/gtest.h>

#include <string>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/globals.hpp"
#include "util/wlr.hpp"
#include "xdg-dialog-v1-client-protocol.h"
#include "xdg-foreign-unstable-v1-client-protocol.h"
#include "xdg-foreign-unstable-v2-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kGreen = 0xff00ff00;

// What an exported or imported object heard.
struct Foreign {
  std::string handle;
  bool destroyed = false;
};

const zxdg_exported_v2_listener kExportedV2 = {
    .handle = [](void* data, zxdg_exported_v2*,
                 const char* handle) { static_cast<Foreign*>(data)->handle = handle; },
};
const zxdg_imported_v2_listener kImportedV2 = {
    .destroyed = [](void* data,
                    zxdg_imported_v2*) { static_cast<Foreign*>(data)->destroyed = true; },
};
const zxdg_exported_v1_listener kExportedV1 = {
    .handle = [](void* data, zxdg_exported_v1*,
                 const char* handle) { static_cast<Foreign*>(data)->handle = handle; },
};
const zxdg_imported_v1_listener kImportedV1 = {
    .destroyed = [](void* data,
                    zxdg_imported_v1*) { static_cast<Foreign*>(data)->destroyed = true; },
};

// The app (client `app`) and the portal's chooser (client `portal`), each
// with its own globals.
class XdgForeign : public ::testing::Test {
 protected:
  XdgForeign()
      : app(h), portal(h), app_globals(h, app.display()), portal_globals(h, portal.display()) {}
  template <typename T>
  T* bind(Globals& globals, const wl_interface* interface, uint32_t version) {
    auto* p = static_cast<T*>(globals.bind(interface, version));
    EXPECT_NE(p, nullptr) << interface->name << " is not advertised";
    return p;
  }
  // The chooser is placed on its parent, and modal it takes the parent's focus.
  void expect_child_of(View* parent, View* chooser, Window& other_window) {
    const Rect pf = parent->frame(), cf = chooser->frame();
    EXPECT_EQ(cf.x + cf.width / 2, pf.x + pf.width / 2) << "not centred on the app's window";
    EXPECT_EQ(cf.y + cf.height / 2, pf.y + pf.height / 2) << "not centred on the app's window";
    View* other = map_window(h, other_window, kGreen);
    ASSERT_TRUE(other->activated());
    h.server().windows().focus(parent);
    EXPECT_TRUE(chooser->activated()) << "the app's window took the focus from its modal chooser";
    EXPECT_FALSE(parent->activated());
  }

  Harness h;
  Client app, portal;
  Globals app_globals, portal_globals;
};

TEST_F(XdgForeign, V2AChooserParentedByHandleOpensOnTheAppsWindowAndKeepsTheFocus) {
  auto* exporter = bind<zxdg_exporter_v2>(app_globals, &zxdg_exporter_v2_interface, 1);
  auto* importer = bind<zxdg_importer_v2>(portal_globals, &zxdg_importer_v2_interface, 1);
  auto* dialogs = bind<xdg_wm_dialog_v1>(portal_globals, &xdg_wm_dialog_v1_interface, 1);
  ASSERT_TRUE(exporter != nullptr && importer != nullptr && dialogs != nullptr);
  Window app_window(app), chooser_window(portal), other_window(app);
  View* parent = map_window(h, app_window, kRed, 400, 300);
  ASSERT_NE(parent, nullptr);
  Foreign exported, imported;
  zxdg_exported_v2* e = zxdg_exporter_v2_export_toplevel(exporter, app_window.surface());
  zxdg_exported_v2_add_listener(e, &kExportedV2, &exported);
  ASSERT_TRUE(h.run_until([&] { return !exported.handle.empty(); }));

  // The handle travels to the portal (over D-Bus, in life).
  zxdg_imported_v2* i = zxdg_importer_v2_import_toplevel(importer, exported.handle.c_str());
  zxdg_imported_v2_add_listener(i, &kImportedV2, &imported);
  xdg_dialog_v1* dialog = xdg_wm_dialog_v1_get_xdg_dialog(dialogs, chooser_window.toplevel());
  xdg_dialog_v1_set_modal(dialog);
  zxdg_imported_v2_set_parent_of(i, chooser_window.surface());
  View* chooser = map_window(h, chooser_window, kBlue, 100, 80);
  ASSERT_NE(chooser, nullptr);
  expect_child_of(parent, chooser, other_window);
  EXPECT_FALSE(imported.destroyed);

  // The app withdraws the handle: the import is void, and the chooser is
  // nobody's child any more (the app's window may have the focus).
  zxdg_exported_v2_destroy(e);
  ASSERT_TRUE(h.run_until([&] { return imported.destroyed; }));
  h.server().windows().focus(parent);
  EXPECT_TRUE(parent->activated());
  EXPECT_EQ(wl_display_get_error(portal.display()), 0);
  EXPECT_EQ(wl_display_get_error(app.display()), 0);
  zxdg_imported_v2_destroy(i);
  xdg_dialog_v1_destroy(dialog);
  xdg_wm_dialog_v1_destroy(dialogs);
  zxdg_importer_v2_destroy(importer);
  zxdg_exporter_v2_destroy(exporter);
}

TEST_F(XdgForeign, V1AChooserParentedByHandleOpensOnTheAppsWindowAndKeepsTheFocus) {
  auto* exporter = bind<zxdg_exporter_v1>(app_globals, &zxdg_exporter_v1_interface, 1);
  auto* importer = bind<zxdg_importer_v1>(portal_globals, &zxdg_importer_v1_interface, 1);
  auto* dialogs = bind<xdg_wm_dialog_v1>(portal_globals, &xdg_wm_dialog_v1_interface, 1);
  ASSERT_TRUE(exporter != nullptr && importer != nullptr && dialogs != nullptr);
  Window app_window(app), chooser_window(portal), other_window(app);
  View* parent = map_window(h, app_window, kRed, 400, 300);
  ASSERT_NE(parent, nullptr);
  Foreign exported, imported;
  zxdg_exported_v1* e = zxdg_exporter_v1_export(exporter, app_window.surface());
  zxdg_exported_v1_add_listener(e, &kExportedV1, &exported);
  ASSERT_TRUE(h.run_until([&] { return !exported.handle.empty(); }));
  zxdg_imported_v1* i = zxdg_importer_v1_import(importer, exported.handle.c_str());
  zxdg_imported_v1_add_listener(i, &kImportedV1, &imported);
  xdg_dialog_v1* dialog = xdg_wm_dialog_v1_get_xdg_dialog(dialogs, chooser_window.toplevel());
  xdg_dialog_v1_set_modal(dialog);
  zxdg_imported_v1_set_parent_of(i, chooser_window.surface());
  View* chooser = map_window(h, chooser_window, kBlue, 100, 80);
  ASSERT_NE(chooser, nullptr);
  expect_child_of(parent, chooser, other_window);
  EXPECT_EQ(wl_display_get_error(portal.display()), 0);
  zxdg_imported_v1_destroy(i);
  zxdg_exported_v1_destroy(e);
  xdg_dialog_v1_destroy(dialog);
  xdg_wm_dialog_v1_destroy(dialogs);
  zxdg_importer_v1_destroy(importer);
  zxdg_exporter_v1_destroy(exporter);
}

// A handle nobody exported imports as void (the destroyed event), and
// parenting something that is not a toplevel is the importer's protocol
// error: that client is cut off, the app goes on.
TEST_F(XdgForeign, AnUnknownHandleIsVoidAndANonToplevelChildIsAProtocolError) {
  auto* importer = bind<zxdg_importer_v2>(portal_globals, &zxdg_importer_v2_interface, 1);
  auto* exporter = bind<zxdg_exporter_v2>(app_globals, &zxdg_exporter_v2_interface, 1);
  ASSERT_TRUE(importer != nullptr && exporter != nullptr);
  Foreign unknown;
  zxdg_imported_v2* bogus = zxdg_importer_v2_import_toplevel(importer, "no-such-window");
  zxdg_imported_v2_add_listener(bogus, &kImportedV2, &unknown);
  ASSERT_TRUE(h.run_until([&] { return unknown.destroyed; }));
  zxdg_imported_v2_destroy(bogus);

  Window app_window(app);
  View* parent = map_window(h, app_window, kRed);
  ASSERT_NE(parent, nullptr);
  Foreign exported, imported;
  zxdg_exported_v2* e = zxdg_exporter_v2_export_toplevel(exporter, app_window.surface());
  zxdg_exported_v2_add_listener(e, &kExportedV2, &exported);
  ASSERT_TRUE(h.run_until([&] { return !exported.handle.empty(); }));
  zxdg_imported_v2* i = zxdg_importer_v2_import_toplevel(importer, exported.handle.c_str());
  zxdg_imported_v2_add_listener(i, &kImportedV2, &imported);
  wl_surface* bare = wl_compositor_create_surface(portal.compositor);
  zxdg_imported_v2_set_parent_of(i, bare);
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(portal.display()) != 0; }))
      << "a surface without a role was accepted as a child";
  EXPECT_EQ(wl_display_get_error(app.display()), 0);
  Window still(app);
  EXPECT_NE(map_window(h, still, kGreen), nullptr) << "the app cannot map a window any more";
  zxdg_exported_v2_destroy(e);
  zxdg_exporter_v2_destroy(exporter);
  // The cut-off client's proxies (LeakSanitizer counts them).
  wl_surface_destroy(bare);
  zxdg_imported_v2_destroy(i);
  zxdg_importer_v2_destroy(importer);
}

}  // namespace
}  // namespace baton::test
