# SPDX-License-Identifier: GPL-2.0
# Helpers shared by prepare.sh and refresh.sh (sourced, not run).

# Patches named by $1/series, in order; blank lines and comments ignored.
series_patches() {
	[ -f "$1/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series"
}

# Files a unified diff touches (paths without the a/ b/ prefix).
patch_files() {
	sed -n -e 's/^+++ b\/\([^[:space:]]*\).*/\1/p' \
	       -e 's/^--- a\/\([^[:space:]]*\).*/\1/p' "$1" | sort -u
}

# New files of the overlay: everything under the in-tree folders of the repo.
overlay_files() {
	(cd "$1" && for d in $OVERLAY_DIRS; do
		[ -d "$d" ] && find "$d" -type f ! -name '*~' ! -name '.*.swp' \
			! -name '*.o' ! -name '*.orig' ! -name '*.rej'
	done) | sort
}

OVERLAY_DIRS="arch block Documentation fs include init kernel lib mm net \
security tools"
