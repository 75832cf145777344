// Workspaces 1..10 on every output. Each output shows one of its own
// workspaces at a time; each window belongs to one output and one of that
// output's workspaces, and is shown and can take focus only while that
// workspace is current there. Bindings act on the focused output: the one
// whose window was focused or that the pointer moved onto last.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "util/signal.hpp"
#include "util/weak.hpp"

namespace baton {

class Output;
class View;
class Windows;

class Workspaces {
 public:
  static constexpr int kCount = 10;

  explicit Workspaces(Windows& windows);
  Workspaces(const Workspaces&) = delete;
  Workspaces& operator=(const Workspaces&) = delete;

  /// The workspace shown on `output` (1 until it is switched).
  [[nodiscard]] int current(const Output* output) const;
  /// The workspace shown on the focused output.
  [[nodiscard]] int current() const { return current(focused_output()); }
  /// Where bindings act and new windows open; null without outputs.
  [[nodiscard]] Output* focused_output() const;
  /// `output` becomes the focused one (a window there took focus).
  void focus_output(Output* output);
  /// The pointer is over `output` now.
  void pointer_on(Output* output);

  /// Shows workspace `n` on the focused output and focuses its most
  /// recently focused window.
  void switch_to(int n);
  void switch_to(Output& output, int n);
  /// Switches `view`'s output to `view`'s workspace.
  void show(const View& view);
  /// Sends `view` to workspace `n` of its output; it disappears if `n` is
  /// not current there.
  void move_view(View& view, int n);
  /// `view` (mapped, or moved) lies on the output under its centre: when
  /// that is a new output for it, it joins the output's current workspace.
  void place(View& view);
  /// Topmost mapped window of `output`'s current workspace, skipping `except`.
  [[nodiscard]] View* most_recent(const Output* output, const View* except = nullptr) const;

  /// A new output: windows that had none come to it.
  void output_added(Output& output);
  /// `output` is going away: its windows move to another output.
  void output_removed(Output& output);
  /// Windows on `output` move to another output that is on.
  void evacuate(Output& output);

  /// Windows were shown, hidden or moved to another output: what lies
  /// under the pointer may have changed.
  Signal<> rearranged;

 private:
  void refocus(const Output* output);

  Windows& windows_;
  std::vector<std::pair<const Output*, int>> current_;
  // The workspace each output showed when it went away, by connector name:
  // wlroots destroys DRM outputs on a VT switch and makes new ones after it.
  std::map<std::string, int> current_when_gone_;
  Weak<Output> focused_output_;
  Weak<Output> pointer_output_;
  Connection output_added_;
  Connection output_removed_;
  Connection output_disabled_;
};

}  // namespace baton
