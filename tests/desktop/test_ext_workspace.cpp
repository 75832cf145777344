// ext-workspace-v1 from a panel's side, our own client written from the XML
// (no Debian 12 panel speaks it): each output is a group of workspaces 1..10
// with the shown one active; activating one shows it (the window on the
// workspace left is hidden) and the state follows, also when the user
// switches with a binding; a workspace holding an urgent window is urgent;
// creating a workspace is refused without an error; an output that goes
// takes its group; stop ends with finished.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "ext-workspace-v1-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "util/wlr.hpp"
#include "xdg-system-bell-v1-client-protocol.h"

namespace baton::test {
namespace {

struct Workspace {
  ext_workspace_handle_v1* proxy = nullptr;
  std::string id, name;
  std::vector<uint32_t> coordinates;
  uint32_t state = 0, capabilities = 0;
  bool removed = false;
};

struct Group {
  ext_workspace_group_handle_v1* proxy = nullptr;
  uint32_t capabilities = 0xffffffff;
  std::vector<wl_output*> outputs;
  std::vector<Workspace*> workspaces;
  bool removed = false;
};

/// A panel's view of baton's workspaces, as of the latest done.
struct Panel {
  Panel(Harness& h, Client& c) {
    Globals globals(h, c.display());
    manager = static_cast<ext_workspace_manager_v1*>(
        globals.bind(&ext_workspace_manager_v1_interface, 1));
    if (manager == nullptr) return;
    ext_workspace_manager_v1_add_listener(manager, &kManager, this);
    h.sync();
  }
  ~Panel() {
    for (auto& w : workspaces) ext_workspace_handle_v1_destroy(w->proxy);
    for (auto& g : groups) ext_workspace_group_handle_v1_destroy(g->proxy);
    if (manager != nullptr) {
      if (!finished) ext_workspace_manager_v1_stop(manager);
      wl_proxy_destroy(reinterpret_cast<wl_proxy*>(manager));  // finished destroys it
    }
  }
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  /// The group that has `output` (a wl_output this client bound).
  Group* group_with(wl_output* output) {
    for (auto& g : groups)
      if (std::find(g->outputs.begin(), g->outputs.end(), output) != g->outputs.end())
        return g.get();
    return nullptr;
  }
  /// The group of an output's workspaces (their ids are OUTPUT/N).
  Group* group_of(const Output& output) {
    const std::string first = std::string(output.wlr()->name) + "/1";
    for (auto& group : groups)
      for (const Workspace* w : group->workspaces)
        if (w->id == first) return group.get();
    return nullptr;
  }
  static Workspace* named(Group& g, const std::string& name) {
    for (Workspace* w : g.workspaces)
      if (w->name == name) return w;
    return nullptr;
  }
  static std::vector<std::string> active(const Group& g) {
    std::vector<std::string> names;
    for (const Workspace* w : g.workspaces)
      if ((w->state & EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE) != 0) names.push_back(w->name);
    return names;
  }

  ext_workspace_manager_v1* manager = nullptr;
  std::vector<std::unique_ptr<Group>> groups;
  std::vector<std::unique_ptr<Workspace>> workspaces;
  int dones = 0;
  bool finished = false;

