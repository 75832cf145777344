# The byte encoding of the protocol fuzzer's inputs, for scripts that write
# seeds by hand (drag_seeds.py, capture_seeds.py): the decoder is
# session.cpp and arguments.cpp (action bytes, object picks, argument
# modes), and a change there moves these bytes. Check a seed with
# `BATON_FUZZ_TRACE=1 WAYLAND_DEBUG=server baton-fuzz-replay FILE`.
import hashlib
import pathlib

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


def memfd_pages(pages):
    # An fd argument: a memfd of 4096 * pages bytes (1 to 64), then an int
    # argument that is that size.
    return [0, 2, pages - 1], [0, 5]


def memfd_mib():
    # An fd argument: a memfd of 1 MiB (and 0 more bytes), then its size.
    return [0, 5, 0], [0, 5]


class Seed:
    def __init__(self):
        self.out = []

    def bind(self, index):
        self.out.extend([0, index, 0x14])  # the global's top version

    def request(self, object_id, opcode, args=()):
        # The object by its place in the client's list (ids 1, 2, 3... at 0,
        # 1, 2... while none was destroyed), a live target, a real opcode.
        self.out.extend([REQUEST, (object_id - 1) << 1, 2, opcode, 1, *args])

    def hand(self, what, x, y):  # session.cpp input(): x and y are offset by 20
        self.out.extend([INPUT, what, (x + 20) & 0xFF, (x + 20) >> 8, (y + 20) & 0xFF, (y + 20) >> 8])

    def settle(self):
        self.out.append(SETTLE)

    def frame(self):
        self.out.extend([FRAME, 0])  # the first output's frame event

    def write(self, directory):
        data = bytes(self.out)
        path = pathlib.Path(directory) / hashlib.sha1(data).hexdigest()
        path.write_bytes(data)
        print(path)
