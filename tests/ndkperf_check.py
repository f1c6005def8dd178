#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks build/bin/ndkperf (docs/ndkperf.md): every test at both data widths with a few
iterations, its JSON fields and their sanity, what -l, -Q, -e and -I change in the NIC's
counters, and the usage errors. tools/run_tests.sh runs it after the examples; exit 0 = pass.

    tests/ndkperf_check.py [path/to/ndkperf]
"""
import json
import subprocess
import sys

NDKPERF = sys.argv[1] if len(sys.argv) > 1 else "build/bin/ndkperf"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(*args):
    p = subprocess.run([NDKPERF, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    """ndkperf --json ARGS: the parsed output, or None (a failure is recorded)."""
    rc, out, err = run(*args, "--json")
    what = "ndkperf " + " ".join(args)
    if not check(rc == 0, f"{what}: exit 0 (got {rc}: {err.strip()[:200]})"):
        return None
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        check(False, f"{what}: the output is JSON ({e})")
        return None


LAT_FIELDS = ["t_min_usec", "t_typical_usec", "t_max_usec", "t_avg_usec", "t_stdev_usec",
              "t_p99_usec", "t_p999_usec"]
BW_FIELDS = ["total_bytes", "cycles", "bytes_per_cycle", "bw_peak_gbps", "bw_average_gbps",
             "bw_peak_MBps", "bw_average_MBps", "msg_rate_mpps"]


def sane(d, test, size, iters, width):
    what = f"{test} -s {size} -n {iters} --width {width}"
    r, o, c = d["results"], d["options"], d["config"]
    check(d["test"] == test, f"{what}: test is {test}")
    check(c["data_width"] == width, f"{what}: config.data_width {c['data_width']}")
    check(r["bytes"] == size and r["iterations"] == iters and o["size"] == size and
          o["iters"] == iters, f"{what}: bytes and iterations as asked")
    for side in ("client", "server"):
        check("sq_doorbells" in d["counters"][side], f"{what}: counters.{side}")
    if test.endswith("_bw"):
        if not check(all(k in r for k in BW_FIELDS), f"{what}: every bandwidth field"):
            return
        check(r["total_bytes"] == size * iters, f"{what}: total_bytes = bytes x iterations")
        check(r["cycles"] > 0, f"{what}: cycles > 0")
        mhz = c["clock_mhz"]
        check(abs(r["bytes_per_cycle"] - size * iters / r["cycles"]) < 1e-3,
              f"{what}: bytes_per_cycle = total / cycles")
        check(abs(r["bw_average_gbps"] - r["bytes_per_cycle"] * mhz * 8 / 1000) < 1e-3,
              f"{what}: Gb/s = bytes per cycle at the clock")
        check(abs(r["msg_rate_mpps"] - iters / r["cycles"] * mhz) < 1e-4,
              f"{what}: MsgRate = iterations per microsecond")
        check(r["bw_peak_gbps"] >= r["bw_average_gbps"] - 1e-6, f"{what}: peak >= average")
        # nothing moves faster than the link or the DMA datapath allows
        lim = d["limits_bytes_per_cycle"]
        check(r["bytes_per_cycle"] <= min(lim["link"], lim["dma"], lim["datapath"]),
              f"{what}: {r['bytes_per_cycle']} bytes/cycle within the link and DMA limits")
        # the server saw every message: frames, and for writes the bytes in its memory
        check(d["counters"]["server"]["frames_received"] >= iters,
              f"{what}: the server received at least one frame per message")
        if test == "write_bw":
            check(d["counters"]["server"]["dma_write_bytes"] >= size * iters,
                  f"{what}: the server wrote every byte to host memory")
    else:
        if not check(all(k in r for k in LAT_FIELDS), f"{what}: every latency field"):
            return
        check(0 < r["t_min_usec"] <= r["t_typical_usec"] <= r["t_max_usec"],
              f"{what}: 0 < min <= typical <= max")
        check(r["t_min_usec"] <= r["t_avg_usec"] <= r["t_max_usec"], f"{what}: min <= avg <= max")
        check(r["t_typical_usec"] <= r["t_p99_usec"] <= r["t_p999_usec"] <= r["t_max_usec"],
              f"{what}: typical <= 99% <= 99.9% <= max")
        # a half round trip is at least the link's one-way latency
        check(r["t_min_usec"] * 1000 >= c["link_ns"], f"{what}: min >= link latency")
        check(d["counters"]["client"]["sq_doorbells"] == iters,
              f"{what}: one doorbell per iteration")


def main():
    for width in (64, 256):
        for test, size, iters in (("send_lat", 8, 6), ("write_lat", 100, 6),
                                  ("send_bw", 64, 40), ("write_bw", 4096, 20)):
            d = run_json(test, "-s", str(size), "-n", str(iters), "--width", str(width))
            if d:
                sane(d, test, size, iters, width)
        # read_lat: until the core advertises Read, a clear refusal (exit 3); after, a run
        rc, out, err = run("read_lat", "-n", "6", "--json", "--width", str(width))
        if rc == 3:
            check("read not supported by this core" in err,
                  f"read_lat --width {width}: refused with the reason ({err.strip()})")
            check(out == "", f"read_lat --width {width}: nothing on stdout when refused")
        elif check(rc == 0, f"read_lat --width {width}: exit 0 or 3 (got {rc}: {err.strip()})"):
            sane(json.loads(out), "read_lat", 2, 6, width)

    # -l: a post list of 8 rings one doorbell per 8 requests (DEFER), 1 one per request
    for test in ("write_bw", "send_bw"):
        d1 = run_json(test, "-s", "64", "-n", "64", "-l", "1", "-Q", "16")
        d8 = run_json(test, "-s", "64", "-n", "64", "-l", "8", "-Q", "16")
        if d1 and d8:
            c1, c8 = d1["counters"]["client"], d8["counters"]["client"]
            check(c1["sq_doorbells"] == 64, f"{test} -l 1: 64 doorbells ({c1['sq_doorbells']})")
            check(c8["sq_doorbells"] == 8, f"{test} -l 8: 8 doorbells ({c8['sq_doorbells']})")
            check(c8["wqe_fetch_reads"] < c1["wqe_fetch_reads"],
                  f"{test} -l 8: fewer WQE fetch reads than -l 1")
            # -Q 16: a completion every 16 requests, the rest SILENT_SUCCESS
            check(c1["cqes_written"] == 4, f"{test} -Q 16: 4 CQEs for 64 ({c1['cqes_written']})")
    d = run_json("write_bw", "-s", "64", "-n", "50", "-Q", "16")
    if d:
        check(d["counters"]["client"]["cqes_written"] == 4,
              "write_bw -n 50 -Q 16: CQEs for 16, 32, 48 and the last request")

    # -e: completions through armed CQs and their interrupts; polling takes none
    for test, extra in (("write_bw", ["-s", "256", "-n", "32", "-Q", "8"]),
                        ("send_lat", ["-n", "6"])):
        de = run_json(test, *extra, "-e")
        dp = run_json(test, *extra)
        if de and dp:
            check(de["options"]["events"] and de["counters"]["client"]["interrupts"] > 0,
                  f"{test} -e: interrupts ({de['counters']['client']['interrupts']})")
            check(dp["counters"]["client"]["interrupts"] == 0, f"{test}: polling, no interrupts")

    # -I: a payload within the inline size is copied into the WQE: no payload DMA read
    di = run_json("send_lat", "-s", "32", "-n", "6", "-I", "40")
    dn = run_json("send_lat", "-s", "32", "-n", "6", "-I", "0")
    if di and dn:
        ci, cn = di["counters"]["client"], dn["counters"]["client"]
        # the same run otherwise (WQE fetches, receive WQE fetches): the difference is one
        # 32-byte payload read per send
        check(cn["dma_reads"] - ci["dma_reads"] == 6,
              f"send_lat -I 0: one more DMA read per send than -I 40 "
              f"({cn['dma_reads']} against {ci['dma_reads']})")
        check(cn["dma_read_bytes"] - ci["dma_read_bytes"] == 6 * 32,
              "send_lat -I 0: the payload bytes read by DMA, -I 40: not")

    # the simulation options reach the world
    d = run_json("write_bw", "-s", "2048", "-n", "10", "--mtu", "512", "--link-gbps", "10",
                 "--clock-mhz", "200", "--width", "64")
    if d:
        c = d["config"]
        check((c["path_mtu"], c["link_mbps"], c["clock_mhz"], c["data_width"]) ==
              (512, 1250, 200, 64), "--mtu, --link-gbps, --clock-mhz, --width in the config")
        check(d["counters"]["client"]["frames_sent"] >= 40, "--mtu 512: 4 packets per 2 KiB")
        check(d["results"]["bytes_per_cycle"] <= 1250 / 200, "--link-gbps 10 bounds the rate")

    # the network's faults and the port counters: a lossless run reports no faults and does not
    # read the counters (its numbers stay those of before); --port-counters reads them, and
    # they agree with the harness's frame counts; the connection knobs reach the JSON
    d = run_json("write_bw", "-s", "2048", "-n", "10")
    if d:
        loss = d["loss"]
        check(loss["port_counters"] is None, "lossless: the port counters are not read")
        check(all(v == 0 for side in loss["faults"].values() for v in side.values()),
              "lossless: no fault injected")
    d = run_json("write_bw", "-s", "2048", "-n", "10", "--port-counters", "--ack-timeout", "9",
                 "--retry-count", "3", "--rnr-retry", "2", "--local-psn", "16777210",
                 "--remote-psn", "5")
    if d:
        loss, c = d["loss"], d["counters"]
        pc = loss["port_counters"]
        check((loss["ack_timeout"], loss["retry_count"], loss["rnr_retry"], loss["local_psn"],
               loss["remote_psn"]) == (9, 3, 2, 16777210, 5), "the connection knobs in the JSON")
        if check(pc is not None, "--port-counters: read"):
            # the run's frames (the counters are read after the last completion, the harness's
            # counts at it: the ACK of the last Write may be in flight either way)
            check(pc["client"]["tx_packets"] == c["client"]["frames_sent"],
                  f"client tx_packets {pc['client']['tx_packets']} = frames sent "
                  f"{c['client']['frames_sent']}")
            check(pc["server"]["rx_packets"] == pc["client"]["tx_packets"],
                  "the server received every packet the client sent")
            check(pc["client"]["rx_dropped"] == 0 and pc["server"]["rx_dropped"] == 0,
                  "no drops on a perfect network")
    # under loss the Writes are recovered: the run completes, and the JSON has the goodput and
    # the packets sent again (client frames beyond the 4 x 300 of its messages), at least one
    # per frame the client's link dropped
    d = run_json("write_bw", "-s", "4096", "-n", "300", "--drop", "0.002", "--ack-timeout", "4",
                 "--seed", "3")
    if d and check("goodput" in d, "a lossy bandwidth run reports its goodput"):
        g = d["goodput"]
        dropped = d["loss"]["faults"]["client"]["dropped"]
        check(dropped > 0, "--drop 0.002 --seed 3 drops some of the client's frames")
        check(g["client_frames"] == 1200 + g["retransmitted_packets_wire"]
              and g["retransmitted_packets_wire"] >= dropped,
              f"packets sent again {g['retransmitted_packets_wire']} ({dropped} dropped)")
        check(0 < g["goodput_gbps"] <= d["results"]["bw_average_gbps"] + 1e-3,
              "the goodput is the run's average bandwidth")
    # a lossy run at 1e-2 with 128 Writes in flight (the default depth): the faults are drawn and
    # reported, and the run completes
    rc, out, err = run("write_bw", "-s", "4096", "-n", "300", "--drop", "0.01", "--seed", "7")
    check(rc == 0 and "dropped" in out and "port:" in out and "goodput under loss" in out,
          f"write_bw --drop 0.01: completes, with the loss report (exit {rc})")

    # usage errors: a message and exit 2, nothing on stdout
    for args in (["bogus_test"], [], ["send_lat", "-l", "4"], ["send_lat", "-Q", "4"],
                 ["write_bw", "-s", "0"], ["write_bw", "-s", "12x"], ["write_bw", "--nope"],
                 ["write_bw", "-s"], ["write_bw", "--width", "128"], ["write_bw", "--mtu", "1000"],
                 ["write_lat", "-e"], ["write_bw", "-l", "100", "-Q", "100"],
                 ["write_bw", "-s", "1048576"], ["send_lat", "-I", "100000"],
                 ["send_lat", "-n", "2"], ["send_lat", "extra", "arg"],
                 ["write_bw", "--drop", "1.5"], ["write_bw", "--corrupt", "-0.1"],
                 ["write_bw", "--duplicate", "nan"], ["write_bw", "--reorder", "x"],
                 ["write_bw", "--reorder-depth", "0"], ["write_bw", "--ack-timeout", "32"],
                 ["write_bw", "--retry-count", "8"], ["write_bw", "--rnr-retry", "8"],
                 ["write_bw", "--local-psn", "16777216"], ["write_bw", "--remote-psn", "-1"]):
        rc, out, err = run(*args)
        check(rc == 2 and err.startswith("ndkperf: ") and out == "",
              f"ndkperf {' '.join(args)}: usage error, exit 2 (got {rc}: {err.splitlines()[0] if err else ''})")

    print(f"ndkperf_check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
