// DRM leases (wp_drm_lease_device_v1): outputs that are not part of the
// desktop (a VR headset's connector, which the kernel marks non-desktop, or
// one the config marks `leasable`) are offered to clients, which may lease
// them and drive them with their own KMS commits. baton never puts such an
// output in the layout. A lease is granted to the first client that asks
// for a connector still free; when it ends, the backend brings the output
// back and it is offered again. Only on the DRM backend; privileged.
#pragma once

#include <memory>

#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class DrmLeases {
 public:
  /// Null when the backend has no DRM device (headless, nested).
  static std::unique_ptr<DrmLeases> create(wl_display* display, wlr_backend* backend);
  explicit DrmLeases(wlr_drm_lease_v1_manager* manager);
  DrmLeases(const DrmLeases&) = delete;
  DrmLeases& operator=(const DrmLeases&) = delete;

  /// Offers `output` for lease; false when it cannot be (not a DRM output).
  bool offer(wlr_output* output);

 private:
  wlr_drm_lease_v1_manager* manager_;
  Listener<wlr_drm_lease_request_v1> request_;
};

}  // namespace baton
