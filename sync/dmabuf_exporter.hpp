// Which kernel driver exported a dma-buf, and whether a buffer it exported
// with the implicit modifier (DRM_FORMAT_MOD_INVALID) may be read as LINEAR.
//
// The implicit modifier means "the exporter's own layout". Exporters that
// have no tiled layout of their own lay every buffer out linearly, so for
// them implicit is LINEAR; a GPU driver may tile, and only it knows how. The
// kernel names each dma-buf's exporter in /proc/self/fdinfo/<fd>
// ("exp_name:"). The names below were read in the qemu guest
// (tests/vm/dmabuf_exporters_test.cpp prints them): udmabuf "udmabuf", the
// system dma-heap "system", vivid's V4L2 buffers "videobuf2_vmalloc";
// virtio-gpu "virtio_gpu"; vgem "drm", the name of the DRM core's PRIME
// helper that many GPU drivers export through too, so vgem cannot be told
// from a GPU and is not listed.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace baton::sync {

/// The exporter's name of dma-buf `fd` (fdinfo's exp_name); an error when
/// fdinfo cannot be read or names none (not a dma-buf).
[[nodiscard]] Result<std::string> dmabuf_exporter(int fd);

/// Whether `exporter` has no layout but linear: udmabuf, the system
/// dma-heap, V4L2's videobuf2_vmalloc.
[[nodiscard]] bool exporter_is_linear_only(std::string_view exporter);

/// Whether a buffer with the implicit modifier whose planes are `fds` may be
/// read as LINEAR: every plane's exporter is linear-only. The error names
/// the plane and exporter that is not (for the log line of a refusal).
[[nodiscard]] Status implicit_layout_is_linear(std::span<const int> fds);

}  // namespace baton::sync
