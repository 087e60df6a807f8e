/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include "topo.h"

/* The i-th CPU (mod count) in the process affinity mask, or -1. */
static int topo_nth_cpu(int i)
{
	cpu_set_t set;
	int count, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	count = CPU_COUNT(&set);
	if (count < 1)
		return -1;
	i %= count;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && seen++ == i)
			return cpu;
	return -1;
}

int topo_nr_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

int topo_pin_self(int i)
{
	cpu_set_t set;
	int cpu = topo_nth_cpu(i), err;

	if (cpu < 0)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return err ? -err : cpu;
}

int topo_current_cpu(void)
{
	return sched_getcpu();
}
