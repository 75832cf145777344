// Where a layer surface goes on its output (wlr-layer-shell): its box from
// its anchors, size and margins, and the strip its exclusive zone takes from
// the area windows may use. Pure arithmetic, so LayerShell can tell whether a
// surface's size really changed before it sends a configure.
#pragma once

#include <wlr/util/box.h>

#include <cstdint>

struct wlr_layer_surface_v1_state;

namespace baton {

/// The surface's box in layout coordinates. A surface with exclusive zone -1
/// is placed on the whole output (`full`), any other within `usable`. Sizes
/// never go below 0, whatever the margins, and the box's position and size
/// stay within 2^24 pixels.
wlr_box place_layer_surface(const wlr_layer_surface_v1_state& state, const wlr_box& full,
                            const wlr_box& usable);

/// Takes a mapped surface's exclusive zone (plus its margin on that edge) off
/// `usable`. Only a surface anchored to one edge, alone or with both edges
/// beside it, reserves anything; `usable` never goes below 0 wide or high,
/// nor past 2^24 pixels.
void reserve_exclusive_zone(const wlr_layer_surface_v1_state& state, wlr_box& usable);

}  // namespace baton
