# The one place where the base kernel is pinned.
# Debian's linux-source-6.12 package version this series is developed against.
KERNEL_PKG := linux-source-6.12
KERNEL_PKG_VERSION := 6.12.118-1~deb12u1
