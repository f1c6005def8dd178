#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ndknic against Linux's own RoCEv2 on one wire (docs/interop.md).

Boots the guest of tools/guest/guest.sh (no PCI device) with two virtio-net interfaces: eth0 on
a QEMU UDP socket netdev, the wire, whose other end is the simulated NIC's port of a libndk
program on the host (ndk_sim_wire.h); eth1 on QEMU user networking, for the tools' out-of-band
TCP exchanges and for this driver's control of the guest's agent (tools/interop/guest_agent.sh:
soft-RoCE, rxe0, on eth0). Then runs every case: the unmodified Debian tools in the guest
(ibv_rc_pingpong, perftest) against the libndk programs on the host (ndk_rc_pingpong, ndkperf's
--server / --peer), both roles, and checks both sides' exit status and output and that tshark
decodes every frame of each case's capture without a malformed packet. A failing case prints
both sides' output and keeps its pcap.

    tools/interop/interop.py [--seed N] [--only SUBSTRING] [--list] [--keep]

The last line is "interop: N passed, N failed". Exit status 0 when every case passed.
"""
import argparse
import atexit
import http.server
import os
import queue
import random
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
OUT = os.path.join(BUILD, "interop")
GUEST_MAC = "52:54:00:12:34:56"   # eth0, the wire (ndk's --peer-mac)
CTL_MAC = "52:54:00:12:34:57"     # eth1, user networking
GUEST_OOB_PORT = 18515            # the tools' default TCP port, in the guest
# The real-time rate of the frames ndknic sends into the guest (ndk_sim_wire's paced queue):
# at its line rate a burst overflows QEMU's socket netdev and the guest's virtio ring, the
# guest drops frames, rxe answers with a sequence NAK, and ndknic has no go-back-N yet.
WIRE_KBPS = 2000

# The guest's userland: the tools, and what libibverbs loads with dlopen (ldd cannot see it)
GUEST_FILES = [
    "/usr/bin/ibv_rc_pingpong", "/usr/bin/ibv_devinfo", "/usr/bin/rdma",
    "/usr/bin/ib_send_bw", "/usr/bin/ib_write_bw", "/usr/bin/ib_read_bw", "/usr/bin/ib_send_lat",
    "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", "/etc/libibverbs.d/rxe.driver",
]
# virtio_pci: the interfaces (virtio_net alone is in the image); crc32_generic: rxe computes
# the ICRC with the kernel's crc32 (it would request the module, but the guest has no modprobe)
GUEST_MODULES = ["virtio_pci", "crc32_generic", "rdma_rxe", "ib_uverbs"]


class Control:
    """The agent's commands (GET /next), results (POST /result) and readiness (GET /ready)."""

    def __init__(self):
        self.commands = queue.Queue()
        self.results = queue.Queue()
        self.ready = queue.Queue()


def make_handler(ctl):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _reply(self, body):
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.startswith("/next"):
                try:
                    cmd = ctl.commands.get(timeout=900)
                except queue.Empty:
                    cmd = "exit"
                self._reply(cmd)
            elif self.path.startswith("/ready"):
                ctl.ready.put(True)
                self._reply("ok")
            else:
                self.send_error(404)

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            ctl.results.put(self.rfile.read(n).decode(errors="replace"))
            self._reply("ok")

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_udp_port():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Case:
    def __init__(self, name, host, guest, guest_serves, check=None, timeout=240):
        self.name = name
        self.host = host            # argv of the libndk side (wire options appended)
        self.guest = guest          # the Debian tool's command line in the guest
        self.guest_serves = guest_serves
        self.check = check          # extra check of (host_out, guest_out): None or a message
        self.timeout = timeout


def pingpong_cases():
    cases = []
    # 1 B, 4 KiB, 64 KiB and more than one MTU that is no multiple of a page
    for size, iters in ((1, 50), (4096, 50), (65536, 10), (5000, 20)):
        tool = f"ibv_rc_pingpong -g $GIDX -c -s {size} -n {iters}"
        me = ["ndk_rc_pingpong", "-s", str(size), "-n", str(iters)]

        def no_invalid(host_out, guest_out):
            if "invalid data" in guest_out:
                return "ibv_rc_pingpong -c found invalid data"
            if "every byte checked" not in host_out:
                return "ndk_rc_pingpong did not check every byte"
            return None

        cases.append(Case(f"rc_pingpong rxe client -> ndknic server, {size} B", me,
                          tool + " 10.0.2.2 -p {HOST_OOB}", False, no_invalid))
        cases.append(Case(f"rc_pingpong ndknic client -> rxe server, {size} B",
                          me + ["127.0.0.1"], tool + f" -p {GUEST_OOB_PORT}", True, no_invalid))
    return cases


