#!/usr/bin/python3
"""Shares baton's screen the way a browser does and checks what arrives.

Talks to org.freedesktop.portal.ScreenCast on the session bus (CreateSession,
SelectSources, Start, OpenPipeWireRemote), plays the PipeWire node it gets
through GStreamer's pipewiresrc on the portal's fd, then:
  1. counts the frames that arrive while the animating client draws;
  2. freezes that client (SIGSTOP): once the frames in flight are in, a
     still screen must give none (capture is damage-driven);
  3. asks baton for its own screenshot (SIGUSR1) and compares the latest
     frame with it, pixel by pixel.
Exits 0 when everything holds, 1 with the failing step otherwise.
"""
import argparse
import hashlib
import os
import signal
import struct
import sys
import time
import zlib

import dbus
import gi
from dbus.mainloop.glib import DBusGMainLoop

gi.require_version('Gst', '1.0')
from gi.repository import GLib, Gst  # noqa: E402

PORTAL = 'org.freedesktop.portal.Desktop'
PORTAL_PATH = '/org/freedesktop/portal/desktop'
SCREENCAST = 'org.freedesktop.portal.ScreenCast'
MONITOR = 1  # SelectSources' source type bit for whole outputs

# Where R, G and B sit in each 4-byte pixel of the raw formats PipeWire may
# offer for an output (wl_shm's little-endian XRGB8888 is GStreamer's BGRx).
CHANNELS = {
    'BGRx': (2, 1, 0), 'BGRA': (2, 1, 0), 'RGBx': (0, 1, 2), 'RGBA': (0, 1, 2),
    'xRGB': (1, 2, 3), 'ARGB': (1, 2, 3), 'xBGR': (3, 2, 1), 'ABGR': (3, 2, 1),
}


class Failure(Exception):
    pass


def log(message):
    print(f'screencast: {message}', flush=True)


def send(pid, sig, who):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        raise Failure(f'{who} (pid {pid}) has exited') from None


