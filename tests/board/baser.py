# SPDX-License-Identifier: MIT
"""An independent Python model of the 10GBASE-R PCS (IEEE 802.3 clause 49) for the Ethernet
benches: XGMII words <-> 66-bit blocks (figure 49-7), the scrambler bit by bit as the standard
draws it (figure 49-8: G(x) = 1 + x^39 + x^58), and a serial channel that cuts the bit stream
into 66-bit blocks at any bit offset (so a receiver must find block lock by slipping).

Bit order as the RTL's serdes ports: header bit 0 and payload bit 0 are the first on the line;
a data block's header is 0b10, a control block's 0b01 (cocotbext.eth.constants.BaseRSync).
"""
import random
import zlib

from cocotbext.eth.constants import BaseRSync, BaseRBlockType, XgmiiCtrl

IDLE, START, TERM, ERROR = XgmiiCtrl.IDLE, XgmiiCtrl.START, XgmiiCtrl.TERM, XgmiiCtrl.ERROR
TERM_TYPES = [0x87, 0x99, 0xAA, 0xB4, 0xCC, 0xD2, 0xE1, 0xFF]
CTRL_TO_CODE = {0x07: 0x00, 0x06: 0x06, 0xFE: 0x1E}
CODE_TO_CTRL = {v: k for k, v in CTRL_TO_CODE.items()}


class Scrambler:
    """Bit-serial, straight from figure 49-8: each output bit is the input bit xor the outputs
    39 and 58 bits earlier. descramble=True runs the matching descrambler (figure 49-10)."""

    def __init__(self, state=(1 << 58) - 1, descramble=False):
        self.s = state          # bit k = the output k+1 bits ago
        self.descramble = descramble

    def word(self, x):
        out = 0
        for i in range(64):
            b = (x >> i) & 1
            y = b ^ ((self.s >> 38) & 1) ^ ((self.s >> 57) & 1)
            shift_in = b if self.descramble else y
            self.s = ((self.s << 1) | shift_in) & ((1 << 58) - 1)
            out |= y << i
        return out


def encode(d, c):
    """One XGMII word (8 bytes, 8 control flags) -> (header, payload) for the types a MAC sends."""
    if not any(c):
        return BaseRSync.DATA, int.from_bytes(bytes(d), "little")
    if c[0] and d[0] == START and not any(c[1:]):
        return BaseRSync.CTRL, BaseRBlockType.START_0 | int.from_bytes(bytes(d[1:]), "little") << 8
    if all(c[:5]) and d[4] == START and not any(c[5:]) and all(x in CTRL_TO_CODE for x in d[:4]):
        p = BaseRBlockType.START_4
        for i in range(4):
            p |= CTRL_TO_CODE[d[i]] << (8 + 7 * i)
        return BaseRSync.CTRL, p | int.from_bytes(bytes(d[5:]), "little") << 40
    for k in range(8):
        if all(c[k:]) and not any(c[:k]) and d[k] == TERM and all(x in CTRL_TO_CODE for x in d[k + 1:]):
            p = TERM_TYPES[k]
            for b in range(k):
                p |= d[b] << (8 + 8 * b)
            for l in range(k + 1, 8):
                p |= CTRL_TO_CODE[d[l]] << (8 + 8 * k + (7 - k) + 7 * (l - k - 1))
            return BaseRSync.CTRL, p
    if all(c) and all(x in CTRL_TO_CODE for x in d):
        p = BaseRBlockType.CTRL
        for i in range(8):
            p |= CTRL_TO_CODE[d[i]] << (8 + 7 * i)
        return BaseRSync.CTRL, p
    # Anything else (an /E/ among data lanes) becomes an error block, as 49.2.4.4 has it.
    p = BaseRBlockType.CTRL
    for i in range(8):
        p |= 0x1E << (8 + 7 * i)
    return BaseRSync.CTRL, p


def decode(hdr, p):
    """(header, payload) -> XGMII word as a list of (byte, is_control), for what a MAC sends."""
    if hdr == BaseRSync.DATA:
        return [((p >> (8 * i)) & 0xFF, False) for i in range(8)]
    assert hdr == BaseRSync.CTRL, f"invalid sync header {hdr}"
    t = p & 0xFF
    if t == BaseRBlockType.CTRL:
        return [(CODE_TO_CTRL.get((p >> (8 + 7 * i)) & 0x7F, ERROR), True) for i in range(8)]
    if t == BaseRBlockType.START_0:
        return [(START, True)] + [((p >> (8 * i)) & 0xFF, False) for i in range(1, 8)]
    if t in TERM_TYPES:
        k = TERM_TYPES.index(t)
        w = [((p >> (8 + 8 * b)) & 0xFF, False) for b in range(k)] + [(TERM, True)]
        for l in range(k + 1, 8):
            w.append((CODE_TO_CTRL[(p >> (8 + 8 * k + (7 - k) + 7 * (l - k - 1))) & 0x7F], True))
        return w
    raise ValueError(f"decode: block type {t:#x}")


def fcs(frame):
    return zlib.crc32(frame).to_bytes(4, "little")


def xgmii_frame(frame, lane4=False, bad_fcs=False, error_at=None):
    """The XGMII lanes (byte, is_control) of a frame: start, preamble, SFD, frame, FCS, /T/."""
    f = bytearray(frame) + bytearray(fcs(frame))
    if bad_fcs:
        f[-1] ^= 0x01
    lanes = [(START, True)] + [(0x55, False)] * 6 + [(0xD5, False)] + [(b, False) for b in f]
    if error_at is not None:
        lanes[8 + error_at] = (ERROR, True)
    lanes.append((TERM, True))
    if lane4:
        lanes = [(IDLE, True)] * 4 + lanes
    return lanes


def lanes_to_words(lanes, gap=12):
    """Pad with idles (at least `gap` after /T/... counted from /T/ inclusive) to whole words."""
    lanes = list(lanes) + [(IDLE, True)] * (gap - 1)
    while len(lanes) % 8:
        lanes.append((IDLE, True))
    return [([b for b, _ in lanes[i:i + 8]], [c for _, c in lanes[i:i + 8]])
            for i in range(0, len(lanes), 8)]


class Channel:
    """A serial line: 66-bit blocks in, a stream of bits, 66-bit windows out at an offset that
    starts anywhere and moves one bit per slip (as the GTY's RXGEARBOXSLIP). Bit errors can be
    injected into sync headers."""

    def __init__(self, offset=0):
        self.bits = []
        self.offset = offset % 66
        self.pos = 0

    def push(self, hdr, payload):
        self.bits += [(hdr >> i) & 1 for i in range(2)] + [(payload >> i) & 1 for i in range(64)]

    def slip(self):
        self.offset = (self.offset + 1) % 66
        if self.offset == 0:
            self.pos += 66     # a full turn: skip one block

    def ready(self):
        return len(self.bits) >= self.pos + self.offset + 66 + 66

    def pull(self):
        b = self.bits[self.pos + self.offset:self.pos + self.offset + 66]
        self.pos += 66
        if self.pos > 66 * 64:
            del self.bits[:self.pos - 66]
            self.pos = 66
        hdr = b[0] | b[1] << 1
        payload = sum(bit << i for i, bit in enumerate(b[2:]))
        return hdr, payload


def random_frame(rng, length):
    dst = bytes([0x02, 0, 0, 0, 0, 0x01])
    src = bytes([0x02, 0, 0, 0, 0, 0x02])
    body = bytes(rng.getrandbits(8) for _ in range(max(0, length - 12)))
    return (dst + src + body)[:length] if length >= 14 else bytes(rng.getrandbits(8) for _ in range(length))
