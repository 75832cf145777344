// A window's icon (xdg-toplevel-icon) drawn for its title bar.
#pragma once

struct wlr_buffer;
struct wlr_xdg_toplevel_icon_v1;

namespace baton {

/// `icon` as a `size`-pixel square for the title bar: the client's buffer
/// nearest that size (shm ARGB8888/XRGB8888) scaled to fit, else the named
/// icon's PNG from the icon themes (hicolor, Adwaita) or /usr/share/pixmaps.
/// The caller owns the returned buffer (wlr_buffer_drop); null when the icon
/// has neither a readable buffer nor a PNG by that name (SVG-only themes are
/// not drawn).
wlr_buffer* render_toplevel_icon(const wlr_xdg_toplevel_icon_v1* icon, int size);

}  // namespace baton
