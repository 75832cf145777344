// ext-workspace-v1: baton's workspaces for panels and docks. Each output is
// a workspace group holding workspaces 1..10 (named "1".."10", with the id
// "OUTPUT/N" and 1-D coordinates), and the one shown on an output is active;
// one holding a window marked urgent is urgent.
// A client may activate a workspace: at its commit, baton shows it on its
// output, as the Super+N binding does. Creating, removing, deactivating and
// reassigning workspaces are not offered (the capabilities say so) and are
// ignored. The state follows every switch, by binding or by request, and
// groups come and go with their outputs. Privileged (the sandbox hides it).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class Output;
class Outputs;
class Windows;
class Workspaces;

class WorkspaceList {
 public:
  WorkspaceList(wl_display* display, Outputs& outputs, Windows& windows);
  ~WorkspaceList();
  WorkspaceList(const WorkspaceList&) = delete;
  WorkspaceList& operator=(const WorkspaceList&) = delete;

  struct Binding;

 private:
  static void bind(wl_client* client, void* data, uint32_t version, uint32_t id);
  /// Sends `output`'s group and its workspaces to `binding` (no done).
  void announce(Binding& binding, Output& output);
  /// `output` goes: its group and workspaces are removed for every client.
  void withdraw(Output& output);
  /// Sends each workspace's state where it changed, then done.
  void refresh_states();

  [[nodiscard]] uint32_t state_of(const Output* output, int n) const;

  Outputs& outputs_;
  Windows& windows_;
  Workspaces& workspaces_;
  wl_global* global_ = nullptr;
  std::vector<std::unique_ptr<Binding>> bindings_;
  Connection output_added_;
  Connection output_removed_;
  Connection rearranged_;
  Connection urgency_changed_;
  Connection view_unmapped_;
  // A wl_output bound after its group was sent: the group's output_enter.
  std::vector<std::pair<Output*, std::unique_ptr<Listener<wlr_output_event_bind>>>> output_binds_;
};

}  // namespace baton
