// Window titles as pixels: text laid out with Pango and drawn with cairo
// into a wlr_buffer the scene can show (server-side title bars).
#pragma once

#include <cstdint>
#include <string>

struct wlr_buffer;

namespace baton {

/// `text` in colour 0xRRGGBB on transparency, at most `max_width` wide
/// (ellipsized) and `height` high, vertically centred. The caller owns the
/// returned buffer (wlr_buffer_drop); null for empty text or a zero size.
wlr_buffer* render_title(const std::string& text, int max_width, int height, uint32_t rgb);

}  // namespace baton
