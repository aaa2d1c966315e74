#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs, only those that are missing.
# The kernel source package is pinned in scripts/version.mk; when the archive
# no longer has that exact version, install the newest 6.12 and say so loudly.
set -eu
cd "$(dirname "$0")/.."
pkg=$(sed -n 's/^KERNEL_PKG := //p' scripts/version.mk)
want=$(sed -n 's/^KERNEL_PKG_VERSION := //p' scripts/version.mk)

tools="qemu-system-x86 busybox-static gcc make flex bison bc libelf-dev
       libssl-dev libc6-dev cpio xz-utils ccache patch perl python3 e2fsprogs"

installed() { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null; }

missing=""
for p in $tools; do
	case "$(installed "$p")" in
	"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

have=$(installed "$pkg" | sed -n 's/^install ok installed //p')
if [ "$have" != "$want" ] || [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	if [ "$have" != "$want" ]; then
		if apt-cache madison "$pkg" | awk '{print $3}' | grep -qxF "$want"; then
			missing="$missing $pkg=$want"
		elif [ -z "$have" ]; then
			echo "deps: WARNING: $pkg $want is no longer in the archive;" \
			     "installing the newest 6.12 instead" >&2
			missing="$missing $pkg"
		else
			echo "deps: WARNING: $pkg $want is not available;" \
			     "keeping installed $have" >&2
		fi
	fi
	if [ -n "$missing" ]; then
		echo "deps: installing$missing"
		apt-get install -y -q --no-install-recommends $missing >/dev/null
	fi
fi
# QEMU 9 or newer: bookworm's 7.2 runs the int3 of a guest's text_poke_bp()
# after the patch is done under multi-threaded TCG (Oops: int3 at a static
# key of a CONFIG_JUMP_LABEL kernel).  Backports has 10.0; /etc/apt is left
# as it is (a list of our own, beside the system's).
qemu_new() {
	dpkg --compare-versions "$(dpkg-query -W -f='${Version}' \
		qemu-system-x86 2>/dev/null || echo 0)" ge 1:9
}
if ! qemu_new; then
	. /etc/os-release
	bpo=${VERSION_CODENAME:-bookworm}-backports
	list=$(mktemp)
	trap 'rm -f "$list"' EXIT
	[ -f /etc/apt/sources.list ] && cat /etc/apt/sources.list >"$list"
	echo "deb http://deb.debian.org/debian $bpo main" >>"$list"
	apt_bpo() {
		apt-get -o Dir::Etc::sourcelist="$list" \
			-o APT::Get::List-Cleanup=0 "$@"
	}
	export DEBIAN_FRONTEND=noninteractive
	echo "deps: installing qemu-system-x86 from $bpo"
	if ! apt_bpo update -q >/dev/null ||
	   ! apt_bpo install -y -q --no-install-recommends -t "$bpo" \
		qemu-system-x86 >/dev/null; then
		echo "deps: WARNING: no QEMU >= 9 from $bpo; boot.sh falls" \
		     "back to single-threaded TCG" >&2
	fi
fi
exit 0
