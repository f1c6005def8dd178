#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Make sure the Debian packages ndknic needs are installed; install the missing ones.
#
#   tools/deps.sh          check, install what is missing (sudo when not root), check versions
#
# It runs at the start of `make run` and `make test`, so the common case (everything present)
# costs one dpkg-query and three version queries. Exit status: 0 when everything needed is
# installed (a different tool version is only a warning), 1 otherwise.
set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Tested tool versions: the one place they are recorded. Other versions get a warning, not a
# failure: the SystemVerilog subset in STYLE.md was measured against exactly these.
#   tool           tested   how the installed version is read
TESTED_VERSIONS=(
	"verilator     5.006    verilator --version          (Verilator 5.006 2023-01-22 ...)"
	"yosys         0.23     yosys -V                     (Yosys 0.23 (git sha1 ...))"
	"criterion     2.4.1    pkg-config --modversion criterion"
	"clang-format  14       clang-format --version       (major version; decides make lint)"
)
# The Debian packages (bookworm names) the build, tests, lint, synthesis and plots use.
PACKAGES=(
	verilator yosys z3 iverilog g++ make pkg-config python3 python3-venv
	libcriterion-dev libpciaccess-dev zlib1g-dev clang-format gnuplot-nox tshark
	qemu-system-x86 cpio tcl
	ibverbs-utils perftest ibverbs-providers iproute2
	clang-14 libclang-rt-14-dev
)
# Answers to the debconf questions the packages above ask, so an install never stops to ask:
# wireshark-common (pulled in by tshark) asks whether non-root users may capture packets. The
# tests only read pcap files, so no: no setuid dumpcap, no wireshark group.
DEBCONF_SELECTIONS=(
	"wireshark-common wireshark-common/install-setuid boolean false"
)
# ---------------------------------------------------------------------------------------------

say() { printf 'deps: %s\n' "$*"; }
warn() { printf 'deps: warning: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

tested() { # tested <tool>: the tested version from the table
	local row
	for row in "${TESTED_VERSIONS[@]}"; do
		read -r tool version _ <<<"$row"
		if [[ $tool == "$1" ]]; then
			printf '%s' "$version"
			return
		fi
	done
}

check_version() { # check_version <tool> <installed version or empty>
	local want
	want=$(tested "$1")
	if [[ -z $2 ]]; then
		warn "could not read the $1 version (tested: $want)"
	elif [[ $2 != "$want" ]]; then
		warn "$1 $2 is installed; ndknic is tested with $want (see TESTED_VERSIONS in $0)"
	fi
}

missing_packages() { # prints the packages of PACKAGES that are not installed
	local line pkg status
	declare -A installed=()
	# One dpkg-query for all packages; unknown ones go to stderr and count as missing.
	while IFS= read -r line; do
		pkg=${line%% *}
		status=${line#* }
		pkg=${pkg%%:*} # strip an architecture qualifier (zlib1g-dev:amd64)
		[[ $status == "install ok installed" ]] && installed[$pkg]=1
	done < <(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
	for pkg in "${PACKAGES[@]}"; do
		[[ -n ${installed[$pkg]:-} ]] || printf '%s\n' "$pkg"
	done
}

install_packages() { # install_packages <pkg>...: one apt-get update, one apt-get install
	local sudo=()
	local cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $*"
	if [[ $(id -u) -ne 0 ]]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo=(sudo)
		else
			die "missing packages: $*; not root and no sudo. Install them with (as root):
    $cmd"
		fi
	fi
	say "installing: $*"
	# Preseed the answers (DEBIAN_FRONTEND=noninteractive alone would also take the defaults;
	# preseeding makes the answer ours, not the package's).
	if command -v debconf-set-selections >/dev/null 2>&1; then
		printf '%s\n' "${DEBCONF_SELECTIONS[@]}" | "${sudo[@]}" debconf-set-selections ||
			warn "debconf-set-selections failed; installing with the packages' defaults"
	fi
	if ! "${sudo[@]}" apt-get update ||
		! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends "$@"; then
		die "installing packages failed. The command was (as root):
    $cmd"
	fi
}

if command -v dpkg-query >/dev/null 2>&1; then
	mapfile -t missing < <(missing_packages)
	if ((${#missing[@]})); then
		install_packages "${missing[@]}"
		mapfile -t missing < <(missing_packages)
		((${#missing[@]} == 0)) || die "still missing after install: ${missing[*]}"
	fi
else
	# Not Debian: we cannot install, but we can tell whether the tools are there.
	warn "no dpkg-query: not a Debian system; checking for the tools only"
	for tool in verilator yosys iverilog g++ make pkg-config python3 clang-format tshark; do
		command -v "$tool" >/dev/null 2>&1 ||
			die "$tool not found; install the equivalents of: ${PACKAGES[*]}"
	done
	pkg-config --exists criterion libpciaccess zlib ||
		die "Criterion, libpciaccess or zlib development files not found (pkg-config)"
fi

# tools/genformats.py reads TOML with tomllib (Python 3.11+).
python3 -c 'import tomllib' 2>/dev/null || die "python3 >= 3.11 is needed (tomllib)"

v=$(verilator --version 2>/dev/null | awk '{print $2; exit}') || v=
check_version verilator "$v"
v=$(yosys -V 2>/dev/null | awk '{print $2; exit}') || v=
check_version yosys "$v"
v=$(pkg-config --modversion criterion 2>/dev/null) || v=
check_version criterion "$v"
v=$(clang-format --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p') || v=
check_version clang-format "$v"
say "ok (${#PACKAGES[@]} packages present)"
