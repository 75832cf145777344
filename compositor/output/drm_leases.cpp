#include "compositor/output/drm_leases.hpp"

#include <memory>

#include "util/log.hpp"

namespace baton {

std::unique_ptr<DrmLeases> DrmLeases::create(wl_display* display, wlr_backend* backend) {
  wlr_drm_lease_v1_manager* manager = wlr_drm_lease_v1_manager_create(display, backend);
  if (manager == nullptr) return nullptr;
  return std::make_unique<DrmLeases>(manager);
}

DrmLeases::DrmLeases(wlr_drm_lease_v1_manager* manager) : manager_(manager) {
  request_.connect(&manager->events.request, [](wlr_drm_lease_request_v1* request) {
    // A connector it names was withdrawn (leased to another client) since.
    if (request->invalid) {
      LOG_INFO("drm-lease: a lease request was refused: a connector it names is taken");
      wlr_drm_lease_request_v1_reject(request);
      return;
    }
    // On failure wlroots has told the client (finished).
    if (wlr_drm_lease_request_v1_grant(request) == nullptr) {
      LOG_INFO("drm-lease: the kernel refused a lease");
      return;
    }
    // tests grep this line: tests/vm/lease_test.sh
    LOG_INFO("drm-lease: leased %zu connector(s) to a client", request->n_connectors);
  });
}

bool DrmLeases::offer(wlr_output* output) {
  if (!wlr_drm_lease_v1_manager_offer_output(manager_, output)) return false;
  // tests grep this line: tests/vm/lease_test.sh
  LOG_INFO("drm-lease: %s is offered for lease, not used as a desktop output", output->name);
  return true;
}

}  // namespace baton
