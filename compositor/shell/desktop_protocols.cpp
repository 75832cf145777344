#include "compositor/shell/desktop_protocols.hpp"

#include <array>

#include "compositor/config/apply.hpp"
#include "compositor/config/layout_reach.hpp"
#include "compositor/desktop/decorations.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/shell/activation.hpp"
#include "compositor/shell/sandbox.hpp"
#include "compositor/shell/workspace_list.hpp"
#include "util/log.hpp"

namespace baton {

DesktopProtocols::DesktopProtocols(wl_display* display, wl_event_loop* loop, wlr_seat* seat,
                                   const Config& config, Outputs& outputs, Windows& windows)
    : seat_(seat),
      outputs_(outputs),
      windows_(windows),
      output_manager_(wlr_output_manager_v1_create(display)),
      idle_notifier_(wlr_idle_notifier_v1_create(display)),
      shortcuts_inhibit_(wlr_keyboard_shortcuts_inhibit_v1_create(display)) {
  wlr_primary_selection_v1_device_manager_create(display);
  set_primary_.connect(&seat->events.request_set_primary_selection,
                       [seat](wlr_seat_request_set_primary_selection_event* event) {
                         wlr_seat_set_primary_selection(seat, event->source, event->serial);
                       });
  wlr_data_control_manager_v1_create(display);
  wlr_ext_data_control_manager_v1_create(display, 1);
  wlr_screencopy_manager_v1_create(display);
  wlr_export_dmabuf_manager_v1_create(display);
  // ext-image-copy-capture, with outputs as the capture sources.
  wlr_ext_image_copy_capture_manager_v1_create(display, 1);
  wlr_ext_output_image_capture_source_manager_v1_create(display, 1);
  wlr_alpha_modifier_v1_create(display);

  output_apply_.connect(&output_manager_->events.apply, [this](wlr_output_configuration_v1* c) {
    apply_output_configuration(c, false);
  });
  output_test_.connect(&output_manager_->events.test, [this](wlr_output_configuration_v1* c) {
    apply_output_configuration(c, true);
  });
  layout_changed_ = outputs.layout_changed.connect([this] { outputs_changed(); });

  wlr_output_power_manager_v1* power = wlr_output_power_manager_v1_create(display);
  power_set_mode_.connect(
      &power->events.set_mode, [this](wlr_output_power_v1_set_mode_event* event) {
        wlr_output_state state;
        wlr_output_state_init(&state);
        wlr_output_state_set_enabled(&state, event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON);
        add_mode_if_none(event->output, state);
        if (!wlr_output_commit_state(event->output, &state))
          LOG_ERROR("output %s: power mode change failed", event->output->name);
        wlr_output_state_finish(&state);
        outputs_changed();
      });

  wlr_gamma_control_manager_v1* gamma = wlr_gamma_control_manager_v1_create(display);
  set_gamma_.connect(
      &gamma->events.set_gamma, [](wlr_gamma_control_manager_v1_set_gamma_event* event) {
        wlr_output_state state;
        wlr_output_state_init(&state);
        bool ok = event->control == nullptr || wlr_gamma_control_v1_apply(event->control, &state);
        ok = ok && wlr_output_commit_state(event->output, &state);
        if (!ok && event->control != nullptr)
          wlr_gamma_control_v1_send_failed_and_destroy(event->control);
        wlr_output_state_finish(&state);
      });

  new_shortcuts_inhibitor_.connect(&shortcuts_inhibit_->events.new_inhibitor,
                                   [](wlr_keyboard_shortcuts_inhibitor_v1* inhibitor) {
                                     wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
                                   });

  wlr_idle_inhibit_manager_v1* idle_inhibit = wlr_idle_inhibit_v1_create(display);
  new_idle_inhibitor_.connect(
      &idle_inhibit->events.new_inhibitor, [this](wlr_idle_inhibitor_v1* inhibitor) {
        ++idle_inhibitors_;
        wlr_idle_notifier_v1_set_inhibited(idle_notifier_, true);
        auto listener = std::make_unique<Listener<void>>();
        Listener<void>* raw = listener.get();
        listener->connect(&inhibitor->events.destroy, [this, raw](void*) {
          --idle_inhibitors_;
          wlr_idle_notifier_v1_set_inhibited(idle_notifier_, idle_inhibitors_ > 0);
          std::erase_if(inhibitor_destroys_, [raw](const auto& l) { return l.get() == raw; });
        });
        inhibitor_destroys_.push_back(std::move(listener));
      });

  activation_ = std::make_unique<Activation>(display, loop, config, windows);
  sandbox_ = std::make_unique<Sandbox>(display);
  workspace_list_ = std::make_unique<WorkspaceList>(display, outputs, windows);

  // A bell rung for a window that is not focused marks it urgent (its title
  // bar, task bars); a bell without a window has nothing to mark.
  wlr_xdg_system_bell_v1* bell = wlr_xdg_system_bell_v1_create(display, 1);
  bell_.connect(&bell->events.ring, [this](wlr_xdg_system_bell_v1_ring_event* event) {
    View* view = event->surface != nullptr ? windows_.view_for_surface(event->surface) : nullptr;
    if (view != nullptr && !view->activated()) view->set_urgent(true);
  });

  // Title bars show the icon; 24 px fits the title bar, 48 px sharper screens.
  wlr_xdg_toplevel_icon_manager_v1* icons = wlr_xdg_toplevel_icon_manager_v1_create(display, 1);
  std::array<int, 2> icon_sizes{24, 48};
  wlr_xdg_toplevel_icon_manager_v1_set_sizes(icons, icon_sizes.data(), icon_sizes.size());
  set_icon_.connect(&icons->events.set_icon,
                    [this](wlr_xdg_toplevel_icon_manager_v1_set_icon_event* event) {
                      if (View* view = windows_.view_for_surface(event->toplevel->base->surface))
                        view->set_icon(event->icon);
                    });

  // Dialogs are read where they matter: Windows::focus passes a parent's
  // focus to its modal dialog (View::modal_for); placement centres child
  // windows on their parent.
  wlr_xdg_wm_dialog_v1_create(display, 1);
  // xdg-foreign (v1: GTK 3; v2: GTK 4, Qt 6): another client's window, a
  // portal's file chooser for one, is parented to an app's window by the
  // handle the app exported. wlroots sets the parent, so the chooser is
  // placed and focused as any child window (above). Not privileged: a
  // handle names one window its owner chose to share.
  wlr_xdg_foreign_registry* foreign = wlr_xdg_foreign_registry_create(display);
  wlr_xdg_foreign_v1_create(display, foreign);
  wlr_xdg_foreign_v2_create(display, foreign);

  wlr_xdg_decoration_manager_v1* decorations = wlr_xdg_decoration_manager_v1_create(display);
  new_decoration_.connect(
      &decorations->events.new_toplevel_decoration,
      [this](wlr_xdg_toplevel_decoration_v1* decoration) {
        decorations_.push_back(
            std::make_unique<XdgDecoration>(windows_, decoration, [this](XdgDecoration& gone) {
              std::erase_if(decorations_, [&](const auto& d) { return d.get() == &gone; });
            }));
      });
}

DesktopProtocols::~DesktopProtocols() = default;

void DesktopProtocols::notify_activity() {
  wlr_idle_notifier_v1_notify_activity(idle_notifier_, seat_);
}

bool DesktopProtocols::shortcuts_inhibited() const {
  wlr_surface* focused = seat_->keyboard_state.focused_surface;
  if (focused == nullptr) return false;
  wlr_keyboard_shortcuts_inhibitor_v1* inhibitor;
  wl_list_for_each(inhibitor, &shortcuts_inhibit_->inhibitors, link) {
    if (inhibitor->surface == focused && inhibitor->active) return true;
  }
  return false;
}

void DesktopProtocols::outputs_changed() {
  wlr_output_configuration_v1* config = wlr_output_configuration_v1_create();
  for (Output* output : outputs_.all()) {
    wlr_output_configuration_head_v1* head =
        wlr_output_configuration_head_v1_create(config, output->wlr());
    wlr_box box{};
    wlr_output_layout_get_box(outputs_.layout(), output->wlr(), &box);
    head->state.x = box.x;
    head->state.y = box.y;
  }
  wlr_output_manager_v1_set_configuration(output_manager_, config);
}

void DesktopProtocols::apply_output_configuration(wlr_output_configuration_v1* config,
                                                  bool test_only) {
  bool ok = true;
  wlr_output_configuration_head_v1* head;
  // A position past the layout's reach fails the whole configuration, before
  // any output changes (every commit below is skipped once ok is false).
  wl_list_for_each(head, &config->heads, link) {
    if (head->state.enabled && !within_layout_reach(head->state.x, head->state.y)) {
      LOG_ERROR("output configuration refused: %s at %d,%d is more than %d pixels out",
                head->state.output->name, head->state.x, head->state.y, kLayoutReach);
      ok = false;
    }
  }
  wl_list_for_each(head, &config->heads, link) {
    wlr_output_state state;
    wlr_output_state_init(&state);
    wlr_output_head_v1_state_apply(&head->state, &state);
    add_mode_if_none(head->state.output, state);
    ok = ok && (test_only ? wlr_output_test_state(head->state.output, &state)
                          : wlr_output_commit_state(head->state.output, &state));
    wlr_output_state_finish(&state);
    // A disabled output keeps its layout entry: removing it would take its
    // scene output with it.
    if (ok && !test_only && head->state.enabled)
      wlr_output_layout_add(outputs_.layout(), head->state.output, head->state.x, head->state.y);
    if (ok && !test_only && !head->state.enabled)
      for (Output* output : outputs_.all())
        if (output->wlr() == head->state.output) outputs_.disabled.emit(*output);
  }
  if (ok)
    wlr_output_configuration_v1_send_succeeded(config);
  else
    wlr_output_configuration_v1_send_failed(config);
  wlr_output_configuration_v1_destroy(config);
  if (!test_only) outputs_.layout_changed.emit();
}

}  // namespace baton
