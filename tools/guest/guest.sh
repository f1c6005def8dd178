#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The Linux guest in which libndk's pci backend meets the simulated NIC as a PCI device
# (docs/guest.md).
#
#   tools/guest/guest.sh build
#       Build the guest image from Debian packages into build/guest/ (cached: a second build
#       costs nothing): the kernel of linux-image-amd64 and the modules listed in
#       GUEST_MODULES, extracted from the .debs (nothing is installed on the host), and
#       busybox-static, packed with tools/guest/init into an initramfs.
#   tools/guest/guest.sh run [--timeout S] [--no-device] [--hugepages N] [--file PATH]...
#                            [--env NAME=VALUE]... [--module NAME]... [--qemu ARG]...
#                            -- PROGRAM [ARGS...]
#       Boot the guest with the device server's NIC attached (build/bin/ndk-devserver, QEMU's
#       x-pci-proxy-dev) and run PROGRAM in it as root. PROGRAM and every --file are copied
#       into the guest with the shared libraries ldd finds for them, at their host paths; the
#       guest's working directory is PROGRAM's directory. The program's output is printed,
#       and the script exits with its exit status (124 when the run did not finish within
#       --timeout seconds of wall time, 125 when the guest could not be booted, 70 when the
#       program passed but the device server stopped the NIC on a fatal error). The device
#       server's report (doorbells, DMA, refused DMA, MSI-X messages) goes to stderr.
#       --module NAME: a kernel module of the image's kernel loaded (with its dependencies)
#       before PROGRAM runs, for this run only (the interop runs load rdma_rxe, ib_uverbs).
#       --qemu ARG: one more argument for QEMU (network devices: docs/interop.md).
#
# Environment: NDK_GUEST_DIR (default build/guest), NDK_GUEST_MEM (MiB, default 512),
# NDK_DEVSERVER_ARGS (extra options for the device server), QEMU (default qemu-system-x86_64).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
GUEST_DIR=${NDK_GUEST_DIR:-$root/build/guest}
MEM=${NDK_GUEST_MEM:-512}
QEMU=${QEMU:-qemu-system-x86_64}
DEVSERVER=${NDK_DEVSERVER:-$root/build/bin/ndk-devserver}
# The packages of the guest image, pinned: a different Debian point release is a new image.
KERNEL_META=linux-image-amd64
BUSYBOX=busybox-static
# Kernel modules loaded at boot (with their dependencies from modules.dep). virtio_net: the
# guest's network interface that the NIC's port can be wired to (docs/guest.md).
GUEST_MODULES=(virtio_net)

die() { printf 'guest: error: %s\n' "$*" >&2; exit 125; }
say() { printf 'guest: %s\n' "$*" >&2; }

