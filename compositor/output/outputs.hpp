// Every Output of one Server, in creation order, and what happens to them.
// The Server adds and removes outputs; subsystems that place things on
// outputs subscribe to these signals instead of asking the Server.
#pragma once

#include <memory>
#include <vector>

#include "util/listener.hpp"
#include "util/signal.hpp"

struct wlr_output;
struct wlr_output_layout;

namespace baton {

class Output;

class Outputs {
 public:
  explicit Outputs(wlr_output_layout* layout);
  ~Outputs();
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  [[nodiscard]] wlr_output_layout* layout() const { return layout_; }
  /// Outputs in creation order.
  [[nodiscard]] std::vector<Output*> all() const;
  [[nodiscard]] bool empty() const { return outputs_.empty(); }
  /// The output containing layout point (lx, ly), else the first output.
  [[nodiscard]] Output* at(double lx, double ly) const;
  /// The Output of `output`, or null.
  [[nodiscard]] Output* find(const wlr_output* output) const;

  /// Takes a new output (configured and in the layout) and tells subscribers.
  void add(std::unique_ptr<Output> output);
  /// Tells subscribers `output` goes, then frees it.
  void remove(Output& output);
  /// Teardown: layout changes no longer become layout_changed.
  void stop_layout_events() { layout_change_.disconnect(); }
  /// Frees every output without telling anyone (Server teardown).
  void clear() { outputs_.clear(); }

  /// A new output, configured and in the layout.
  Signal<Output&> added;
  /// An output about to go: move what is on it elsewhere.
  Signal<Output&> removed;
  /// An output turned off (wlr-randr --off): it stays, its windows move to
  /// an output that is on.
  Signal<Output&> disabled;
  /// Outputs came, went, moved or changed mode: re-arrange what depends on
  /// their boxes (panels, lock covers, output-management clients).
  Signal<> layout_changed;

 private:
  wlr_output_layout* layout_;
  std::vector<std::unique_ptr<Output>> outputs_;
  Listener<void> layout_change_;
};

}  // namespace baton