def wait_until(what, done, timeout, check=lambda: None):
    """Runs the GLib main loop until done() holds; fails naming `what` after `timeout` s."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not done():
        check()
        if time.monotonic() > deadline:
            raise Failure(f'{what}: nothing after {timeout} s')
        context.iteration(True)  # the 50 ms tick below keeps this from blocking for long


def spin(seconds, check=lambda: None):
    end = time.monotonic() + seconds
    wait_until('spin', lambda: time.monotonic() >= end, seconds + 5, check)


class Portal:
    def __init__(self, timeout):
        self.bus = dbus.SessionBus()
        self.portal = dbus.Interface(self.bus.get_object(PORTAL, PORTAL_PATH), SCREENCAST)
        self.timeout = timeout
        self.tokens = 0

    def request(self, step, method, *args, options=None):
        """Calls a portal method returning a Request and waits for its Response."""
        self.tokens += 1
        token = f'baton_test{self.tokens}'
        # The Request's path is known in advance: subscribe before calling so
        # a quick Response cannot be missed.
        sender = self.bus.get_unique_name()[1:].replace('.', '_')
        path = f'{PORTAL_PATH}/request/{sender}/{token}'
        answer = {}
        match = self.bus.add_signal_receiver(
            lambda code, results: answer.update(code=int(code), results=results),
            signal_name='Response', dbus_interface='org.freedesktop.portal.Request', path=path)
        options = dict(options or {}, handle_token=token)
        try:
            handle = method(*args, dbus.Dictionary(options, signature='sv'), timeout=self.timeout)
        except dbus.DBusException as error:
            raise Failure(f'{step}: the call failed: {error}') from None
        if handle != path:
            raise Failure(f'{step}: portal returned request {handle}, expected {path}')
        wait_until(f'{step}: waiting for the Response signal', lambda: answer, self.timeout)
        match.remove()
        if answer['code'] != 0:
            raise Failure(f'{step}: Response code {answer["code"]} (1 = cancelled, 2 = error), '
                          f'results {dict(answer["results"])}')
        log(f'{step}: ok')
        return answer['results']

    def share_monitor(self):
        """CreateSession, SelectSources(monitor), Start: (session, node id, stream properties)."""
        results = self.request('CreateSession', self.portal.CreateSession,
                               options={'session_handle_token': 'baton_test'})
        session = dbus.ObjectPath(results['session_handle'])
        self.request('SelectSources', self.portal.SelectSources, session,
                     options={'types': dbus.UInt32(MONITOR), 'multiple': False})
        results = self.request('Start', self.portal.Start, session, '')
        streams = results.get('streams', [])
        if len(streams) != 1:
            raise Failure(f'Start: expected one stream, got {streams}')
        node, properties = streams[0]
        return session, int(node), dict(properties)

    def open_remote(self, session):
        try:
            fd = self.portal.OpenPipeWireRemote(session, dbus.Dictionary({}, signature='sv'),
                                                timeout=self.timeout)
        except dbus.DBusException as error:
            raise Failure(f'OpenPipeWireRemote: the call failed: {error}') from None
        log('OpenPipeWireRemote: ok')
        return fd.take()


class Stream:
    """pipewiresrc on the portal's fd into an appsink; keeps the latest frame."""

    def __init__(self, fd, node):
        self.node = node
        try:
            # always-copy: each PipeWire buffer goes back to xdg-desktop-portal-
            # wlr as soon as pipewiresrc has copied it. Held until this script's
            # thread takes it, a busy guest let the portal run out of buffers
            # when the client froze (its log: "out of buffers"), and the last
            # picture never reached the stream. pipewiresrc copies on its own
            # streaming thread, so the unbounded queue gives this script's
            # callback (a copy and a hash of each frame, slow under TCG) a
            # thread of its own: without it, PipeWire buffers waited behind
            # the callback and xdg-desktop-portal-wlr 0.7, which retries a
            # starved capture only at the next damage, lost the frame the
            # client froze on. No last-sample: the sink keeps no buffer either.
            self.pipeline = Gst.parse_launch(
                f'pipewiresrc fd={fd} path={node} always-copy=true ! video/x-raw ! '
                'queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! '
                'appsink name=sink emit-signals=true sync=false enable-last-sample=false')
        except GLib.Error as error:
            raise Failure(f'stream: cannot build the pipeline: {error.message}') from None
        self.pipeline.get_by_name('sink').connect('new-sample', self._sample)
        # No clock: pipewiresrc, a live source, would otherwise hold each
        # buffer until its timestamp comes due, counted from the first one's;
        # an incomplete first frame stamped 0 (xdpw queues one when the stream
        # pauses mid-capture) then holds every later frame for hours.
        self.pipeline.use_clock(None)
        self.frames = 0
        self.corrupted = 0
        self.latest = None  # (format, width, height, bytes)
        self.digests = set()
        self.repeats = 0

    def _sample(self, sink):
        # Runs on GStreamer's streaming thread; only plain assignments here.
        sample = sink.emit('pull-sample')
        caps = sample.get_caps().get_structure(0)
        buffer = sample.get_buffer()
        if buffer.has_flags(Gst.BufferFlags.CORRUPTED):  # a capture cut short
            self.corrupted += 1
            return Gst.FlowReturn.OK
        data = buffer.extract_dup(0, buffer.get_size())
        self.latest = (caps.get_value('format'), caps.get_value('width'),
                       caps.get_value('height'), data)
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if digest in self.digests:
            self.repeats += 1  # a picture the stream already gave
        self.digests.add(digest)
        self.frames += 1
        return Gst.FlowReturn.OK

    def start(self):
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            raise Failure(f'stream: pipewiresrc could not stream node {self.node} '
                          '(did the session manager link it?)')

    def check(self):
        """Raises on an error the pipeline posted (e.g. pipewiresrc lost its node)."""
        message = self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if message:
            error, detail = message.parse_error()
            raise Failure(f'stream: GStreamer error: {error.message} ({detail})')

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


