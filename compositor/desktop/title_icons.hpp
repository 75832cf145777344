// The icons on server-side title bar buttons, drawn with cairo.
#pragma once

#include <cstdint>

#include "compositor/desktop/view.hpp"

struct wlr_buffer;

namespace baton {

/// `button`'s icon (a cross for close, a square for maximize) in colour
/// 0xRRGGBB on transparency, `size` pixels square. The caller owns the
/// returned buffer (wlr_buffer_drop); null for TitleButton::none.
wlr_buffer* render_button_icon(TitleButton button, int size, uint32_t rgb);

}  // namespace baton
