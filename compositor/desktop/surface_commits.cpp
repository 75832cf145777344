#include "compositor/desktop/surface_commits.hpp"

#include "util/wlr.hpp"

namespace baton {

SurfaceCommits::SurfaceCommits(wlr_compositor* compositor) {
  new_surface_.connect(&compositor->events.new_surface, [this](wlr_surface* s) { watch(s); });
}

SurfaceCommits::~SurfaceCommits() = default;

void SurfaceCommits::watch(wlr_surface* surface) {
  auto watch = std::make_unique<Watch>();
  watch->commit.connect(&surface->events.commit, [this](void*) { committed.emit(); });
  watch->destroy.connect(&surface->events.destroy,
                         [this, surface](void*) { watches_.erase(surface); });
  watches_[surface] = std::move(watch);
}

}  // namespace baton
