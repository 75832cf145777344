#!/usr/bin/env python3
# Writes seed inputs for the protocol fuzzer that capture the output into a
# buffer that fits, through wlr-screencopy (a frame, then a frame with
# damage) and through ext-image-copy-capture (a session on the output, a
# frame attached, damaged and captured), with output frames between so that
# the copies are made. Random inputs rarely get that far (the output bound,
# a pool big enough, a buffer of the offered size, stride and format), and
# past it lie the copy, the frame's events and the session's next frame;
# fuzz run 33's leak was on this road.
#
# The bytes follow seed_writer.py's encoding and the order in which baton
# offers its globals (wl_shm 0, zwlr_screencopy_manager_v1 24,
# ext_image_copy_capture_manager_v1 26,
# ext_output_image_capture_source_manager_v1 27, wl_output 54), and the
# fuzzer's 320x240 output with XRGB8888 offered for shm: a change to any
# moves them. `WAYLAND_DEBUG=server baton-fuzz-replay FILE` shows the
# frames' ready events.
#
# usage: capture_seeds.py OUT_DIR   (files named by their SHA-1, as libFuzzer names them)
import sys

from seed_writer import NEW, Seed, memfd_mib, obj, small, u16

XRGB8888 = [0, 0, 1]  # an int argument: wl_shm's format 1


def output_sized_buffer(s, pool_id):
    fd, size = memfd_mib()
    s.request(3, 0, NEW + fd + size)  # the pool: 1 MiB
    # A 320x240 XRGB8888 buffer at offset 0.
    s.request(pool_id, 0, NEW + small(0) + u16(320) + small(240) + u16(1280) + XRGB8888)


def let_frames_happen(s):
    for _ in range(2):
        s.settle(); s.frame(); s.settle()


def screencopy():
    s = Seed()
    s.bind(0); s.bind(54); s.bind(24)  # 3 wl_shm, 4 wl_output, 5 zwlr_screencopy_manager_v1
    s.request(5, 0, NEW + small(1) + obj())  # 6 frame of the output, with the cursor
    s.settle()  # buffer, buffer_done
    output_sized_buffer(s, 7)  # 7 pool, 8 buffer
    s.request(6, 0, obj())  # copy
    let_frames_happen(s)
    s.request(5, 0, NEW + small(0) + obj())  # 9 another frame
    s.settle()
    s.request(9, 2, obj())  # copy_with_damage: waits for the screen to change
    let_frames_happen(s)
    return s


def image_copy_capture():
    s = Seed()
    # 3 wl_shm, 4 wl_output, 5 the output source manager, 6 the capture manager
    s.bind(0); s.bind(54); s.bind(27); s.bind(26)
    s.request(5, 0, NEW + obj())  # 7 a capture source: the output
    s.request(6, 0, NEW + obj() + small(1))  # 8 a session on it, with the cursor painted
    s.settle()  # buffer_size, shm_format, done
    s.request(8, 0, NEW)  # 9 a frame
    output_sized_buffer(s, 10)  # 10 pool, 11 buffer
    s.request(9, 1, obj())  # attach_buffer
    s.request(9, 2, small(0) + small(0) + u16(320) + small(240))  # damage_buffer: all of it
    s.request(9, 3)  # capture
    let_frames_happen(s)
    s.request(9, 0)  # the frame is done with
    s.request(8, 0, NEW)  # 12 the session's next frame, into the same buffer
    s.request(12, 1, obj())
    s.request(12, 3)
    let_frames_happen(s)
    return s


screencopy().write(sys.argv[1])
image_copy_capture().write(sys.argv[1])
