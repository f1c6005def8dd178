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


class FrameChecker:
    """Parses the XGMII words a MAC sends (decoded blocks) into frames: checks the idle lanes,
    the preamble and SFD, that only /T/ ends a frame, and every frame's FCS. frames holds
    (frame without FCS, idle lanes before its /S/ counted from the previous /T/ inclusive).
    It starts, and restarts after resync(), by hunting for an idle lane: a frame already under
    way when the line came up is not counted."""

    def __init__(self):
        self.frames = []
        self.resync()

    def resync(self):
        self.state = "hunt"
        self.gap = 0
        self.pre = []
        self.body = bytearray()

    def word(self, lanes):
        for b, c in lanes:
            if self.state == "hunt":
                if c and b == IDLE:
                    self.state = "idle"
            elif self.state == "idle":
                if c and b == START:
                    self.state, self.pre, self.body = "pre", [], bytearray()
                else:
                    assert c and b in (IDLE, TERM), f"lane {b:#x} (control {c}) between frames"
                    self.gap += 1
            elif self.state == "pre":
                assert not c, f"control {b:#x} in the preamble"
                self.pre.append(b)
                if len(self.pre) == 7:
                    assert self.pre == [0x55] * 6 + [0xD5], f"preamble {self.pre}"
                    self.state = "data"
            elif c:
                assert b == TERM, f"control {b:#x} inside a frame"
                body, crc = bytes(self.body[:-4]), bytes(self.body[-4:])
                assert crc == fcs(body), f"FCS wrong on the line (frame {len(self.frames)})"
                self.frames.append((body, self.gap))
                self.gap, self.state = 1, "idle"
            else:
                self.body.append(b)


class SerdesLine:
    """The serial side of a transceiver in 10GBASE-R mode with its asynchronous 64b/66b gearbox,
    for a bench: every TX user-clock edge takes one 66-bit block (tx_hdr: the sync header, tx_data:
    the scrambled payload) and puts its 66 bits on a serial line (Channel); every RX user-clock
    edge cuts the next 66 bits from the line at the receiver's current bit offset and presents
    them on rx_hdr / rx_data with rx_valid; rx_slip moves the offset by one bit (RXGEARBOXSLIP).
    The line starts at bit offset `offset`, so the receiving PCS must find block lock by slipping.

    With loopback=True the line carries the TX blocks back to RX (a looped fibre or a loopback
    module); otherwise it carries the XGMII words queued in rx_words (idles when empty),
    encoded and scrambled here. Either way the TX blocks are also descrambled bit by bit and
    decoded independently of the RTL, and every transmitted frame is checked (FrameChecker).
    corrupt(n, bit) flips one bit of the scrambled payload of frame n's third data block on the
    line (a bit error): the receiver must see a bad FCS. tx_takes, if set, is called at every TX
    edge and says whether the gearbox takes a block there (the synchronous gearbox's pauses);
    tx_raw keeps the first 64 blocks as sent (header, scrambled payload)."""

    def __init__(self, tx_clk, tx_hdr, tx_data, rx_clk, rx_hdr, rx_data, rx_valid, rx_slip,
                 offset=0, loopback=True):
        self.tx_clk, self.tx_hdr, self.tx_data = tx_clk, tx_hdr, tx_data
        self.rx_clk, self.rx_hdr, self.rx_data = rx_clk, rx_hdr, rx_data
        self.rx_valid, self.rx_slip = rx_valid, rx_slip
        self.channel = Channel(offset)
        self.loopback = loopback
        self.rx_words = []
        self.rx_scr = Scrambler()
        self.tx_dscr = Scrambler(state=0, descramble=True)
        self.checker = FrameChecker()
        self.tx_blocks = 0
        self.tx_raw = []
        self.tx_takes = None
        self.slips = 0
        self.corruptions = {}   # frame number -> payload bit to flip
        self.corrupted = []     # the frame numbers actually corrupted on the line

    @property
    def tx_frames(self):
        return self.checker.frames

    def start(self):
        import cocotb
        self.rx_hdr.value = int(BaseRSync.CTRL)
        self.rx_data.value = 0
        self.rx_valid.value = 0
        cocotb.start_soon(self._tx())
        cocotb.start_soon(self._rx())

    def corrupt(self, frame_number, bit=17):
        self.corruptions[frame_number] = bit

    async def _tx(self):
        from cocotb.triggers import ReadOnly, RisingEdge
        data_blocks = in_sync = 0
        while True:
            await RisingEdge(self.tx_clk)
            takes = self.tx_takes() if self.tx_takes else True
            await ReadOnly()
            if not takes:
                continue    # a gearbox pause: no block taken, the PCS holds its output
            hdr, raw = self.tx_hdr.value.integer, self.tx_data.value.integer
            if (hdr, raw) == (BaseRSync.CTRL, 0) or hdr not in (BaseRSync.CTRL, BaseRSync.DATA):
                # the PCS in reset (it holds a zero control block; a scrambled block is never
                # all zero in practice) or not yet reset: nothing on the line
                in_sync = 0
                self.checker.resync()
                continue
            self.tx_blocks += 1
            in_sync += 1
            if len(self.tx_raw) < 64:
                self.tx_raw.append((hdr, raw))
            plain = self.tx_dscr.word(raw)
            if in_sync > 2:     # the descrambler has synchronised on the first 58 bits
                n = len(self.checker.frames)
                in_frame = self.checker.state == "data"
                try:
                    word = decode(hdr, plain)
                except ValueError:
                    # a block no MAC sends: the PCS's pipeline still flushing its state from
                    # before the first reset; an error once the checker has found the idles
                    if self.checker.state != "hunt":
                        raise
                    word = [(ERROR, True)] * 8
                self.checker.word(word)
                data_blocks = data_blocks + 1 if in_frame and hdr == BaseRSync.DATA else 0
                if data_blocks == 3 and n in self.corruptions and n not in self.corrupted:
                    raw ^= 1 << self.corruptions[n]
                    self.corrupted.append(n)
            if self.loopback:
                self.channel.push(hdr, raw)

    async def _rx(self):
        from cocotb.triggers import RisingEdge
        while True:
            if not self.loopback:
                if self.rx_words:
                    dw, cw = self.rx_words.pop(0)
                else:
                    dw, cw = [IDLE] * 8, [True] * 8
                hdr, p = encode(dw, cw)
                self.channel.push(hdr, self.rx_scr.word(p))
            if self.channel.ready():
                hdr, p = self.channel.pull()
                self.rx_data.value = p
                self.rx_hdr.value = hdr
                self.rx_valid.value = 1
            else:
                self.rx_valid.value = 0
            await RisingEdge(self.rx_clk)
            if self.rx_slip.value:
                self.channel.slip()
                self.slips += 1
