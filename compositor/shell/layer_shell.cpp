#include "compositor/shell/layer_shell.hpp"

#include <algorithm>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "compositor/shell/layer_placement.hpp"
#include "util/log.hpp"

namespace baton {

LayerSurface::LayerSurface(LayerShell& shell, wlr_layer_surface_v1* surface)
    : shell_(shell),
      surface_(surface),
      scene_(wlr_scene_layer_surface_v1_create(shell.tree(surface->pending.layer), surface)),
      layer_(surface->pending.layer) {
  // Popups of this surface find their parent tree here (see Popup).
  surface->data = scene_->tree;
  map_.connect(&surface->surface->events.map, [this](void*) {
    mapped_ = true;
    shell_.surface_mapped_changed(*this);
  });
  unmap_.connect(&surface->surface->events.unmap, [this](void*) {
    mapped_ = false;
    shell_.surface_mapped_changed(*this);
  });
  client_commit_.connect(&surface->surface->events.client_commit,
                         [this](void*) { reject_unanchored_zero_size(); });
  commit_.connect(&surface->surface->events.commit, [this](void*) {
    if (surface_->output == nullptr) return;
    // A client may move its surface to another layer at any commit.
    if (static_cast<int>(surface_->current.layer) != layer_) {
      layer_ = surface_->current.layer;
      wlr_scene_node_reparent(&scene_->tree->node, shell_.tree(layer_));
    }
    if (surface_->initial_commit || surface_->current.committed != 0) {
      answer_due_ = true;
      shell_.arrange(surface_->output);
      if (mapped_) shell_.update_keyboard_focus();
    }
  });
  destroy_.connect(&surface->events.destroy, [this](void*) { shell_.surface_destroyed(*this); });
}

void LayerSurface::configure(int width, int height) {
  const std::pair<int, int> size{width, height};
  if (!answer_due_ && configured_size_ == size) return;
  answer_due_ = false;
  configured_size_ = size;
  wlr_layer_surface_v1_configure(surface_, static_cast<uint32_t>(width),
                                 static_cast<uint32_t>(height));
}

// wlr-layer-shell: a size of 0 asks to be stretched between the opposite
// anchors of that dimension, so 0 without both is a client error. Upstream
// wlroots checks it, but Debian's wlroots compiles that check out (a patch
// kept for old phosh): baton checks it here, whichever wlroots it runs on
// (rejecting twice is harmless). Runs before the state is applied.
void LayerSurface::reject_unanchored_zero_size() {
  constexpr uint32_t kHorizontal =
      ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
  constexpr uint32_t kVertical =
      ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
  const auto& pending = surface_->pending;
  if (pending.desired_width == 0 && (pending.anchor & kHorizontal) != kHorizontal)
    wlr_surface_reject_pending(surface_->surface, surface_->resource,
                               ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
                               "width 0 requested without setting left and right anchors");
  else if (pending.desired_height == 0 && (pending.anchor & kVertical) != kVertical)
    wlr_surface_reject_pending(surface_->surface, surface_->resource,
                               ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
                               "height 0 requested without setting top and bottom anchors");
}

LayerShell::LayerShell(wl_display* display, wlr_seat* seat, Outputs& outputs,
                       const SceneLayers& layers, Windows& windows)
    : seat_(seat),
      outputs_(outputs),
      layers_(layers),
      windows_(windows),
      shell_(wlr_layer_shell_v1_create(display, 4)) {
  new_surface_.connect(&shell_->events.new_surface, [this](wlr_layer_surface_v1* surface) {
    if (surface->output == nullptr) {
      Output* output = windows_.workspaces().focused_output();
      if (output == nullptr) {
        LOG_INFO("layer surface '%s' with no output to show it on", surface->namespace_);
        wlr_layer_surface_v1_destroy(surface);
        return;
      }
      surface->output = output->wlr();
    }
    surfaces_.push_back(std::make_unique<LayerSurface>(*this, surface));
  });
  output_removed_ =
      outputs.removed.connect([this](Output& output) { output_removed(output.wlr()); });
  layout_changed_ = outputs.layout_changed.connect([this] { arrange_all(); });
}

wlr_scene_tree* LayerShell::tree(uint32_t layer) const { return layers_.shell[layer]; }

LayerShell::~LayerShell() = default;

wlr_box LayerShell::usable_area(wlr_output* output) const {
  if (const Output* o = outputs_.find(output)) return o->usable_area();
  wlr_box box{};
  wlr_output_layout_get_box(outputs_.layout(), output, &box);
  return box;
}

void LayerShell::arrange(wlr_output* output) {
  wlr_box full{};
  wlr_output_layout_get_box(outputs_.layout(), output, &full);
  if (wlr_box_empty(&full)) return;
  wlr_box usable = full;
  // Exclusive zones first (they shrink the area for later ones), then the
  // rest within what is left, topmost layer first as other compositors do.
  for (bool exclusive : {true, false}) {
    for (int layer = ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY; layer >= 0; --layer) {
      for (const auto& s : surfaces_) {
        wlr_layer_surface_v1* ls = s->wlr();
        if (ls->output != output || !ls->initialized) continue;
        if (static_cast<int>(ls->current.layer) != layer) continue;
        if ((ls->current.exclusive_zone > 0) != exclusive) continue;
        const wlr_box box = place_layer_surface(ls->current, full, usable);
        wlr_scene_node_set_position(&s->scene()->tree->node, box.x, box.y);
        s->configure(box.width, box.height);
        if (s->mapped()) reserve_exclusive_zone(ls->current, usable);
      }
    }
  }
  Output* shell_output = outputs_.find(output);
  if (shell_output == nullptr || !shell_output->set_usable_area(usable)) return;
  for (const auto& v : windows_.views()) {
    if (!v->mapped() || !v->maximized() || v->fullscreen()) continue;
    Rect f = v->frame();
    Output* on = outputs_.at(f.x + f.width / 2.0, f.y + f.height / 2.0);
    if (on != nullptr && on->wlr() == output) v->set_maximized(true);
  }
}

void LayerShell::arrange_all() {
  for (Output* output : outputs_.all()) arrange(output->wlr());
}

void LayerShell::output_removed(wlr_output* output) {
  std::vector<wlr_layer_surface_v1*> doomed;
  for (const auto& s : surfaces_)
    if (s->wlr()->output == output) doomed.push_back(s->wlr());
  for (wlr_layer_surface_v1* surface : doomed) {
    surface->output = nullptr;
    wlr_layer_surface_v1_destroy(surface);
  }
}

wlr_surface* LayerShell::exclusive_focus() const {
  for (int layer : {ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, ZWLR_LAYER_SHELL_V1_LAYER_TOP}) {
    for (auto it = surfaces_.rbegin(); it != surfaces_.rend(); ++it) {
      wlr_layer_surface_v1* ls = (*it)->wlr();
      if ((*it)->mapped() && static_cast<int>(ls->current.layer) == layer &&
          ls->current.keyboard_interactive ==
              ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE)
        return ls->surface;
    }
  }
  return nullptr;
}

void LayerShell::update_keyboard_focus() {
  if (wlr_surface* surface = exclusive_focus()) {
    keyboard_wanted.emit(surface);
    return;
  }
  // Nothing holds it exclusively: focus returns to the window, unless an
  // on-demand surface (clicked) still has it.
  wlr_surface* current = seat_->keyboard_state.focused_surface;
  if (current != nullptr) {
    for (const auto& s : surfaces_)
      if (s->wlr()->surface == current && s->mapped() &&
          s->wlr()->current.keyboard_interactive !=
              ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE)
        return;
  }
  View* view = windows_.focused();
  keyboard_wanted.emit(view != nullptr ? view->surface() : nullptr);
}

void LayerShell::surface_mapped_changed(LayerSurface& surface) {
  if (surface.wlr()->output != nullptr) arrange(surface.wlr()->output);
  update_keyboard_focus();
  surfaces_changed.emit();
}

void LayerShell::surface_destroyed(LayerSurface& surface) {
  wlr_output* output = surface.wlr()->output;
  std::erase_if(surfaces_, [&](const auto& s) { return s.get() == &surface; });
  if (output != nullptr) arrange(output);
  update_keyboard_focus();
  surfaces_changed.emit();
}

}  // namespace baton
