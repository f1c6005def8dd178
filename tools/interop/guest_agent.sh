#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The interop guest's agent (busybox sh, run by tools/guest/guest.sh inside the guest;
# docs/interop.md). Sets up the wire's interface (eth0: 10.0.0.100, a static neighbour entry
# for ndknic's 10.0.0.1, which answers no ARP) and soft-RoCE on it (rdma link add rxe0), then
# runs the commands the host's driver (tools/interop/interop.py) hands out over HTTP on the
# second interface (eth1, QEMU user networking: the host is 10.0.2.2), one at a time, and
# posts back each one's output and exit status, until it is told "exit".
#
#   guest_agent.sh CONTROL_PORT
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
ctl=http://10.0.2.2:$1
set -u
# no IPv6 on the wire: its neighbour discovery would be the only frames that are not RoCE
echo 1 >/proc/sys/net/ipv6/conf/eth0/disable_ipv6
ip link set eth0 up && ip addr add 10.0.0.100/24 dev eth0 || exit 10
ip link set eth1 up && ip addr add 10.0.2.15/24 dev eth1 || exit 11
arp -i eth0 -s 10.0.0.1 02:00:00:00:00:01 || exit 12
rdma link add rxe0 type rxe netdev eth0 || exit 13
# the RoCEv2 GID of the interface's IPv4 address (::ffff:10.0.0.100): its index for -g / -x
GIDX=
i=0
while [ -e /sys/class/infiniband/rxe0/ports/1/gids/$i ]; do
	if [ "$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i)" = "0000:0000:0000:0000:0000:ffff:0a00:0064" ]; then
		GIDX=$i
		break
	fi
	i=$((i + 1))
done
[ -n "$GIDX" ] || { echo "no IPv4 GID on rxe0"; ls /sys/class/infiniband/rxe0/ports/1/gids; exit 14; }
export GIDX
echo "interop-agent: rxe0 up, GID index $GIDX ($(uname -r))"
n=0
while :; do
	n=$((n + 1))
	wget -q -O /tmp/cmd "$ctl/next?n=$n" || { echo "interop-agent: control lost"; exit 15; }
	[ "$(cat /tmp/cmd)" = exit ] && break
	sh /tmp/cmd >/tmp/out 2>&1
	echo "interop-agent-rc=$?" >>/tmp/out
	wget -q -O /dev/null --post-file=/tmp/out "$ctl/result?n=$n" || { echo "interop-agent: control lost"; exit 15; }
done
echo "interop-agent: done"
