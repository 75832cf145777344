#!/usr/bin/env python3
# Writes two seed inputs for the protocol fuzzer that start a real drag: a
# client maps a 64x64 window, the pointer presses on it (or a finger goes
# down on it), and the client starts a drag with a data source from that
# press. Random inputs rarely get that far (a configure acked with its
# serial, a buffer that fits, a press on the window, start_drag with the
# press's serial), so the fuzzer starts from here to reach the drag's grab,
# motion, drop and cancel paths.
#
# The bytes follow seed_writer.py's encoding and the order in which baton
# offers its globals (wl_shm 0, wl_compositor 1, wl_data_device_manager 6,
# xdg_wm_base 7, wl_seat 14): a change to either moves them. Check that a
# seed's drag starts with gdb's `break wlr_seat_start_pointer_drag` (or
# _touch_drag).
#
# usage: drag_seeds.py OUT_DIR   (files named by their SHA-1, as libFuzzer names them)
import sys

from seed_writer import NEW, NULL, Seed, obj, serial, small, u16


def seed(touch):
    s = Seed()
    s.bind(0); s.bind(1); s.bind(7); s.bind(14); s.bind(6)  # 3 shm, 4 compositor, 5 xdg_wm_base, 6 seat, 7 ddm
    s.request(4, 0, NEW)  # 8 wl_surface
    s.request(5, 2, NEW + obj())  # 9 xdg_surface
    s.request(9, 1, NEW)  # 10 xdg_toplevel
    s.request(8, 6)  # commit: baton configures
    s.settle()
    s.request(9, 4, serial(0))  # ack_configure
    s.request(3, 0, NEW + [0, 2, 3] + [0, 5])  # 11 pool: a 16384-byte memfd, that size
    s.request(11, 0, NEW + small(0) + small(64) + small(64) + u16(256) + [0, 0, 0])  # 12 buffer
    s.request(8, 1, obj() + small(0) + small(0))  # attach
    s.request(8, 6)  # commit: mapped in the middle of the 320x240 output
    s.settle(); s.frame(); s.settle()
    if touch:
        s.request(6, 2, NEW)  # 13 wl_touch: a client without one gets no touch
        s.settle()
        s.hand(3, 160, 120)  # finger 0 down on the window
        below = 0  # its serial is the latest
    else:
        s.hand(0, 160, 120)  # the pointer over the window
        s.hand(1, 0, 0)  # BTN_LEFT down
        below = 1  # the keyboard's enter came after the press
    s.settle()
    source = 14 if touch else 13
    s.request(7, 0, NEW)  # wl_data_source
    s.request(source, 0, [0, 6, 2])  # offer text/plain;charset=utf-8
    s.request(7, 1, NEW + obj())  # wl_data_device on the seat
    s.request(source + 1, 0, obj() + obj() + NULL + serial(below))  # start_drag, no icon
    s.settle()
    s.hand(4 if touch else 0, 300, 200)  # the finger or the pointer moves off the window
    s.settle(); s.frame(); s.settle()
    return s


for touch in (False, True):
    seed(touch).write(sys.argv[1])
