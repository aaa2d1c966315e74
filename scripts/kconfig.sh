#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make $OBJ/.config from tinyconfig plus the fragments given as arguments,
# merged with the kernel's own merge_config.sh, then check that every option
# the fragments ask for really took effect: merge_config.sh and olddefconfig
# silently drop an option whose dependencies are not met.
# The .config is regenerated only when the fragments change.
set -eu
TREE=${TREE:?}
OBJ=${OBJ:?}
mkdir -p "$OBJ"
hash=$( (echo "$*"; cat "$@") | sha1sum | cut -d' ' -f1)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.fragments" 2>/dev/null)" != "$hash" ]; then
	echo "  CONFIG  $OBJ from tinyconfig +$(for f; do printf ' %s' "$(basename "$f")"; done)"
	make -s -C "$TREE" O="$OBJ" tinyconfig >/dev/null
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$@" >/dev/null
	make -s -C "$TREE" O="$OBJ" olddefconfig >/dev/null
	echo "$hash" >"$OBJ/.fragments"
fi
bad=0
for frag; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		got=$(grep -E "^($sym=|# $sym is not set)" "$OBJ/.config" || true)
		# An unset option that does not appear at all is unset too.
		[ -z "$got" ] && case "$line" in "# "*) got=$line ;; esac
		if [ "$got" != "$line" ]; then
			echo "kconfig: $(basename "$frag"): wanted '$line', got '${got:-nothing}'" >&2
			bad=1
		fi
	done <"$frag"
done
if [ $bad -ne 0 ]; then
	echo "kconfig: some options did not take effect (unmet dependencies?)" >&2
	rm -f "$OBJ/.fragments"
	exit 1
fi
