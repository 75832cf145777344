// linux-dmabuf-v1 on the fuzzer's server, which has no DRM device: the global
// as wlroots offers it for a card without a render node (libdrm's lookup of
// that card is answered by this program), accepting XRGB8888 and ARGB8888
// (linear or implicit modifier). Clients send memfds as planes.
// What this covers is the parsing and checking of params (plane indices,
// offsets, strides, sizes, flags) and baton's handling of dma-buf buffers it
// cannot read or fence; importing real dma-bufs needs the guest (tests/vm/).
#pragma once

struct wl_display;
struct wlr_linux_dmabuf_v1;

namespace baton::test {

/// The global, owned by `display` (freed with it); null on failure.
wlr_linux_dmabuf_v1* offer_fake_linux_dmabuf(wl_display* display);

}  // namespace baton::test
