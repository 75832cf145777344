// The scene's stacking layers, bottom to top. Every part of the desktop
// draws into one of these trees; their order is fixed once, here.
#pragma once

struct wlr_scene;
struct wlr_scene_tree;

namespace baton {

struct SceneLayers {
  wlr_scene* scene = nullptr;
  wlr_scene_tree* background = nullptr;  // each output's solid colour
  /// zwlr_layer_shell_v1 layers, by their number (background, bottom, top,
  /// overlay); windows lie between bottom and top.
  wlr_scene_tree* shell[4] = {};
  wlr_scene_tree* windows = nullptr;
  wlr_scene_tree* fullscreen = nullptr;    // above panels (top), below overlays
  wlr_scene_tree* unmanaged = nullptr;     // X11 override-redirect menus and tooltips
  wlr_scene_tree* input_popups = nullptr;  // input methods' candidate lists
  wlr_scene_tree* drag_icons = nullptr;    // what a drag-and-drop carries
  wlr_scene_tree* lock = nullptr;          // lock surfaces: above everything

  /// Creates the trees in `scene`, in stacking order.
  static SceneLayers create(wlr_scene* scene);
};

}  // namespace baton
