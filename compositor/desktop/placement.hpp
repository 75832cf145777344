// Where a new window opens.
//
// Fully inside the usable area of its output (what panels leave free),
// whatever the number of windows: where it overlaps the windows already there
// least, nearest the area's centre among equals; once no spot is free, in a
// cascade from the area's top-left that wraps around inside it. A child
// window (a dialog) opens centred on its parent, kept inside the area. A
// window larger than the area is shrunk to it.
#pragma once

#include <vector>

#include "compositor/desktop/view.hpp"

namespace baton {

/// The frame (title bar included) for a new window of `width` x `height`
/// in `usable`, given the frames of the windows already there and, for a
/// child window, its parent's frame. The top `title_bar` pixels of `height`
/// are the title bar: the content below it is what is centred.
[[nodiscard]] Rect place_window(const Rect& usable, int width, int height,
                                const std::vector<Rect>& others, const Rect* parent = nullptr,
                                int title_bar = 0);

}  // namespace baton