  static const ext_workspace_manager_v1_listener kManager;
  static const ext_workspace_group_handle_v1_listener kGroup;
  static const ext_workspace_handle_v1_listener kWorkspace;
};

const ext_workspace_group_handle_v1_listener Panel::kGroup = {
    .capabilities = [](void* d, ext_workspace_group_handle_v1*,
                       uint32_t caps) { static_cast<Group*>(d)->capabilities = caps; },
    .output_enter = [](void* d, ext_workspace_group_handle_v1*,
                       wl_output* output) { static_cast<Group*>(d)->outputs.push_back(output); },
    .output_leave = [](void* d, ext_workspace_group_handle_v1*,
                       wl_output* output) { std::erase(static_cast<Group*>(d)->outputs, output); },
    .workspace_enter =
        [](void* d, ext_workspace_group_handle_v1*, ext_workspace_handle_v1* ws) {
          static_cast<Group*>(d)->workspaces.push_back(
              static_cast<Workspace*>(ext_workspace_handle_v1_get_user_data(ws)));
        },
    .workspace_leave =
        [](void* d, ext_workspace_group_handle_v1*, ext_workspace_handle_v1* ws) {
          std::erase(static_cast<Group*>(d)->workspaces,
                     static_cast<Workspace*>(ext_workspace_handle_v1_get_user_data(ws)));
        },
    .removed = [](void* d,
                  ext_workspace_group_handle_v1*) { static_cast<Group*>(d)->removed = true; },
};

const ext_workspace_handle_v1_listener Panel::kWorkspace = {
    .id = [](void* d, ext_workspace_handle_v1*,
             const char* id) { static_cast<Workspace*>(d)->id = id; },
    .name = [](void* d, ext_workspace_handle_v1*,
               const char* name) { static_cast<Workspace*>(d)->name = name; },
    .coordinates =
        [](void* d, ext_workspace_handle_v1*, wl_array* coordinates) {
          auto* w = static_cast<Workspace*>(d);
          const auto* values = static_cast<const uint32_t*>(coordinates->data);
          w->coordinates.assign(values, values + coordinates->size / sizeof(uint32_t));
        },
    .state = [](void* d, ext_workspace_handle_v1*,
                uint32_t state) { static_cast<Workspace*>(d)->state = state; },
    .capabilities = [](void* d, ext_workspace_handle_v1*,
                       uint32_t caps) { static_cast<Workspace*>(d)->capabilities = caps; },
    .removed = [](void* d,
                  ext_workspace_handle_v1*) { static_cast<Workspace*>(d)->removed = true; },
};

const ext_workspace_manager_v1_listener Panel::kManager = {
    .workspace_group =
        [](void* d, ext_workspace_manager_v1*, ext_workspace_group_handle_v1* proxy) {
          auto& g = static_cast<Panel*>(d)->groups.emplace_back(std::make_unique<Group>());
          g->proxy = proxy;
          ext_workspace_group_handle_v1_add_listener(proxy, &kGroup, g.get());
        },
    .workspace =
        [](void* d, ext_workspace_manager_v1*, ext_workspace_handle_v1* proxy) {
          auto& w = static_cast<Panel*>(d)->workspaces.emplace_back(std::make_unique<Workspace>());
          w->proxy = proxy;
          ext_workspace_handle_v1_add_listener(proxy, &kWorkspace, w.get());
        },
    .done = [](void* d, ext_workspace_manager_v1*) { ++static_cast<Panel*>(d)->dones; },
    .finished = [](void* d, ext_workspace_manager_v1*) { static_cast<Panel*>(d)->finished = true; },
};

Options two_outputs() {
  return with_config("ext-workspace", R"([keybindings]
"Super+1" = "workspace 1"
)",
                     2);
}

TEST(ExtWorkspace, EachOutputIsAGroupOfTenWorkspacesWithTheShownOneActive) {
  Harness h(two_outputs());
  Client c(h);
  Panel panel(h, c);
  ASSERT_NE(panel.manager, nullptr) << "ext_workspace_manager_v1 is not advertised";
  EXPECT_GE(panel.dones, 1);
  ASSERT_EQ(panel.groups.size(), 2U) << "one group per output";
  ASSERT_EQ(panel.workspaces.size(), 20U);
  Group* mine = panel.group_with(c.output);
  ASSERT_NE(mine, nullptr) << "no group entered the output this client bound";
  for (const auto& g : panel.groups) {
    EXPECT_EQ(g->capabilities, 0U) << "creating workspaces is not offered";
    ASSERT_EQ(g->workspaces.size(), 10U);
    EXPECT_EQ(Panel::active(*g), std::vector<std::string>{"1"});
    for (size_t i = 0; i < 10; ++i) {
      const Workspace& w = *g->workspaces[i];
      EXPECT_EQ(w.name, std::to_string(i + 1));
      EXPECT_EQ(w.coordinates, std::vector<uint32_t>{static_cast<uint32_t>(i)});
      EXPECT_EQ(w.capabilities,
                static_cast<uint32_t>(EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_ACTIVATE));
    }
  }
  const std::string first_id = mine->workspaces.front()->id;
  EXPECT_TRUE(first_id.starts_with("HEADLESS-") && first_id.ends_with("/1")) << first_id;
}

TEST(ExtWorkspace, ActivatingShowsTheWorkspaceAndTheStateFollowsTheUser) {
  Harness h(two_outputs());
  Client c(h);
  VirtualKeyboard keyboard(h, c);
  Window window(c);
  View* view = map_window(h, window, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  Panel panel(h, c);
  Group* g = panel.group_of(*view->output());
  ASSERT_NE(g, nullptr) << "no group for the window's output";

  Workspace* three = Panel::named(*g, "3");
  ASSERT_NE(three, nullptr);
  ext_workspace_handle_v1_activate(three->proxy);
  h.sync();
  EXPECT_TRUE(view->visible()) << "an activation before the commit took effect";
  ext_workspace_manager_v1_commit(panel.manager);
  const int dones = panel.dones;
  h.sync();
  EXPECT_EQ(h.server().workspaces().current(view->output()), 3);
  EXPECT_FALSE(view->visible()) << "the window of the workspace left is still shown";
  EXPECT_GT(panel.dones, dones);
  EXPECT_EQ(Panel::active(*g), std::vector<std::string>{"3"});

  keyboard.chord({KEY_LEFTMETA, KEY_1});  // the user switches back
  h.sync();
  EXPECT_TRUE(view->visible());
  EXPECT_EQ(Panel::active(*g), std::vector<std::string>{"1"}) << "the state did not follow";
  for (auto& other : panel.groups) {
    if (other.get() != g) {
      EXPECT_EQ(Panel::active(*other), std::vector<std::string>{"1"});
    }
  }
}

TEST(ExtWorkspace, CreatingIsRefusedAndAnOutputThatGoesTakesItsGroup) {
  Harness h(two_outputs());
  Client c(h);
  Panel panel(h, c);
  ASSERT_EQ(panel.groups.size(), 2U);
  ext_workspace_group_handle_v1_create_workspace(panel.groups[0]->proxy, "extra");
  ext_workspace_manager_v1_commit(panel.manager);
  h.sync();
  EXPECT_EQ(panel.workspaces.size(), 20U) << "a workspace was created";
  EXPECT_EQ(wl_display_get_error(c.display()), 0) << "a refused create is no protocol error";

  Output* second = h.server().outputs()[1];
  const std::string prefix = std::string(second->wlr()->name) + "/";
  wlr_output_destroy(second->wlr());
  h.sync();
  int removed_groups = 0;
  for (auto& g : panel.groups) removed_groups += g->removed;
  EXPECT_EQ(removed_groups, 1);
  int removed = 0;
  for (auto& w : panel.workspaces) {
    EXPECT_EQ(w->removed, w->id.starts_with(prefix)) << w->id;
    removed += w->removed;
  }
  EXPECT_EQ(removed, 10);

  ext_workspace_manager_v1_stop(panel.manager);
  h.sync();
  EXPECT_TRUE(panel.finished) << "stop did not end with finished";
}

// A window that rings the bell while its workspace is not shown is marked
// urgent (xdg-system-bell): its workspace turns urgent for the panel, and
// stops being so once the user goes there and the window takes focus.
TEST(ExtWorkspace, AWorkspaceWithAnUrgentWindowIsUrgent) {
  Harness h(two_outputs());
  Client c(h);
  VirtualKeyboard keyboard(h, c);
  Window window(c);
  View* view = map_window(h, window, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  Panel panel(h, c);
  Group* g = panel.group_of(*view->output());
  ASSERT_NE(g, nullptr);
  Workspace* one = Panel::named(*g, "1");
  ext_workspace_handle_v1_activate(Panel::named(*g, "2")->proxy);
  ext_workspace_manager_v1_commit(panel.manager);
  h.sync();
  ASSERT_FALSE(view->visible());
  EXPECT_EQ(one->state, 0U);

  Globals globals(h, c.display());
  auto* bell = static_cast<xdg_system_bell_v1*>(globals.bind(&xdg_system_bell_v1_interface, 1));
  ASSERT_NE(bell, nullptr);
  xdg_system_bell_v1_ring(bell, window.surface());
  h.sync();
  EXPECT_EQ(one->state, static_cast<uint32_t>(EXT_WORKSPACE_HANDLE_V1_STATE_URGENT))
      << "the workspace of the window that rang is not urgent";

  keyboard.chord({KEY_LEFTMETA, KEY_1});
  h.sync();
  EXPECT_EQ(one->state, static_cast<uint32_t>(EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE))
      << "still urgent after the window took focus";
  xdg_system_bell_v1_destroy(bell);
}

}  // namespace
}  // namespace baton::test
