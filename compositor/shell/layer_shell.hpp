// wlr-layer-shell: panels, docks, wallpapers and overlays. Puts layer
// surfaces into their scene layers (SceneLayers), lays them out per output
// and sets each output's usable area: what is left after exclusive zones,
// used by maximize.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class Outputs;
class Windows;
struct SceneLayers;
class LayerShell;

class LayerSurface {
 public:
  LayerSurface(LayerShell& shell, wlr_layer_surface_v1* surface);
  LayerSurface(const LayerSurface&) = delete;
  LayerSurface& operator=(const LayerSurface&) = delete;

  [[nodiscard]] wlr_layer_surface_v1* wlr() const { return surface_; }
  [[nodiscard]] wlr_scene_layer_surface_v1* scene() const { return scene_; }
  [[nodiscard]] bool mapped() const { return mapped_; }
  /// Asks the client for this size, unless it was the last size asked and
  /// the client has committed no new layer state since: a configure that
  /// changes nothing still costs the client a redraw (and slurp 1.4, which
  /// draws a frame per configure, crashes on one that comes while its last
  /// frame is pending).
  void configure(int width, int height);

 private:
  void reject_unanchored_zero_size();

  LayerShell& shell_;
  wlr_layer_surface_v1* surface_;
  wlr_scene_layer_surface_v1* scene_;
  bool mapped_ = false;
  int layer_;
  // The size last sent, and whether the client's last commit changed its
  // layer state (anchor, size, margins...), which a configure answers.
  std::optional<std::pair<int, int>> configured_size_;
  bool answer_due_ = false;
  Listener<void> map_;
  Listener<void> unmap_;
  Listener<void> client_commit_;
  Listener<void> commit_;
  Listener<void> destroy_;
};

class LayerShell {
 public:
  LayerShell(wl_display* display, wlr_seat* seat, Outputs& outputs, const SceneLayers& layers,
             Windows& windows);
  ~LayerShell();
  LayerShell(const LayerShell&) = delete;
  LayerShell& operator=(const LayerShell&) = delete;

  /// The scene tree of a zwlr_layer_shell_v1 layer.
  [[nodiscard]] wlr_scene_tree* tree(uint32_t layer) const;

  /// The output's box minus exclusive zones (layout coordinates).
  [[nodiscard]] wlr_box usable_area(wlr_output* output) const;
  /// Lays out the output's layer surfaces, then refits maximized windows.
  void arrange(wlr_output* output);
  void arrange_all();
  /// The output is going away: its layer surfaces are closed.
  void output_removed(wlr_output* output);
  /// The surface that holds keyboard focus because it asked for it
  /// (exclusive interactivity), or null.
  [[nodiscard]] wlr_surface* exclusive_focus() const;
  /// Gives keyboard focus to the topmost surface that wants it exclusively,
  /// else back to the focused window.
  void update_keyboard_focus();

  void surface_mapped_changed(LayerSurface& surface);
  void surface_destroyed(LayerSurface& surface);
  [[nodiscard]] const std::vector<std::unique_ptr<LayerSurface>>& surfaces() const {
    return surfaces_;
  }

  /// Keyboard focus should go to this surface now (null: nobody): a panel
  /// that asks for it, or the focused window once none does. The seat gives it.
  Signal<wlr_surface*> keyboard_wanted;
  /// A layer surface appeared or went: what lies under a still pointer may
  /// have changed (an overlay opened under it must get the next click).
  Signal<> surfaces_changed;

 private:
  wlr_seat* seat_;
  Outputs& outputs_;
  const SceneLayers& layers_;
  Windows& windows_;
  wlr_layer_shell_v1* shell_;
  std::vector<std::unique_ptr<LayerSurface>> surfaces_;
  Listener<wlr_layer_surface_v1> new_surface_;
  Connection output_removed_;
  Connection layout_changed_;
};

}  // namespace baton
