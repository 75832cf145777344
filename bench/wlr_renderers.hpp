// wlroots' own GLES2 and Vulkan renderers for baton-bench. Both need a DRM
// node, which the bench opens itself (--drm-device): on a machine without
// /dev/dri they cannot start; in the qemu guest of tests/vm they may.
#pragma once

#include <string>

#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton::bench {

enum class WlrApi { gles2, vulkan };

struct WlrRenderer {
  wlr_renderer* renderer = nullptr;
  wlr_allocator* allocator = nullptr;
  bool has_timer = false;  // wlr_render_timer works on it
};

// Opens `drm_device` and creates wlroots' renderer for `api` on it, with the
// allocator wlroots picks for a backend on that node (GBM), and checks that it
// can draw into one of its buffers. Give a primary node (/dev/dri/cardN): with
// Mesa's software rendering only there can buffers be created. While wlroots
// tries, its log runs at debug level so that its own reason for a refusal
// appears on stderr too; `verbosity` is restored afterwards.
// An error says why it did not start.
Result<WlrRenderer> create_wlr_renderer(WlrApi api, const std::string& drm_device,
                                        wlr_log_importance verbosity);

}  // namespace baton::bench