# ---- build ------------------------------------------------------------------------------------
build() {
	local stamp=$GUEST_DIR/image.stamp want kver kpkg debs tree mod f
	command -v apt-get >/dev/null || die "apt-get is needed to fetch the guest's packages"
	command -v cpio >/dev/null || die "cpio is needed (make deps installs it)"
	kpkg=$(kernel_package)
	if [[ -z $kpkg && $(id -u) -eq 0 ]]; then
		# a machine whose package lists were never fetched (a fresh container)
		say "apt-cache does not know $KERNEL_META: apt-get update"
		apt-get update -qq >/dev/null 2>&1 || true
		kpkg=$(kernel_package)
	fi
	[[ -n $kpkg ]] || die "apt-cache does not know $KERNEL_META (run apt-get update as root)"
	want="$kpkg $(apt-cache policy "$kpkg" | sed -n 's/ *Candidate: //p') $BUSYBOX $(apt-cache policy $BUSYBOX | sed -n 's/ *Candidate: //p') ${GUEST_MODULES[*]} $(sha256sum "$root/tools/guest/init" | cut -c1-16)"
	if [[ -f $stamp && $(cat "$stamp") == "$want" && -f $GUEST_DIR/vmlinuz && -f $GUEST_DIR/base.cpio && -f $GUEST_DIR/kver ]]; then
		return 0
	fi
	say "building the guest image in $GUEST_DIR ($want)"
	rm -rf "$GUEST_DIR/debs" "$GUEST_DIR/tree" "$GUEST_DIR/kernel"
	mkdir -p "$GUEST_DIR/debs" "$GUEST_DIR/kernel"
	debs=$GUEST_DIR/debs
	# apt-get download writes into the current directory (as _apt when it can: give it the
	# directory)
	(cd "$debs" && apt-get download -q "$kpkg" "$BUSYBOX" >/dev/null 2>"$debs/apt.log") ||
		{ cat "$debs/apt.log" >&2; die "apt-get download failed"; }
	dpkg-deb -x "$debs"/linux-image-*.deb "$GUEST_DIR/kernel"
	kver=$(ls "$GUEST_DIR/kernel/lib/modules")
	cp "$GUEST_DIR/kernel/boot/vmlinuz-$kver" "$GUEST_DIR/vmlinuz"

	tree=$GUEST_DIR/tree
	mkdir -p "$tree"/{bin,sbin,dev,proc,sys,tmp,root,etc,mnt/huge,lib/modules/"$kver"}
	dpkg-deb -x "$debs"/busybox-static_*.deb "$debs/busybox"
	cp "$debs/busybox/bin/busybox" "$tree/bin/busybox"
	"$tree/bin/busybox" --list | while read -r f; do
		[[ $f == busybox ]] || ln -sf busybox "$tree/bin/$f"
	done
	cp "$root/tools/guest/init" "$tree/init"
	chmod 755 "$tree/init"
	# the modules and what they depend on, in load order
	: >"$tree/etc/modules"
	for mod in "${GUEST_MODULES[@]}"; do
		modules_of "$GUEST_DIR/kernel/lib/modules/$kver" "$mod" >>"$tree/etc/modules"
	done
	while read -r f; do
		mkdir -p "$tree/lib/modules/$kver/$(dirname "$f")"
		cp "$GUEST_DIR/kernel/lib/modules/$kver/$f" "$tree/lib/modules/$kver/$f"
	done < <(awk '!seen[$0]++' "$tree/etc/modules")
	awk '!seen[$0]++' "$tree/etc/modules" >"$tree/etc/modules.tmp" && mv "$tree/etc/modules.tmp" "$tree/etc/modules"
	(cd "$tree" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) >"$GUEST_DIR/base.cpio"
	# the kernel's modules stay for `run --module` (modules of this run only)
	rm -rf "$GUEST_DIR/modules" && mv "$GUEST_DIR/kernel/lib/modules/$kver" "$GUEST_DIR/modules"
	printf '%s\n' "$kver" >"$GUEST_DIR/kver"
	rm -rf "$GUEST_DIR/kernel/lib" "$debs/busybox"
	printf '%s\n' "$want" >"$stamp"
	say "guest image ready: $(du -sh "$GUEST_DIR/vmlinuz" | cut -f1) kernel, $(du -sh "$GUEST_DIR/base.cpio" | cut -f1) initramfs"
}

# the versioned kernel package the meta package depends on (linux-image-6.1.0-NN-amd64)
kernel_package() {
	apt-cache depends "$KERNEL_META" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -n1
}

# modules_of <moddir> <name>: the module's dependencies (depth first, from the depends= of its
# .modinfo: the .deb has no modules.dep, and there is no depmod on the host), then the module,
# as paths relative to moddir. A module built into the kernel is not listed.
modules_of() {
	local dir=$1 name=$2 path d
	if grep -qE "/${name//_/[_-]}\.ko\$" "$dir/modules.builtin"; then
		return 0
	fi
	path=$(cd "$dir" && find kernel -name "$name.ko" -o -name "${name//_/-}.ko" | head -n1)
	[[ -n $path ]] || die "no kernel module $name"
	for d in $(tr '\0' '\n' <"$dir/$path" | sed -n 's/^depends=//p' | tr ',' ' '); do
		modules_of "$dir" "$d"
	done
	printf '%s\n' "$path"
}

# ---- run --------------------------------------------------------------------------------------
# add_file <tree> <path>: the file and the shared libraries it needs, at their host paths
add_file() {
	local tree=$1 path=$2 lib
	mkdir -p "$tree$(dirname "$path")"
	cp -L "$path" "$tree$path"
	while read -r lib; do
		[[ -e $tree$lib ]] && continue
		mkdir -p "$tree$(dirname "$lib")"
		cp -L "$lib" "$tree$lib"
	done < <(ldd "$path" 2>/dev/null | grep -o '/[^ ]*' | sort -u)
}

