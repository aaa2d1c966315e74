/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The list of container subsystems.  Each SUBSYS(x) line gives the
 * subsystem "x", defined as struct container_subsys x_subsys, an id
 * x_subsys_id and a slot in every css_group.  No include guard: the file is
 * included several times with different definitions of SUBSYS().
 */
#if IS_ENABLED(CONFIG_CONTAINER_CPUSET)
SUBSYS(cpuset)
#endif
#if IS_ENABLED(CONFIG_CONTAINER_CPUACCT)
SUBSYS(cpuacct)
#endif
#if IS_ENABLED(CONFIG_CONTAINER_MEM)
SUBSYS(mem)
#endif
#if IS_ENABLED(CONFIG_CONTAINER_DEBUG)
SUBSYS(debug)
#endif
#if IS_ENABLED(CONFIG_CONTAINER_NS)
SUBSYS(ns)
#endif
#if IS_ENABLED(CONFIG_CONTAINER_PIDS)
SUBSYS(pids)
#endif
