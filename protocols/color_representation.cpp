#include "protocols/color_representation.hpp"

#include <array>
#include <optional>
#include <type_traits>
#include <utility>

#include "color-representation-v1-server-protocol.h"
#include "renderer/color_representation.hpp"
#include "util/listener.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

constexpr uint32_t kVersion = 1;

// What the manager advertises, and so what set_alpha_mode and
// set_coefficients_and_range accept: one table for both.
constexpr std::array kAlphaModes = {
    std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_ELECTRICAL,
              AlphaMode::premultiplied_electrical},
    std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_OPTICAL,
              AlphaMode::premultiplied_optical},
    std::pair{WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT, AlphaMode::straight},
};

struct CoefficientsAndRange {
  wp_color_representation_surface_v1_coefficients coefficients;
  wp_color_representation_surface_v1_range range;
  YcbcrCoefficients ours;
  QuantizationRange our_range;
};

constexpr std::array kCoefficientsAndRanges = {
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_IDENTITY,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL, YcbcrCoefficients::identity,
                         QuantizationRange::full},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL, YcbcrCoefficients::bt601,
                         QuantizationRange::full},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED, YcbcrCoefficients::bt601,
                         QuantizationRange::limited},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL, YcbcrCoefficients::bt709,
                         QuantizationRange::full},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED, YcbcrCoefficients::bt709,
                         QuantizationRange::limited},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL, YcbcrCoefficients::bt2020,
                         QuantizationRange::full},
    CoefficientsAndRange{WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020,
                         WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED,
                         YcbcrCoefficients::bt2020, QuantizationRange::limited},
};

const CoefficientsAndRange* find_pair(uint32_t coefficients, uint32_t range) {
  for (const CoefficientsAndRange& pair : kCoefficientsAndRanges)
    if (pair.coefficients == coefficients && pair.range == range) return &pair;
  return nullptr;
}

// Chroma locations type_0..type_5 are 1..6 on the wire; 0 is never one.
std::optional<ChromaLocation> chroma_location(uint32_t value) {
  if (value < WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0 ||
      value > WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_5)
    return std::nullopt;
  return static_cast<ChromaLocation>(value -
                                     WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0);
}

// The DRM format of a buffer, where the buffer says.
std::optional<uint32_t> format_of(wlr_buffer* buffer) {
  wlr_dmabuf_attributes dmabuf{};
  if (wlr_buffer_get_dmabuf(buffer, &dmabuf)) return dmabuf.format;
  wlr_shm_attributes shm{};
  if (wlr_buffer_get_shm(buffer, &shm)) return shm.format;
  void* data = nullptr;
  uint32_t format = 0;
  size_t stride = 0;
  if (wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format,
                                       &stride)) {
    wlr_buffer_end_data_ptr_access(buffer);
    return format;
  }
  return std::nullopt;
}

// Y'CbCr formats are those the renderer reads with a matrix by default.
bool is_ycbcr(uint32_t drm_format) {
  return default_color_representation(drm_format).coefficients != YcbcrCoefficients::identity;
}

// One surface's double-buffered state, as the client set it (wire values;
// alpha and coefficients were checked at the request, the chroma location
// is checked at the commit). wlroots copies it between the pending, cached
// and current states; only the current state knows its owner, which it
// keeps across copies and tells when a commit becomes current.
struct State {
  ColorRepresentationSurface* owner;
  bool alpha_set;
  bool coefficients_set;
  bool chroma_set;
  uint32_t alpha;
  uint32_t coefficients;
  uint32_t range;
  uint32_t chroma;

  [[nodiscard]] bool any() const { return alpha_set || coefficients_set || chroma_set; }
};
static_assert(std::is_trivially_copyable_v<State>);

void move_state(void* dst, void* src);

const wlr_surface_synced_impl kSyncedImpl = {
    .state_size = sizeof(State),
    .init_state = nullptr,  // wlroots zeroes it: nothing set, no owner
    .finish_state = nullptr,
    .move_state = move_state,
};

}  // namespace

class ColorRepresentationSurface {
 public:
  ColorRepresentationSurface(ColorRepresentationManager& manager, wlr_surface* surface)
      : manager_(manager), surface_(surface) {
    if (!wlr_surface_synced_init(&synced_, surface, &kSyncedImpl, &pending_, &current_)) {
      synced_.surface = nullptr;
      return;
    }
    current_.owner = this;
    contents_format_ = latest_contents_format();
    client_commit_.connect(&surface->events.client_commit, [this](void*) { check_commit(); });
    destroy_.connect(&surface->events.destroy, [this](void*) { surface_destroyed(); });
  }
  ~ColorRepresentationSurface() {
    if (resource_ != nullptr) wl_resource_set_user_data(resource_, nullptr);
    client_commit_.disconnect();
    destroy_.disconnect();
    if (synced_.surface != nullptr) wlr_surface_synced_finish(&synced_);
  }
  ColorRepresentationSurface(const ColorRepresentationSurface&) = delete;
  ColorRepresentationSurface& operator=(const ColorRepresentationSurface&) = delete;

