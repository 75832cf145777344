#!/usr/bin/env python3
# Writes two seed inputs for the protocol fuzzer that start a real drag: a
# client maps a 64x64 window, the pointer presses on it (or a finger goes
# down on it), and the client starts a drag with a data source from that
# press. Random inputs rarely get that far (a configure acked with its
# serial, a buffer that fits, a press on the window, start_drag with the
# press's serial), so the fuzzer starts from here to reach the drag's grab,
# motion, drop and cancel paths.
#
# The bytes follow the decoder in session.cpp and arguments.cpp (action
# bytes, object picks, argument modes) and the order in which baton offers
# its globals (wl_shm 0, wl_compositor 1, wl_data_device_manager 6,
# xdg_wm_base 7, wl_seat 14): a change to either moves them. Check a seed
# with `BATON_FUZZ_TRACE=1 baton-fuzz-replay FILE`, and that its drag starts
# with gdb's `break wlr_seat_start_pointer_drag` (or _touch_drag).
#
# usage: drag_seeds.py OUT_DIR   (files named by their SHA-1, as libFuzzer names them)
import hashlib
import pathlib
import sys

REQUEST, SETTLE, FRAME, INPUT = 6, 1, 2, 5  # action bytes (% 12)
NEW = [2]  # a new_id argument: the next free id
NULL = [0]  # an object argument: null


def obj(index=0):
    return [3, index]  # an object argument: the index-th live one of its interface


def small(value):
    return [0, 8, value]  # an int argument taken from one byte


def u16(value):
    return [0, 1, value & 0xFF, value >> 8]  # an int argument taken from two bytes


def serial(below):
    return [0, 7, below]  # an int argument: the server's latest serial minus `below`


def seed(touch):
    out = []

    def bind(index):
        out.extend([0, index, 0x14])  # the global's top version

    def request(object_id, opcode, args=()):
        # The object by its place in the client's list (ids 1, 2, 3... at 0,
        # 1, 2... while none was destroyed), a live target, a real opcode.
        out.extend([REQUEST, (object_id - 1) << 1, 2, opcode, 1, *args])

    def hand(what, x, y):  # session.cpp input(): x and y are offset by 20
        out.extend([INPUT, what, (x + 20) & 0xFF, (x + 20) >> 8, (y + 20) & 0xFF, (y + 20) >> 8])

    bind(0); bind(1); bind(7); bind(14); bind(6)  # 3 shm, 4 compositor, 5 xdg_wm_base, 6 seat, 7 ddm
    request(4, 0, NEW)  # 8 wl_surface
    request(5, 2, NEW + obj())  # 9 xdg_surface
    request(9, 1, NEW)  # 10 xdg_toplevel
    request(8, 6)  # commit: baton configures
    out.append(SETTLE)
    request(9, 4, serial(0))  # ack_configure
    request(3, 0, NEW + [0, 2, 3] + [0, 5])  # 11 pool: a 16384-byte memfd, that size
    request(11, 0, NEW + small(0) + small(64) + small(64) + u16(256) + [0, 0, 0])  # 12 buffer
    request(8, 1, obj() + small(0) + small(0))  # attach
    request(8, 6)  # commit: mapped in the middle of the 320x240 output
    out.extend([SETTLE, FRAME, 0, SETTLE])
    if touch:
        request(6, 2, NEW)  # 13 wl_touch: a client without one gets no touch
        out.append(SETTLE)
        hand(3, 160, 120)  # finger 0 down on the window
        below = 0  # its serial is the latest
    else:
        hand(0, 160, 120)  # the pointer over the window
        hand(1, 0, 0)  # BTN_LEFT down
        below = 1  # the keyboard's enter came after the press
    out.append(SETTLE)
    source = 14 if touch else 13
    request(7, 0, NEW)  # wl_data_source
    request(source, 0, [0, 6, 2])  # offer text/plain;charset=utf-8
    request(7, 1, NEW + obj())  # wl_data_device on the seat
    request(source + 1, 0, obj() + obj() + NULL + serial(below))  # start_drag, no icon
    out.append(SETTLE)
    hand(4 if touch else 0, 300, 200)  # the finger or the pointer moves off the window
    out.extend([SETTLE, FRAME, 0, SETTLE])
    return bytes(out)


def main():
    directory = pathlib.Path(sys.argv[1])
    for touch in (False, True):
        data = seed(touch)
        path = directory / hashlib.sha1(data).hexdigest()
        path.write_bytes(data)
        print(path)


main()