def perftest_cases(iters):
    """perftest's tools with their defaults (ib_*_bw: 65536 bytes; ib_send_lat: 2 bytes) and
    ib_send_lat -s 65536, against ndkperf --server / --peer, both roles. iters: -n for both
    sides (None: the tools' defaults, 5000 for *_bw and 1000 for send_lat: ~4 min a case
    under TCG, so `make test` runs fewer and `make interop-full` the defaults)."""
    cases = []
    for test, extra in (("write_bw", ""), ("read_bw", ""), ("send_bw", ""), ("send_lat", ""),
                        ("send_lat", "-s 65536")):
        if iters:
            extra = (extra + f" -n {iters}").strip()
        tool = f"ib_{test} {extra}".strip()
        me = ["ndkperf", test] + extra.split()
        label = f"{tool}"
        # the defaults move 5000 x 64 KiB: through the paced wire (WIRE_KBPS) alone ~3 minutes
        timeout = 240 if iters else 900
        cases.append(Case(f"{label}: rxe client -> ndknic server", me + ["--server"],
                          tool + " 10.0.2.2 -p {HOST_OOB}", False, timeout=timeout))
        cases.append(Case(f"{label}: ndknic client -> rxe server", me + ["--peer", "127.0.0.1"],
                          tool + f" -p {GUEST_OOB_PORT}", True, timeout=timeout))
    return cases


def all_cases(iters):
    return pingpong_cases() + perftest_cases(iters)


# Every heuristic that guesses an upper protocol (RPC-over-RDMA, NVMe-oF, iSER, SMB Direct, ...)
# from the bytes of an InfiniBand payload, by its short name (tshark 4.0): the tools' payloads
# are test patterns, and a guess on them reports a malformed packet of a protocol that is not
# there (a 1-byte Send: "Malformed Packet: RPCoRDMA"). The transport headers are still decoded.
PAYLOAD_HEURISTICS = ["rpcrdma_infiniband", "smcr_infiniband", "smb_direct_infiniband",
                      "iser_infiniband", "lnet_ib", "sdp_infiniband", "fc_infiniband",
                      "eth_over_ib", "nvme_rdma", "mellanox_eoib"]


def tshark_payload_heuristics_off():
    args = []
    for h in PAYLOAD_HEURISTICS:
        args += ["--disable-heuristic", h]
    return args