run() {
	local timeout=600 device=1 hugepages=64 files=() envs=() modules=() qargs=() prog rc out f m
	while (($#)); do
		case $1 in
		--timeout) timeout=$2; shift 2 ;;
		--no-device) device=0; shift ;;
		--hugepages) hugepages=$2; shift 2 ;;
		--file) files+=("$(realpath "$2")"); shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		--module) modules+=("$2"); shift 2 ;;
		--qemu) qargs+=("$2"); shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	(($#)) || die "run: no program given"
	prog=$(realpath "$(command -v "$1" || echo "$1")")
	[[ -x $prog ]] || die "run: $1 is not an executable file"
	shift
	build
	command -v "$QEMU" >/dev/null || die "$QEMU not found (make deps installs qemu-system-x86)"
	((device == 0)) || [[ -x $DEVSERVER ]] || die "$DEVSERVER is missing (make build-tests builds it)"

	job=$(mktemp -d "${TMPDIR:-/tmp}/ndk-guest.XXXXXX")
	trap 'rm -rf "${job:-}"' EXIT
	mkdir -p "$job/tree/etc"
	add_file "$job/tree" "$prog"
	for f in "${files[@]}"; do
		add_file "$job/tree" "$f"
	done
	# the modules of this run, after those of the image (modules_of lists dependencies first)
	local kver=
	if ((${#modules[@]})); then
		[[ -d $GUEST_DIR/modules ]] || die "run --module: no kernel modules in $GUEST_DIR (rebuild: rm $GUEST_DIR/image.stamp)"
		kver=$(cat "$GUEST_DIR/kver")
		for m in "${modules[@]}"; do
			modules_of "$GUEST_DIR/modules" "$m"
		done | awk '!seen[$0]++' >"$job/modules"
		while read -r f; do
			mkdir -p "$job/tree/lib/modules/$kver/$(dirname "$f")"
			cp "$GUEST_DIR/modules/$f" "$job/tree/lib/modules/$kver/$f"
		done <"$job/modules"
	fi
	{
		if [[ -n $kver ]]; then
			while read -r f; do
				# already loaded by the image (or a dependency of two): not an error
				echo "grep -q '^$(basename "${f%.ko}" | tr - _) ' /proc/modules || insmod /lib/modules/$kver/$f"
			done <"$job/modules"
		fi
		echo "cd $(printf '%q' "$(dirname "$prog")")"
		echo "echo $hugepages > /proc/sys/vm/nr_hugepages"
		for f in "${envs[@]}"; do
			echo "export $(printf '%q' "$f")"
		done
		printf '%q ' "$prog" "$@"
		echo
	} >"$job/tree/etc/job"
	(cd "$job/tree" && find . -print0 | cpio --null -o -H newc --quiet) >"$job/job.cpio"
	cat "$GUEST_DIR/base.cpio" "$job/job.cpio" >"$job/initrd"

	# no_timer_check: under TCG on a loaded host the kernel's check that the IO-APIC timer ticks
	# can miss its window and panic ("IO-APIC + timer doesn't work!"); the check is for broken
	# real chipsets, not for QEMU's emulated one.
	local qemu=("$QEMU" -machine pc,accel=tcg,memory-backend=ram0 -cpu max -smp 1 -m "$MEM"
		-object "memory-backend-memfd,id=ram0,size=${MEM}M,share=on"
		-kernel "$GUEST_DIR/vmlinuz" -initrd "$job/initrd"
		-append "console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check rdinit=/init"
		-nographic -no-reboot -nodefaults -serial stdio -net none "${qargs[@]}")
	set +e
	if ((device)); then
		# the device server starts QEMU and hands it its end of the socket (fd=@FD@)
		out=$(timeout --kill-after=5 "$timeout" "$DEVSERVER" ${NDK_DEVSERVER_ARGS:-} -- \
			"${qemu[@]}" -device x-pci-proxy-dev,id=ndknic,fd=@FD@ </dev/null)
	else
		out=$(timeout --kill-after=5 "$timeout" "${qemu[@]}" </dev/null)
	fi
	rc=$?
	set -e
	out=${out//$'\r'/}
	[[ -z ${NDK_GUEST_RAW:-} ]] || printf "%s\n" "$out" >"$NDK_GUEST_RAW"
	if ((rc == 124 || rc == 137)); then
		printf '%s\n' "$out" | sed -n '/ndk-guest: job start$/,$p' | sed '1d'
		say "the run did not finish within $timeout s"
		return 124
	fi
	if ! grep -q '^ndk-guest: job exit [0-9]*$' <<<"$out"; then
		printf '%s\n' "$out"
		die "the guest did not run the job (QEMU exit status $rc)"
	fi
	printf '%s\n' "$out" | sed -n '/ndk-guest: job start$/,/^ndk-guest: job exit [0-9]*$/p' | sed '1d;$d'
	local server_rc=$rc
	rc=$(sed -n 's/^ndk-guest: job exit \([0-9]*\)$/\1/p' <<<"$out" | tail -n1)
	# the device server stopped the NIC on a fatal error (its report above says which): a
	# failure even when the program did not notice
	if ((device && server_rc == 70 && rc == 0)); then
		say "the device server stopped the NIC (see its report)"
		return 70
	fi
	return "$rc"
}

case ${1:-} in
build) build ;;
run) shift; run "$@" ;;
*)
	sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
