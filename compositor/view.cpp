#include "compositor/view.hpp"

#include "compositor/wlr.hpp"

namespace baton {

int View::x() const { return tree()->node.x; }
int View::y() const { return tree()->node.y; }
void View::move_to(int x, int y) { wlr_scene_node_set_position(&tree()->node, x, y); }

}  // namespace baton
