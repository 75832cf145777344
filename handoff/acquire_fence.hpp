// The acquire fence of the commit a client buffer was latched with, kept on
// that buffer (a wlr_addon) for as long as it lives. A directly scanned-out
// buffer hands it to KMS as the plane's IN_FENCE_FD: with the readiness gate
// it has signalled before the commit applied, but with the gate off (wlroots'
// latching) the scanout's own wait is all that keeps an unfinished buffer
// off the screen, and KMS ignores a dma-buf's implicit fences once a plane
// carries an in-fence.
#pragma once

#include <optional>

#include "sync/sync_file.hpp"
#include "util/result.hpp"

struct wlr_buffer;

namespace baton {

/// Keeps `fence` on `buffer`, replacing what an earlier commit left there.
void attach_acquire_fence(wlr_buffer* buffer, sync::SyncFile fence);

/// A duplicate of the fence kept on `buffer`; nothing when there is none,
/// an Error when there is one and it could not be duplicated.
[[nodiscard]] Result<std::optional<sync::SyncFile>> acquire_fence_of(wlr_buffer* buffer);

}  // namespace baton
