#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make test's interoperability run (docs/interop.md): tools/interop/interop.py with its
defaults (every case; perftest with -n 100, seed 1). Runs in the guest of tools/guest/guest.sh
under QEMU; NDK_INTEROP=0, or NDK_TEST_GUEST=0 (no guest runs at all), skips it (and says so)."""
import os
import subprocess
import sys

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
if os.environ.get("NDK_INTEROP", "1") == "0" or os.environ.get("NDK_TEST_GUEST", "1") == "0":
    print("interop_check: skipped (NDK_INTEROP=0 or NDK_TEST_GUEST=0)")
    sys.exit(0)
sys.exit(subprocess.call([os.path.join(root, "tools", "interop", "interop.py"), "--seed", "1"]))
