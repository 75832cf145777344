#include "compositor/output/scene_layers.hpp"

#include "util/wlr.hpp"

namespace baton {

SceneLayers SceneLayers::create(wlr_scene* scene) {
  SceneLayers layers;
  layers.scene = scene;
  wlr_scene_tree* root = &scene->tree;
  // Each tree created goes on top of the ones before it.
  layers.background = wlr_scene_tree_create(root);
  layers.shell[ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND] = wlr_scene_tree_create(root);
  layers.shell[ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM] = wlr_scene_tree_create(root);
  layers.windows = wlr_scene_tree_create(root);
  layers.shell[ZWLR_LAYER_SHELL_V1_LAYER_TOP] = wlr_scene_tree_create(root);
  layers.fullscreen = wlr_scene_tree_create(root);
  layers.shell[ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY] = wlr_scene_tree_create(root);
  layers.unmanaged = wlr_scene_tree_create(root);
  layers.input_popups = wlr_scene_tree_create(root);
  layers.drag_icons = wlr_scene_tree_create(root);
  layers.lock = wlr_scene_tree_create(root);
  return layers;
}

}  // namespace baton