  [[nodiscard]] bool initialised() const { return synced_.surface != nullptr; }
  [[nodiscard]] wl_resource* resource() const { return resource_; }
  void attach(wl_resource* resource) { resource_ = resource; }
  /// The object was destroyed: from the next commit on, nothing is set.
  void detach() {
    resource_ = nullptr;
    pending_ = State{};
  }

  void set_alpha_mode(uint32_t alpha) {
    pending_.alpha_set = true;
    pending_.alpha = alpha;
  }
  void set_coefficients_and_range(uint32_t coefficients, uint32_t range) {
    pending_.coefficients_set = true;
    pending_.coefficients = coefficients;
    pending_.range = range;
  }
  void set_chroma_location(uint32_t chroma) {
    pending_.chroma_set = true;
    pending_.chroma = chroma;
  }

  /// A commit became current (wlroots moved a state into current_, before
  /// it imports the buffer and before the commit signal).
  void applied() {
    // current.buffer is only set from a commit that attaches one (wlroots
    // clears it after every commit).
    wlr_buffer* buffer = surface_->current.buffer;
    if (buffer == nullptr) return;
    const std::optional<uint32_t> format = format_of(buffer);
    ColorRepresentation representation = default_color_representation(format.value_or(0));
    if (!current_.any()) {
      // Nothing set (never, or unset by destroy): a representation recorded
      // on this buffer by an earlier commit no longer holds.
      if (color_representation_of(buffer) != nullptr)
        set_color_representation(buffer, representation);
      return;
    }
    if (current_.alpha_set) {
      for (const auto& [wire, ours] : kAlphaModes)
        if (wire == current_.alpha) representation.alpha = ours;
    }
    if (current_.coefficients_set) {
      if (const CoefficientsAndRange* pair = find_pair(current_.coefficients, current_.range)) {
        representation.coefficients = pair->ours;
        representation.range = pair->our_range;
      }
    }
    if (current_.chroma_set) {
      if (auto location = chroma_location(current_.chroma))
        representation.chroma_location = *location;
    }
    representation.client_set = true;
    set_color_representation(buffer, representation);
  }

 private:
  // wl_surface.commit: the contents this commit leaves on the surface must
  // fit the representation it carries.
  void check_commit() {
    const wlr_surface_state& next = surface_->pending;
    if ((next.committed & WLR_SURFACE_STATE_BUFFER) != 0)
      contents_format_ = next.buffer != nullptr ? format_of(next.buffer) : std::nullopt;
    if (resource_ == nullptr || !contents_format_) return;
    const bool ycbcr = is_ycbcr(*contents_format_);
    auto reject = [this](const char* why) {
      wlr_surface_reject_pending(surface_, resource_,
                                 WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT,
                                 "%s (format 0x%08x)", why, *contents_format_);
    };
    if (pending_.coefficients_set) {
      const bool identity =
          pending_.coefficients == WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_IDENTITY;
      if (identity && ycbcr) return reject("identity coefficients on a Y'CbCr buffer");
      if (!identity && !ycbcr) return reject("Y'CbCr coefficients on an RGB buffer");
    }
    if (pending_.chroma_set) {
      if (!chroma_location(pending_.chroma))
        return reject("a chroma location outside the enum fits no buffer");
      if (!ycbcr) return reject("a chroma location on an RGB buffer");
    }
  }

  // The format of what the surface shows or will show when the object is
  // made: the newest held commit's buffer, else the current one's source.
  [[nodiscard]] std::optional<uint32_t> latest_contents_format() const {
    wlr_surface_state* cached = nullptr;
    wl_list_for_each_reverse(cached, &surface_->cached, cached_state_link) {
      if ((cached->committed & WLR_SURFACE_STATE_BUFFER) != 0)
        return cached->buffer != nullptr ? format_of(cached->buffer) : std::nullopt;
    }
    if (surface_->buffer != nullptr && surface_->buffer->source != nullptr)
      return format_of(surface_->buffer->source);
    return std::nullopt;
  }

  void surface_destroyed() {
    // The object stays with the client, inert, until it destroys it.
    manager_.surfaces_.erase(surface_);  // destroys this
  }

  ColorRepresentationManager& manager_;
  wlr_surface* surface_;
  wl_resource* resource_ = nullptr;  // the live wp_color_representation_surface_v1, if any
  wlr_surface_synced synced_{};
  State pending_{};
  State current_{};
  // The format of the surface's contents after its latest commit (none: no
  // buffer, or one whose format baton cannot tell).
  std::optional<uint32_t> contents_format_;
  Listener<void> client_commit_;
  Listener<void> destroy_;
};

