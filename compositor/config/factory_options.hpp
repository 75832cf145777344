// The small option structs the backend and renderer factories take, made from
// the command line and the config file: the only place that knows both.
#pragma once

#include "backend/backend_factory.hpp"
#include "compositor/config/config.hpp"
#include "compositor/config/options.hpp"
#include "renderer/renderer_factory.hpp"

namespace baton {

[[nodiscard]] BackendOptions backend_options(const Options& options);
/// The command line wins; what it leaves unset (`--renderer auto`, no
/// `--swapchain-slots`) comes from the config file. Read once, at start.
[[nodiscard]] RenderOptions render_options(const Options& options, const Config& config);

}  // namespace baton
