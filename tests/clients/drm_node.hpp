// Finds a DRM node by its driver's name ("vgem", "virtio_gpu"): card numbers
// depend on probe order, so tests never hard-code them.
#pragma once

#include <string>
#include <string_view>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::testing {

enum class NodeKind { primary, render };  // /dev/dri/cardN, /dev/dri/renderDN

/// Opens the first node of `kind` whose driver is `driver` (O_RDWR|O_CLOEXEC);
/// ENOENT when there is none.
Result<UniqueFd> open_drm_node(std::string_view driver, NodeKind kind);

/// The driver name behind a DRM fd ("" when it is not one).
std::string drm_driver_name(int drm_fd);

}  // namespace baton::testing