def tshark_check(pcap):
    """None when tshark decodes every frame as RoCE (UDP 4791) with no malformed packet."""
    if not os.path.exists(pcap):
        return f"no capture {pcap}"
    off = tshark_payload_heuristics_off()
    total = subprocess.run(["tshark", "-r", pcap] + off + ["-T", "fields", "-e", "frame.number"],
                           capture_output=True, text=True)
    if total.returncode != 0:
        return "tshark: " + "; ".join(l for l in total.stderr.splitlines() if "dangerous" not in l)
    n = len(total.stdout.split())
    bad = subprocess.run(["tshark", "-r", pcap] + off + ["-Y", "_ws.malformed || _ws.expert.severity >= error"
                          " || !infiniband", "-T", "fields", "-e", "frame.number",
                          "-e", "_ws.col.Info"], capture_output=True, text=True)
    if bad.stdout.strip():
        return f"tshark: {len(bad.stdout.splitlines())} of {n} frames malformed or not RoCE:\n" + \
            "\n".join(bad.stdout.splitlines()[:10])
    if n == 0:
        return "tshark: the capture is empty"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep every pcap, not only failing ones")
    ap.add_argument("--iters", type=int, default=100,
                    help="perftest's -n, both sides (0: the tools' defaults)")
    args = ap.parse_args()
    cases = [c for c in all_cases(args.iters) if args.only in c.name]
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    os.makedirs(OUT, exist_ok=True)
    bins = os.path.join(BUILD, "bin")
    for f in GUEST_FILES:
        if not os.path.exists(f):
            print(f"interop: {f} is missing (make deps installs ibverbs-utils, perftest, "
                  "ibverbs-providers, iproute2)")
            print("interop: 0 passed, 1 failed")
            return 1

    ctl = Control()
    ctl_port = free_port()
    httpd = Server(("127.0.0.1", ctl_port), make_handler(ctl))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    wire_host, wire_guest, fwd = free_udp_port(), free_udp_port(), free_port()

    qemu = [f"-netdev", f"socket,id=wire,udp=127.0.0.1:{wire_host},localaddr=127.0.0.1:{wire_guest}",
            "-device", f"virtio-net-pci,netdev=wire,mac={GUEST_MAC}",
            "-netdev", f"user,id=ctl,net=10.0.2.0/24,hostfwd=tcp:127.0.0.1:{fwd}-10.0.2.15:{GUEST_OOB_PORT}",
            "-device", f"virtio-net-pci,netdev=ctl,mac={CTL_MAC}"]
    cmd = [os.path.join(ROOT, "tools", "guest", "guest.sh"), "run", "--no-device",
           "--timeout", str(60 + sum(c.timeout for c in cases))]
    for m in GUEST_MODULES:
        cmd += ["--module", m]
    for f in GUEST_FILES:
        cmd += ["--file", f]
    for q in qemu:
        cmd += ["--qemu", q]
    cmd += ["--", os.path.join(ROOT, "tools", "interop", "guest_agent.sh"), str(ctl_port)]
    t0 = time.time()
    # its own process group: whatever way this driver ends, QEMU ends with it
    guest = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)

    def stop_guest(*_):
        try:
            os.killpg(guest.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    atexit.register(stop_guest)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    guest_lines = []
    threading.Thread(target=lambda: guest_lines.extend(guest.stdout), daemon=True).start()

    rng = random.Random(args.seed)
    passed = failed = 0
    booted = False
    for c in cases:
        for attempt in (1, 2):
            seed = rng.randrange(1, 1 << 31)
            pcap = os.path.join(OUT, re.sub(r"[^A-Za-z0-9]+", "_", c.name).strip("_") + ".pcap")
            host_oob = free_port()
            argv = [os.path.join(bins, c.host[0])] + c.host[1:]
            argv += ["--peer-mac", GUEST_MAC, "--wire-local", f"127.0.0.1:{wire_host}",
                     "--wire-remote", f"127.0.0.1:{wire_guest}", "--pcap", pcap,
                     "--seed", str(seed), "--timeout", str(c.timeout), "--wire-kbps", str(WIRE_KBPS)]
            argv += ["-p", str(fwd if c.guest_serves else host_oob)]
            guest_cmd = c.guest.replace("{HOST_OOB}", str(host_oob))
            start = time.time()
            if c.guest_serves:
                # the tool listens in the guest; the agent says when, then our client connects
                # through QEMU's port forward
                script = (f"{guest_cmd} >/tmp/srv.out 2>&1 &\npid=$!\ni=0\n"
                          f"while ! netstat -ltn 2>/dev/null | grep -q ':{GUEST_OOB_PORT} '; do\n"
                          "  sleep 0.1; i=$((i+1)); [ $i -gt 600 ] && break\ndone\n"
                          f"wget -q -O /dev/null http://10.0.2.2:{ctl_port}/ready\n"
                          "wait $pid; rc=$?\ncat /tmp/srv.out\nexit $rc\n")
                ctl.commands.put(script)
                try:
                    ctl.ready.get(timeout=c.timeout + (300 if not booted else 0))
                except queue.Empty:
                    pass
                host = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            else:
                host = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                # wait until it listens (its first lines say so), then start the guest's client
                host_head = []
                while True:
                    line = host.stdout.readline()
                    if not line:
                        break
                    host_head.append(line)
                    if "waiting for the peer" in line:
                        break
                ctl.commands.put(guest_cmd + "\n")
            try:
                host_out, _ = host.communicate(timeout=c.timeout + (300 if not booted else 0))
            except subprocess.TimeoutExpired:
                host.kill()
                host_out, _ = host.communicate()
                host_out += "\n(interop: the libndk side did not finish in time)"
            if not c.guest_serves:
                host_out = "".join(host_head) + host_out
            try:
                guest_out = ctl.results.get(timeout=c.timeout + (300 if not booted else 0))
            except queue.Empty:
                guest_out = "(interop: no result from the guest)\n" + "".join(guest_lines[-40:])
            booted = True
            m = re.search(r"interop-agent-rc=(\d+)\s*$", guest_out)
            guest_rc = int(m.group(1)) if m else -1
            problems = []
            if host.returncode != 0:
                problems.append(f"the libndk side exited {host.returncode}")
            if guest_rc != 0:
                problems.append(f"the guest's tool exited {guest_rc}")
            if c.check and not problems:
                msg = c.check(host_out, guest_out)
                if msg:
                    problems.append(msg)
            if not problems:
                msg = tshark_check(pcap)
                if msg:
                    problems.append(msg)
            # perftest computes its report from the CPU clock, which it calibrates against
            # gettimeofday first; in the emulated guest on a loaded host that calibration can
            # fail ("Correlation coefficient r^2 ... < 0.9", "Can't produce a report", exit 1)
            # after an exchange that went through. Only that failure is run once more.
            if (attempt == 1 and host.returncode == 0 and guest_rc != 0 and len(problems) == 1
                    and "Can't produce a report" in guest_out):
                print(f"[RETRY] {c.name}: perftest could not calibrate its clock in the guest "
                      "(its report failed, not the exchange): once more")
                sys.stdout.flush()
                continue
            break
        took = time.time() - start
        if problems:
            failed += 1
            print(f"[FAIL] {c.name} ({took:.1f} s): " + "; ".join(problems))
            print("---- libndk side: " + " ".join(argv))
            print(host_out.rstrip())
            print("---- guest: " + guest_cmd)
            print(guest_out.rstrip())
            print(f"---- capture kept: {pcap}")
        else:
            passed += 1
            print(f"[PASS] {c.name} ({took:.1f} s)")
            for line in host_out.splitlines():
                if "client's messages" in line or "against perftest" in line:
                    print("      " + line.strip())
            if not args.keep:
                os.unlink(pcap)
        sys.stdout.flush()
    ctl.commands.put("exit")
    try:
        guest.wait(timeout=60)
    except subprocess.TimeoutExpired:
        guest.kill()
    if guest.returncode not in (0, None) and passed + failed < len(cases):
        failed += 1
    if failed:
        print("---- guest console (last lines)")
        print("".join(guest_lines[-30:]).rstrip())
    print(f"interop: {len(cases)} cases in {time.time() - t0:.0f} s")
    httpd.shutdown()
    print(f"interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