namespace {

void move_state(void* dst, void* src) {
  auto* to = static_cast<State*>(dst);
  ColorRepresentationSurface* owner = to->owner;
  *to = *static_cast<const State*>(src);
  to->owner = owner;
  if (owner != nullptr) owner->applied();
}

ColorRepresentationManager* manager_of(wl_resource* resource) {
  return static_cast<ColorRepresentationManager*>(wl_resource_get_user_data(resource));
}

// An inert object (its wl_surface is gone) answers every request but
// destroy with the inert error.
ColorRepresentationSurface* live_surface(wl_resource* resource) {
  auto* surface = static_cast<ColorRepresentationSurface*>(wl_resource_get_user_data(resource));
  if (surface == nullptr)
    wl_resource_post_error(resource, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_INERT,
                           "the wl_surface has been destroyed");
  return surface;
}

void destroy_resource(wl_client*, wl_resource* resource) { wl_resource_destroy(resource); }

const struct wp_color_representation_surface_v1_interface kSurfaceImpl = {
    .destroy = destroy_resource,
    .set_alpha_mode =
        [](wl_client*, wl_resource* resource, uint32_t alpha) {
          ColorRepresentationSurface* surface = live_surface(resource);
          if (surface == nullptr) return;
          for (const auto& [wire, ours] : kAlphaModes) {
            if (wire != alpha) continue;
            surface->set_alpha_mode(alpha);
            return;
          }
          wl_resource_post_error(resource, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_ALPHA_MODE,
                                 "alpha mode %u is not supported", alpha);
        },
    .set_coefficients_and_range =
        [](wl_client*, wl_resource* resource, uint32_t coefficients, uint32_t range) {
          ColorRepresentationSurface* surface = live_surface(resource);
          if (surface == nullptr) return;
          if (find_pair(coefficients, range) == nullptr) {
            wl_resource_post_error(resource, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_COEFFICIENTS,
                                   "coefficients %u with range %u are not supported", coefficients,
                                   range);
            return;
          }
          surface->set_coefficients_and_range(coefficients, range);
        },
    .set_chroma_location =
        [](wl_client*, wl_resource* resource, uint32_t chroma) {
          if (ColorRepresentationSurface* surface = live_surface(resource))
            surface->set_chroma_location(chroma);
        },
};

void surface_resource_destroyed(wl_resource* resource) {
  auto* surface = static_cast<ColorRepresentationSurface*>(wl_resource_get_user_data(resource));
  if (surface != nullptr) surface->detach();
}

const struct wp_color_representation_manager_v1_interface kManagerImpl = {
    .destroy = destroy_resource,
    .get_surface =
        [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* surface) {
          manager_of(manager)->get_surface(manager, id, surface);
        },
};

void bind_manager(wl_client* client, void* data, uint32_t version, uint32_t id) {
  wl_resource* resource = wl_resource_create(client, &wp_color_representation_manager_v1_interface,
                                             static_cast<int>(version), id);
  if (resource == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  wl_resource_set_implementation(resource, &kManagerImpl, data, nullptr);
  for (const auto& [wire, ours] : kAlphaModes)
    wp_color_representation_manager_v1_send_supported_alpha_mode(resource, wire);
  for (const CoefficientsAndRange& pair : kCoefficientsAndRanges)
    wp_color_representation_manager_v1_send_supported_coefficients_and_ranges(
        resource, pair.coefficients, pair.range);
  wp_color_representation_manager_v1_send_done(resource);
}

}  // namespace

ColorRepresentationManager::ColorRepresentationManager(wl_display* display) {
  global_ = wl_global_create(display, &wp_color_representation_manager_v1_interface, kVersion, this,
                             bind_manager);
  if (global_ == nullptr)
    LOG_ERROR("color-representation: wl_global_create failed; the global is off");
}

ColorRepresentationManager::~ColorRepresentationManager() {
  surfaces_.clear();
  if (global_ != nullptr) wl_global_destroy(global_);
}

void ColorRepresentationManager::get_surface(wl_resource* manager, uint32_t id,
                                             wl_resource* surface_resource) {
  wlr_surface* surface = wlr_surface_from_resource(surface_resource);
  auto found = surfaces_.find(surface);
  if (found != surfaces_.end() && found->second->resource() != nullptr) {
    wl_resource_post_error(manager, WP_COLOR_REPRESENTATION_MANAGER_V1_ERROR_SURFACE_EXISTS,
                           "the wl_surface already has a wp_color_representation_surface_v1");
    return;
  }
  wl_resource* resource = wl_resource_create(wl_resource_get_client(manager),
                                             &wp_color_representation_surface_v1_interface,
                                             wl_resource_get_version(manager), id);
  if (resource == nullptr) {
    wl_resource_post_no_memory(manager);
    return;
  }
  if (found == surfaces_.end()) {
    auto state = std::make_unique<ColorRepresentationSurface>(*this, surface);
    if (!state->initialised()) {
      wl_resource_set_implementation(resource, &kSurfaceImpl, nullptr, nullptr);
      wl_resource_post_no_memory(manager);
      return;
    }
    found = surfaces_.emplace(surface, std::move(state)).first;
  }
  ColorRepresentationSurface* state = found->second.get();
  wl_resource_set_implementation(resource, &kSurfaceImpl, state, surface_resource_destroyed);
  state->attach(resource);
}

}  // namespace baton
