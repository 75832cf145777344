#include "compositor/shell/workspace_list.hpp"

#include <algorithm>
#include <string>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "ext-workspace-v1-server-protocol.h"
#include "util/log.hpp"

namespace baton {

// One client's manager and the handles it was sent. A handle's resource
// points at its entry here; the entry goes when the resource does, and a
// handle whose output went is inert (null user data).
struct WorkspaceList::Binding {
  struct Group {
    Binding* binding;
    Output* output;
    wl_resource* resource;
  };
  struct Workspace {
    Binding* binding;
    Output* output;
    int n;
    wl_resource* resource;
    uint32_t state = 0;  // as last sent
  };
  WorkspaceList* list;
  wl_resource* manager;
  std::vector<std::unique_ptr<Group>> groups;
  std::vector<std::unique_ptr<Workspace>> workspaces;
  std::vector<std::pair<Output*, int>> pending;  // activations, until commit

  Group* group_of(const Output* output) {
    for (auto& g : groups)
      if (g->output == output) return g.get();
    return nullptr;
  }
};

namespace {

using Binding = WorkspaceList::Binding;

void send_output_enters(Binding::Group& group) {
  wl_client* client = wl_resource_get_client(group.resource);
  wl_resource* output;
  wl_resource_for_each(output, &group.output->wlr()->resources) {
    if (wl_resource_get_client(output) == client)
      ext_workspace_group_handle_v1_send_output_enter(group.resource, output);
  }
}

const struct ext_workspace_group_handle_v1_interface kGroupImpl = {
    .create_workspace =
        [](wl_client*, wl_resource*, const char* name) {
          // Not among the group's capabilities: the protocol lets us ignore it.
          LOG_INFO("ext-workspace: a client asked for a new workspace '%s': baton's are fixed",
                   name);
        },
    .destroy = [](wl_client*, wl_resource* resource) { wl_resource_destroy(resource); },
};

const struct ext_workspace_handle_v1_interface kWorkspaceImpl = {
    .destroy = [](wl_client*, wl_resource* resource) { wl_resource_destroy(resource); },
    .activate =
        [](wl_client*, wl_resource* resource) {
          auto* ws = static_cast<Binding::Workspace*>(wl_resource_get_user_data(resource));
          if (ws != nullptr) ws->binding->pending.emplace_back(ws->output, ws->n);
        },
    // Not among the workspace's capabilities: ignored.
    .deactivate = [](wl_client*, wl_resource*) {},
    .assign = [](wl_client*, wl_resource*, wl_resource*) {},
    .remove = [](wl_client*, wl_resource*) {},
};

}  // namespace

WorkspaceList::WorkspaceList(wl_display* display, Outputs& outputs, Windows& windows)
    : outputs_(outputs), windows_(windows), workspaces_(windows.workspaces()) {
  global_ = wl_global_create(display, &ext_workspace_manager_v1_interface, 1, this, bind);
  if (global_ == nullptr) LOG_ERROR("ext-workspace: wl_global_create failed; it is off");
  auto watch_binds = [this](Output& output) {
    auto listener = std::make_unique<Listener<wlr_output_event_bind>>();
    listener->connect(&output.wlr()->events.bind, [this, &output](wlr_output_event_bind* e) {
      wl_client* client = wl_resource_get_client(e->resource);
      for (auto& b : bindings_) {
        Binding::Group* group = b->group_of(&output);
        if (group == nullptr || wl_resource_get_client(b->manager) != client) continue;
        ext_workspace_group_handle_v1_send_output_enter(group->resource, e->resource);
        ext_workspace_manager_v1_send_done(b->manager);
      }
    });
    output_binds_.emplace_back(&output, std::move(listener));
  };
  for (Output* output : outputs.all()) watch_binds(*output);
  output_added_ = outputs.added.connect([this, watch_binds](Output& output) {
    watch_binds(output);
    for (auto& b : bindings_) {
      announce(*b, output);
      ext_workspace_manager_v1_send_done(b->manager);
    }
  });
  output_removed_ = outputs.removed.connect([this](Output& output) {
    withdraw(output);
    std::erase_if(output_binds_, [&output](const auto& entry) { return entry.first == &output; });
  });
  rearranged_ = workspaces_.rearranged.connect([this] { refresh_states(); });
  urgency_changed_ = windows.urgency_changed.connect([this](View&) { refresh_states(); });
  view_unmapped_ = windows.view_unmapped.connect([this](View&) { refresh_states(); });
}

WorkspaceList::~WorkspaceList() {
  // Handles that outlive baton's side (the display goes after us) are inert.
  for (auto& b : bindings_) {
    for (auto& g : b->groups) wl_resource_set_user_data(g->resource, nullptr);
    for (auto& w : b->workspaces) wl_resource_set_user_data(w->resource, nullptr);
    wl_resource_set_user_data(b->manager, nullptr);
  }
  if (global_ != nullptr) wl_global_destroy(global_);
}

void WorkspaceList::bind(wl_client* client, void* data, uint32_t version, uint32_t id) {
  auto* self = static_cast<WorkspaceList*>(data);
  wl_resource* manager = wl_resource_create(client, &ext_workspace_manager_v1_interface,
                                            static_cast<int>(version), id);
  if (manager == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  auto binding = std::make_unique<Binding>();
  binding->list = self;
  binding->manager = manager;
  static const struct ext_workspace_manager_v1_interface kManagerImpl = {
      .commit =
          [](wl_client*, wl_resource* resource) {
            auto* b = static_cast<Binding*>(wl_resource_get_user_data(resource));
            if (b == nullptr) return;
            auto pending = std::move(b->pending);
            b->pending.clear();
            for (auto [output, n] : pending) b->list->workspaces_.switch_to(*output, n);
          },
      .stop =
          [](wl_client*, wl_resource* resource) {
            ext_workspace_manager_v1_send_finished(resource);
            wl_resource_destroy(resource);
          },
  };
  wl_resource_set_implementation(manager, &kManagerImpl, binding.get(), [](wl_resource* r) {
    auto* b = static_cast<Binding*>(wl_resource_get_user_data(r));
    if (b == nullptr) return;
    for (auto& g : b->groups) wl_resource_set_user_data(g->resource, nullptr);
    for (auto& w : b->workspaces) wl_resource_set_user_data(w->resource, nullptr);
    std::erase_if(b->list->bindings_, [b](const auto& other) { return other.get() == b; });
  });
  Binding& ref = *binding;
  self->bindings_.push_back(std::move(binding));
  for (Output* output : self->outputs_.all()) self->announce(ref, *output);
  ext_workspace_manager_v1_send_done(manager);
}

void WorkspaceList::announce(Binding& b, Output& output) {
  wl_client* client = wl_resource_get_client(b.manager);
  const int version = wl_resource_get_version(b.manager);
  wl_resource* group_resource =
      wl_resource_create(client, &ext_workspace_group_handle_v1_interface, version, 0);
  if (group_resource == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  auto group = std::make_unique<Binding::Group>(Binding::Group{&b, &output, group_resource});
  wl_resource_set_implementation(group_resource, &kGroupImpl, group.get(), [](wl_resource* r) {
    auto* g = static_cast<Binding::Group*>(wl_resource_get_user_data(r));
    if (g != nullptr)
      std::erase_if(g->binding->groups, [g](const auto& other) { return other.get() == g; });
  });
  ext_workspace_manager_v1_send_workspace_group(b.manager, group_resource);
  ext_workspace_group_handle_v1_send_capabilities(group_resource, 0);  // no create_workspace
  Binding::Group& g = *group;
  b.groups.push_back(std::move(group));
  send_output_enters(g);
  for (int n = 1; n <= Workspaces::kCount; ++n) {
    wl_resource* resource =
        wl_resource_create(client, &ext_workspace_handle_v1_interface, version, 0);
    if (resource == nullptr) {
      wl_client_post_no_memory(client);
      return;
    }
    auto ws = std::make_unique<Binding::Workspace>(Binding::Workspace{&b, &output, n, resource});
    wl_resource_set_implementation(resource, &kWorkspaceImpl, ws.get(), [](wl_resource* r) {
      auto* w = static_cast<Binding::Workspace*>(wl_resource_get_user_data(r));
      if (w != nullptr)
        std::erase_if(w->binding->workspaces, [w](const auto& other) { return other.get() == w; });
    });
    ext_workspace_manager_v1_send_workspace(b.manager, resource);
    const std::string id = std::string(output.wlr()->name) + "/" + std::to_string(n);
    ext_workspace_handle_v1_send_id(resource, id.c_str());
    ext_workspace_handle_v1_send_name(resource, std::to_string(n).c_str());
    wl_array coordinates;
    wl_array_init(&coordinates);
    if (auto* x = static_cast<uint32_t*>(wl_array_add(&coordinates, sizeof(uint32_t)));
        x != nullptr)
      *x = static_cast<uint32_t>(n - 1);
    ext_workspace_handle_v1_send_coordinates(resource, &coordinates);
    wl_array_release(&coordinates);
    ext_workspace_handle_v1_send_capabilities(
        resource, EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_ACTIVATE);
    ws->state = state_of(&output, n);
    ext_workspace_handle_v1_send_state(resource, ws->state);
    ext_workspace_group_handle_v1_send_workspace_enter(group_resource, resource);
    b.workspaces.push_back(std::move(ws));
  }
}

void WorkspaceList::withdraw(Output& output) {
  for (auto& b : bindings_) {
    std::erase_if(b->pending, [&output](const auto& p) { return p.first == &output; });
    Binding::Group* group = b->group_of(&output);
    for (auto& w : b->workspaces) {
      if (w->output != &output) continue;
      if (group != nullptr)
        ext_workspace_group_handle_v1_send_workspace_leave(group->resource, w->resource);
      ext_workspace_handle_v1_send_removed(w->resource);
      wl_resource_set_user_data(w->resource, nullptr);
    }
    std::erase_if(b->workspaces, [&output](const auto& w) { return w->output == &output; });
    if (group != nullptr) {
      ext_workspace_group_handle_v1_send_removed(group->resource);
      wl_resource_set_user_data(group->resource, nullptr);
      std::erase_if(b->groups, [group](const auto& g) { return g.get() == group; });
    }
    ext_workspace_manager_v1_send_done(b->manager);
  }
}

uint32_t WorkspaceList::state_of(const Output* output, int n) const {
  uint32_t state = workspaces_.current(output) == n ? EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE : 0;
  for (const auto& v : windows_.views())
    if (v->mapped() && v->urgent() && v->output() == output && v->workspace() == n)
      state |= EXT_WORKSPACE_HANDLE_V1_STATE_URGENT;
  return state;
}

void WorkspaceList::refresh_states() {
  for (auto& b : bindings_) {
    bool changed = false;
    for (auto& w : b->workspaces) {
      const uint32_t state = state_of(w->output, w->n);
      if (state == w->state) continue;
      w->state = state;
      ext_workspace_handle_v1_send_state(w->resource, state);
      changed = true;
    }
    if (changed) ext_workspace_manager_v1_send_done(b->manager);
  }
}

}  // namespace baton
