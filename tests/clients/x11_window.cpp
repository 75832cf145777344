// A plain X11 client for Xwayland tests: one window of a solid colour, with
// a title and WM_CLASS, optionally override-redirect (like a menu) at a
// given root position, optionally asking for fullscreen (like a game).
// It prints "mapped" once the server has mapped it and then waits to be
// killed, answering expose events.
//
//   baton-x11-window [--override-redirect] [--fullscreen] [--x N] [--y N]
//                    [--width N] [--height N] [--colour RRGGBB]
//                    [--title T] [--class C] [--animate]
//
// --animate repaints the window with a new colour about every 8 ms, like a
// game rendering as fast as it can.
#include <poll.h>
#include <xcb/xcb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

xcb_atom_t atom(xcb_connection_t* c, const char* name) {
  auto cookie = xcb_intern_atom(c, 0, static_cast<uint16_t>(std::strlen(name)), name);
  xcb_intern_atom_reply_t* reply = xcb_intern_atom_reply(c, cookie, nullptr);
  xcb_atom_t result = reply != nullptr ? reply->atom : XCB_ATOM_NONE;
  std::free(reply);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  bool override_redirect = false;
  bool fullscreen = false;
  bool animate = false;
  int x = 0, y = 0, width = 200, height = 150;
  uint32_t colour = 0xff0000;
  std::string title = "baton-x11-window";
  std::string wm_class = "BatonX11Window";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--override-redirect")
      override_redirect = true;
    else if (arg == "--fullscreen")
      fullscreen = true;
    else if (arg == "--animate")
      animate = true;
    else if (arg == "--x")
      x = std::atoi(next());
    else if (arg == "--y")
      y = std::atoi(next());
    else if (arg == "--width")
      width = std::atoi(next());
    else if (arg == "--height")
      height = std::atoi(next());
    else if (arg == "--colour")
      colour = static_cast<uint32_t>(std::strtoul(next(), nullptr, 16));
    else if (arg == "--title")
      title = next();
    else if (arg == "--class")
      wm_class = next();
    else {
      std::fprintf(stderr, "baton-x11-window: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }

  xcb_connection_t* c = xcb_connect(nullptr, nullptr);
  if (xcb_connection_has_error(c)) {
    std::fprintf(stderr, "baton-x11-window: cannot connect to DISPLAY\n");
    return 1;
  }
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
  xcb_window_t window = xcb_generate_id(c);
  const uint32_t values[] = {colour, override_redirect ? 1u : 0u,
                             XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY};
  xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, static_cast<int16_t>(x),
                    static_cast<int16_t>(y), static_cast<uint16_t>(width),
                    static_cast<uint16_t>(height), 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                    screen->root_visual,
                    XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
  xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                      static_cast<uint32_t>(title.size()), title.data());
  // WM_CLASS is "instance\0class\0".
  std::string class_prop = wm_class + '\0' + wm_class + '\0';
  xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8,
                      static_cast<uint32_t>(class_prop.size()), class_prop.data());
  xcb_atom_t state = atom(c, "_NET_WM_STATE");
  xcb_atom_t full = atom(c, "_NET_WM_STATE_FULLSCREEN");
  if (fullscreen)
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, state, XCB_ATOM_ATOM, 32, 1, &full);
  xcb_map_window(c, window);
  xcb_flush(c);

  bool announced = false;
  uint32_t frame = 0;
  pollfd fd{xcb_get_file_descriptor(c), POLLIN, 0};
  while (!xcb_connection_has_error(c)) {
    poll(&fd, 1, animate ? 8 : -1);
    while (xcb_generic_event_t* event = xcb_poll_for_event(c)) {
      if ((event->response_type & 0x7f) == XCB_MAP_NOTIFY && !announced) {
        // EWMH: a mapped window asks the window manager for a state change
        // with a client message to the root (as SDL and Wine do).
        if (fullscreen) {
          xcb_client_message_event_t message{};
          message.response_type = XCB_CLIENT_MESSAGE;
          message.format = 32;
          message.window = window;
          message.type = state;
          message.data.data32[0] = 1;  // _NET_WM_STATE_ADD
          message.data.data32[1] = full;
          message.data.data32[3] = 1;  // source: application
          xcb_send_event(c, 0, screen->root,
                         XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
                         reinterpret_cast<const char*>(&message));
          xcb_flush(c);
        }
        std::printf("mapped\n");
        std::fflush(stdout);
        announced = true;
      }
      std::free(event);
    }
    if (animate) {
      const uint32_t pixel = (colour & 0xffff00) | (++frame & 0xff);
      xcb_change_window_attributes(c, window, XCB_CW_BACK_PIXEL, &pixel);
      xcb_clear_area(c, 0, window, 0, 0, 0, 0);
      xcb_flush(c);
    }
  }
  xcb_disconnect(c);
  return 0;
}