def read_png(path):
    """An 8-bit RGB(A) non-interlaced PNG (what baton writes) as (width, height, [R, G, B])."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise Failure(f'{path} is not a PNG')
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + length
    if depth != 8 or colour not in (2, 6) or interlace:
        raise Failure(f'{path}: unsupported PNG (depth {depth}, colour type {colour})')
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(b''.join(idat))
    stride = width * bpp
    prior = bytearray(stride)
    pixels = bytearray()
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xff
        elif kind == 2:  # Up
            row = bytearray((a + b) & 0xff for a, b in zip(row, prior))
        elif kind == 3:  # Average
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prior[i]) >> 1)) & 0xff
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prior[i]
                c = prior[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        pixels += row
        prior = row
    rgb = [bytes(pixels[c::bpp]) for c in range(3)]
    return width, height, rgb


def write_png(path, width, height, rgb):
    """Writes R, G, B planes as an 8-bit RGB PNG (to look at the streamed frame)."""
    rows = b''.join(b'\0' + bytes(v for i in range(y * width, (y + 1) * width)
                                   for v in (rgb[0][i], rgb[1][i], rgb[2][i]))
                    for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body))

    with open(path, 'wb') as out:
        out.write(b'\x89PNG\r\n\x1a\n')
        out.write(chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)))
        out.write(chunk(b'IDAT', zlib.compress(rows)))
        out.write(chunk(b'IEND', b''))


def frame_channels(frame):
    """The latest frame as (width, height, [R plane, G plane, B plane])."""
    fmt, width, height, data = frame
    if fmt not in CHANNELS:
        raise Failure(f'stream: unexpected pixel format {fmt}')
    stride = len(data) // height
    if stride < width * 4:
        raise Failure(f'stream: {len(data)} bytes cannot hold {width}x{height} {fmt}')
    if stride != width * 4:  # drop row padding
        data = b''.join(data[y * stride:y * stride + width * 4] for y in range(height))
    return width, height, [data[offset::4] for offset in CHANNELS[fmt]]


def compare(shot, frame):
    """Pixel-by-pixel comparison; returns (max channel difference, pixels differing)."""
    max_diff, differing = 0, set()
    for channel in range(3):
        a, b = shot[channel], frame[channel]
        if a == b:
            continue
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                differing.add(i)
                max_diff = max(max_diff, abs(x - y))
    return max_diff, len(differing)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--baton-pid', type=int, required=True)
    parser.add_argument('--screenshot', required=True, help="where baton writes its PNG on SIGUSR1")
    parser.add_argument('--animator-pid', type=int, required=True,
                        help='the client that animates (frozen with SIGSTOP for the comparison)')
    parser.add_argument('--size', default='640x480')
    parser.add_argument('--min-frames', type=int, default=10)
    parser.add_argument('--count-seconds', type=float, default=3.0)
    parser.add_argument('--still-seconds', type=float, default=2.0,
                        help='how long a still screen must give no frame')
    # Exact by default: xdpw hands baton's XRGB8888 shm bytes to PipeWire as
    # BGRx (the same bytes) and the screenshot reads the same output buffer, so
    # no conversion happens on either side.
    parser.add_argument('--tolerance', type=int, default=0,
                        help='largest channel difference accepted')
    parser.add_argument('--timeout', type=float, default=15.0, help='seconds per step')
    parser.add_argument('--save-frame', help='writes the compared stream frame here (PNG)')
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split('x'))

    DBusGMainLoop(set_as_default=True)
    Gst.init(None)
    GLib.timeout_add(50, lambda: True)  # wakes wait_until's main loop iterations

    portal = Portal(args.timeout)
    session, node, properties = portal.share_monitor()
    size = tuple(int(v) for v in properties.get('size', ()))
    log(f'Start: PipeWire node {node}, stream size {size}')
    if size and size != (width, height):
        raise Failure(f'Start: stream size {size}, expected {width}x{height}')
    fd = portal.open_remote(session)

    stream = Stream(fd, node)
    stream.start()
    try:
        wait_until('stream: waiting for the first frame', lambda: stream.frames > 0,
                   args.timeout, stream.check)
        fmt, got_w, got_h, _ = stream.latest
        log(f'first frame: {got_w}x{got_h} {fmt} ({stream.corrupted} incomplete ones skipped)')
        if (got_w, got_h) != (width, height):
            raise Failure(f'stream: frame is {got_w}x{got_h}, expected {width}x{height}')

        # 1. The screen changes (the client animates): frames keep coming.
        frames, digests = stream.frames, len(stream.digests)
        spin(args.count_seconds, stream.check)
        frames, distinct = stream.frames - frames, len(stream.digests) - digests
        log(f'while the client animates: {frames} frames in {args.count_seconds:g} s, '
            f'{distinct} distinct pictures')
        if distinct < args.min_frames:
            raise Failure(f'stream: {distinct} distinct frames in {args.count_seconds:g} s, '
                          f'expected at least {args.min_frames}')

        # Freeze the screen, then take baton's screenshot and the latest frame
        # of the same still picture.
        send(args.animator_pid, signal.SIGSTOP, 'the animating client')
        # Frames already captured drain out: until none came for 1.5 s (a
        # busy guest delivers the client's last frame late), 15 s at most.
        quiet_since, seen = time.monotonic(), stream.frames
        drain_start, frozen_at = quiet_since, stream.frames
        while time.monotonic() - quiet_since < 1.5:
            if time.monotonic() - drain_start > 15:
                raise Failure(f'stream: {stream.frames - frozen_at} frames in the 15 s after the '
                              'client froze, never 1.5 s without one: not damage-driven')
            spin(0.1, stream.check)
            if stream.frames != seen:
                quiet_since, seen = time.monotonic(), stream.frames
        # 2. A still screen: no damage, so no frames (capture is damage-driven).
        # A frame repeating a picture already streamed is a capture without
        # damage. A new picture is the animation's last frame, late (a busy
        # guest can hold one past the quiet 1.5 s): the still time starts again.
        for attempt in range(4):
            seen, repeats, pictures = stream.frames, stream.repeats, len(stream.digests)
            spin(args.still_seconds, stream.check)
            still, repeated = stream.frames - seen, stream.repeats - repeats
            log(f'still screen: {still} frames in {args.still_seconds:g} s '
                f'({repeated} repeating a picture, {len(stream.digests) - pictures} new)')
            if repeated > 0:
                raise Failure(f'stream: {repeated} frames in {args.still_seconds:g} s of a still '
                              'screen repeat a picture: capture is not damage-driven')
            if still == 0:
                break
        else:
            raise Failure('stream: new pictures kept coming after the client froze')
        if os.path.exists(args.screenshot):
            os.remove(args.screenshot)
        before = stream.frames
        send(args.baton_pid, signal.SIGUSR1, 'baton')
        wait_until('baton screenshot (SIGUSR1)', lambda: os.path.exists(args.screenshot),
                   args.timeout, stream.check)
        spin(0.5, stream.check)
        log(f'screen frozen: {stream.frames - before} frames arrived around the screenshot '
            f'({stream.corrupted} incomplete ones skipped in all)')
        _, _, pixels = frame_channels(stream.latest)
        shot_w, shot_h, shot = read_png(args.screenshot)
        if (shot_w, shot_h) != (width, height):
            raise Failure(f'baton screenshot is {shot_w}x{shot_h}, expected {width}x{height}')
        background = tuple(shot[c][0] for c in range(3))  # top-left corner: no window there

        # The picture must hold more than the background: the client's pixels
        # (weston-simple-shm's window is 250x250, whatever the output's size).
        content = sum(1 for i in range(width * height)
                      if (pixels[0][i], pixels[1][i], pixels[2][i]) != background)
        log(f'frame pixels other than the background {background}: {content}')
        if args.save_frame:
            write_png(args.save_frame, width, height, pixels)
            log(f'the stream frame is in {args.save_frame}')
        if content < 250 * 250 // 2:
            raise Failure(f'stream: only {content} pixels differ from the background')

        # Named spots: corners and the centre, where the client's window sits.
        spots = [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1),
                 (width // 2, height // 2), (width // 2 - 60, height // 2),
                 (width // 2, height // 2 + 60)]
        for x, y in spots:
            i = y * width + x
            want = tuple(shot[c][i] for c in range(3))
            got = tuple(pixels[c][i] for c in range(3))
            log(f'  pixel ({x},{y}): screenshot {want} stream {got}')
        max_diff, differing = compare(shot, pixels)
        log(f'compared {width * height} pixels: {differing} differ, '
            f'max channel difference {max_diff} (tolerance {args.tolerance})')
        if max_diff > args.tolerance:
            raise Failure(f'stream frame differs from baton\'s screenshot: {differing} pixels, '
                          f'max channel difference {max_diff}')
    finally:
        stream.stop()
        try:
            os.kill(args.animator_pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    log('PASS')


if __name__ == '__main__':
    try:
        main()
    except Failure as failure:
        print(f'screencast: FAIL: {failure}', file=sys.stderr, flush=True)
        sys.exit(1)
