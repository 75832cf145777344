// Finding and mapping a test client's window: the View baton made for it.
#pragma once

#include <cstdint>

#include "tests/support/client.hpp"
#include "tests/support/harness.hpp"

namespace baton {
class View;
}

namespace baton::test {

/// The mapped View showing `window` (matched by the surface's protocol id
/// and client), or null.
View* find_view(Harness& h, const Window& window);
/// Maps `window` as a client does: the initial commit, the first configure,
/// then a `width`x`height` buffer of `argb`. Its View, or null (and a test
/// failure) if it never maps.
View* map_window(Harness& h, Window& window, uint32_t argb, int width = 200, int height = 150);

}  // namespace baton::test
