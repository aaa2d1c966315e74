// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test: the guest booted the kernel this tree built, with every CPU
 * that qemu gave it, and with the container filesystem exactly when the
 * configuration has CONFIG_CONTAINERS (so that a kernel that lost it does
 * not pass by skipping every other test).
 */
#include <sys/utsname.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"

TEST(kernel_is_6_12)
{
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	TH_LOG("running %s %s", u.sysname, u.release);
	EXPECT_EQ(0, strncmp(u.release, "6.12.", 5));
}

TEST(all_cpus_online)
{
	const char *want = getenv("EXPECT_CPUS");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (!want)
		SKIP(return, "EXPECT_CPUS not set by the harness");
	EXPECT_EQ(atol(want), n);
}

TEST(container_fs_as_configured)
{
	const char *want = getenv("EXPECT_CONTAINERS");
	char buf[4096];
	size_t n;
	FILE *f;

	if (!want || !*want)
		SKIP(return, "EXPECT_CONTAINERS not set by the harness");
	f = fopen("/proc/filesystems", "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	EXPECT_EQ(atoi(want), !!strstr(buf, "\tcontainer\n"));
}

TEST_HARNESS_MAIN
