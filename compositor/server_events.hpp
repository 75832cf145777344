// What happens in a Server that its subsystems react to. The Server emits;
// each subsystem connects in its constructor and keeps the Connection, so it
// stops hearing when it goes. Subscribers run in the order they connected
// (the order the Server creates them in).
#pragma once

#include "util/signal.hpp"

namespace baton {

class Output;
class View;

struct ServerEvents {
  /// A new output, configured and in the layout.
  Signal<Output&> output_added;
  /// An output about to go: move what is on it elsewhere.
  Signal<Output&> output_removed;
  /// An output turned off (wlr-randr --off): it stays, its windows move to
  /// an output that is on.
  Signal<Output&> output_disabled;
  /// Outputs came, went, moved or changed mode: re-arrange what depends on
  /// their boxes (panels, lock covers, output-management clients).
  Signal<> layout_changed;
  /// A managed or unmanaged window mapped (placed and focused already).
  Signal<View&> view_mapped;
  /// A window unmapped (focus has moved on already) or is about to be freed.
  Signal<View&> view_unmapped;
  Signal<View&> view_destroyed;
  /// The config file was (re)read: apply what it says to live objects.
  Signal<> config_applied;
  /// The session came back to this VT: outputs need enabling and repainting.
  Signal<> session_resumed;
  /// After a GPU loss: Server::renderer() and allocator() are new.
  Signal<> renderer_rebuilt;
};

}  // namespace baton
