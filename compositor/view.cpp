#include "compositor/view.hpp"

#include "compositor/wlr.hpp"

namespace baton {

int View::x() const { return tree()->node.x; }
int View::y() const { return tree()->node.y; }
void View::move_to(int x, int y) { wlr_scene_node_set_position(&tree()->node, x, y); }
void View::set_visible(bool visible) { wlr_scene_node_set_enabled(&tree()->node, visible); }
bool View::visible() const { return tree()->node.enabled; }

}  // namespace baton
