/* SPDX-License-Identifier: MIT */
/*
 * rt.c - the footprint recorder: the runtime the instrumented copy of libctr
 * (build/proj/libctr_proj.o) links against instead of libtsan.
 *
 * GCC's -fsanitize=thread puts a call before every load and store of the
 * code (__tsan_readN/__tsan_writeN) and turns every atomic into a call
 * (__tsan_atomicN_op) that must do the operation itself.  The build renames
 * those calls, and the code's calls to the allocator, pthread locks and
 * condition variables, semaphores, clocks, yields and syscall(), to
 * proj_<name>, all defined here.  So this file is the "ACCESS(addr, kind)"
 * hook of the issue, with no edit to counters/: each access the real code
 * makes is reported to the model (proj_sim_access) when it falls in an
 * allocation the instrumented code made (the tree's own memory), and is
 * ignored otherwise (the stack, the algorithm tables).
 *
 * Everything here runs on one real thread: every virtual thread, the ones
 * the code starts (rstat's periodic flusher) included, is a coroutine of
 * the model's (sched.c), so no access needs a lock.  Locks, semaphores and
 * condition variables are the model's (sync.c): never blocking for real,
 * they block the virtual thread.  Outside a projection (the footprint
 * tests) the calls do what the real ones would on one thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim_internal.h"

/* ---- the tree's allocations ---- */

struct proj_region {
	uintptr_t lo, hi;	/* [lo, hi) */
	int index;		/* allocation order since proj_rt_reset */
	int home;		/* NUMA node (OS index) it was bound to, -1: first touch */
};

static struct proj_region *rt_regions;	/* sorted by lo */
static int rt_nr, rt_cap, rt_next_index;
static int rt_recording;
#define CTR_RT_ROUND(x) (((x) + 15) & ~(size_t)15)
static void rt_arena_reset(void);	/* the allocator's, below */
static struct proj_access *rt_trace;
static int rt_trace_cap, rt_trace_len;

/*
 * The region of a recent lookup, by the address's 64-byte line: threads
 * take turns on their own allocations (a slot each), so one hint for all
 * would miss at nearly every switch.  An entry is only a guess, checked
 * against the region it names (regions never overlap, so the one that holds
 * an address is the answer, whatever moved since); the regions beside it
 * are tried next (small allocations share a line).
 */
#define RT_HINTS 4096
static int rt_hint[RT_HINTS];

static inline int *rt_hint_of(uintptr_t a)
{
	return &rt_hint[(a >> 6) & (RT_HINTS - 1)];
}

static int rt_find(uintptr_t a)
{
	int lo = 0, hi = rt_nr - 1, *h = rt_hint_of(a);

	for (int k = *h - 1; k <= *h + 1; k++)
		if (k >= 0 && k < rt_nr && a >= rt_regions[k].lo && a < rt_regions[k].hi)
			return *h = k;
	if (sim.cur && a - (uintptr_t)sim.cur->stack < sim.cur->stack_size)
		return -1;	/* the running fiber's locals (its stack is mapped among the allocations) */
	if (!rt_nr || a < rt_regions[0].lo || a >= rt_regions[rt_nr - 1].hi)
		return -1;	/* the stacks, the tables: below or above every allocation */
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (a < rt_regions[mid].lo)
			hi = mid - 1;
		else if (a >= rt_regions[mid].hi)
			lo = mid + 1;
		else
			return *h = mid;
	}
	return -1;
}

static void rt_add(void *p, size_t size)
{
	uintptr_t lo = (uintptr_t)p;
	int i;

	if (!p || !size)
		return;
	if (rt_nr == rt_cap) {
		int cap = rt_cap ? 2 * rt_cap : 256;
		struct proj_region *n = realloc(rt_regions, sizeof(*n) * cap);

		if (!n)
			abort();	/* the model cannot go on without knowing the tree's memory */
		rt_regions = n;
		rt_cap = cap;
	}
	for (i = rt_nr; i > 0 && rt_regions[i - 1].lo > lo; i--)
		rt_regions[i] = rt_regions[i - 1];
	rt_regions[i] = (struct proj_region){ lo, lo + size, rt_next_index++, -1 };
	rt_nr++;
}

static void rt_remove(void *p)
{
	int i = p ? rt_find((uintptr_t)p) : -1;

	if (i < 0)
		return;
	memmove(&rt_regions[i], &rt_regions[i + 1], sizeof(*rt_regions) * (rt_nr - i - 1));
	rt_nr--;
}

void proj_rt_reset(void)
{
	rt_arena_reset();
	rt_nr = 0;
	rt_next_index = 0;
	rt_trace_len = 0;
}

void proj_rt_record(int on)
{
	rt_recording = on;
}

void proj_rt_trace(struct proj_access *buf, int cap)
{
	rt_trace = buf;
	rt_trace_cap = buf ? cap : 0;
	rt_trace_len = 0;
}

int proj_rt_trace_len(void)
{
	return rt_trace_len;
}

int proj_rt_region_of(uintptr_t addr)
{
	int i = rt_find(addr);

	return i < 0 ? -1 : rt_regions[i].index;
}

int proj_rt_home_of(uintptr_t addr)
{
	int i = rt_find(addr);

	return i < 0 ? -1 : rt_regions[i].home;
}

static inline void rt_access(const volatile void *p, unsigned size, int kind)
{
	uintptr_t a = (uintptr_t)p;
	int i;

	if (!rt_recording)
		return;
	i = rt_find(a);
	if (i < 0)
		return;
	if (rt_trace && rt_trace_len < rt_trace_cap)
		rt_trace[rt_trace_len++] = (struct proj_access){ a / 64, kind, rt_regions[i].index };
	proj_sim_access(a, size, kind);
}

/* ---- the TSan entry points, renamed ---- */

#define RT_RW(n)								\
	void proj___tsan_read##n(void *p);					\
	void proj___tsan_write##n(void *p);					\
	void proj___tsan_unaligned_read##n(void *p);				\
	void proj___tsan_unaligned_write##n(void *p);				\
	void proj___tsan_volatile_read##n(void *p);				\
	void proj___tsan_volatile_write##n(void *p);				\
	void proj___tsan_read##n(void *p) { rt_access(p, n, PROJ_LOAD); }	\
	void proj___tsan_write##n(void *p) { rt_access(p, n, PROJ_STORE); }	\
	void proj___tsan_unaligned_read##n(void *p) { rt_access(p, n, PROJ_LOAD); } \
	void proj___tsan_unaligned_write##n(void *p) { rt_access(p, n, PROJ_STORE); } \
	void proj___tsan_volatile_read##n(void *p) { rt_access(p, n, PROJ_LOAD); } \
	void proj___tsan_volatile_write##n(void *p) { rt_access(p, n, PROJ_STORE); }
RT_RW(1) RT_RW(2) RT_RW(4) RT_RW(8) RT_RW(16)

void proj___tsan_read_range(void *p, unsigned long size);
void proj___tsan_write_range(void *p, unsigned long size);
void proj___tsan_read_range(void *p, unsigned long size)
{
	for (unsigned long o = 0; o < size; o += 64)
		rt_access((char *)p + o, 1, PROJ_LOAD);
}
void proj___tsan_write_range(void *p, unsigned long size)
{
	for (unsigned long o = 0; o < size; o += 64)
		rt_access((char *)p + o, 1, PROJ_STORE);
}

void proj___tsan_init(void);
void proj___tsan_func_entry(void *pc);
void proj___tsan_func_exit(void);
void proj___tsan_vptr_update(void **p, void *v);
void proj___tsan_init(void) { }
void proj___tsan_func_entry(void *pc) { (void)pc; }
void proj___tsan_func_exit(void) { }
void proj___tsan_vptr_update(void **p, void *v) { *p = v; }

/* mo (GCC's __ATOMIC_* order) acquires: an exchange with it setting 0 to nonzero takes a test-and-set lock. */
static inline int rt_acquires(int mo)
{
	return mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST;
}

/*
 * Atomics: do the operation (one real thread runs at a time, so a plain
 * __atomic builtin, relaxed, is enough) and report it.
 */
#define RT_ATOMIC(n, T)								\
	T proj___tsan_atomic##n##_load(const volatile T *a, int mo);		\
	void proj___tsan_atomic##n##_store(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_exchange(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo);	\
	T proj___tsan_atomic##n##_fetch_nand(volatile T *a, T v, int mo);	\
	int proj___tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo); \
	int proj___tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo); \
	T proj___tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo); \
	T proj___tsan_atomic##n##_load(const volatile T *a, int mo)		\
	{ T v; (void)mo; rt_access(a, n / 8, PROJ_LOAD); v = __atomic_load_n(a, __ATOMIC_RELAXED); \
	  if (v && rt_recording) { proj_sim_flag_busy(a); } return v; }	\
	void proj___tsan_atomic##n##_store(volatile T *a, T v, int mo)		\
	{ rt_access(a, n / 8, PROJ_STORE); __atomic_store_n(a, v, __ATOMIC_RELAXED); \
	  if (!v && rt_recording) { proj_sim_flag(a, 0); }			\
	  if (mo == __ATOMIC_SEQ_CST) rt_access(a, 0, PROJ_FENCE); }		\
	T proj___tsan_atomic##n##_exchange(volatile T *a, T v, int mo)	\
	{ T old; rt_access(a, n / 8, PROJ_RMW); old = __atomic_exchange_n(a, v, __ATOMIC_RELAXED); \
	  if (v && rt_recording && rt_acquires(mo)) { if (old) proj_sim_flag_busy(a); else proj_sim_flag(a, 1); } \
	  return old; }								\
	T proj___tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_fetch_nand(volatile T *a, T v, int mo)	\
	{ (void)mo; rt_access(a, n / 8, PROJ_RMW); return __atomic_fetch_nand(a, v, __ATOMIC_RELAXED); } \
	int proj___tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; rt_access(a, n / 8, PROJ_RMW);		\
	  return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); } \
	int proj___tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; rt_access(a, n / 8, PROJ_RMW);		\
	  return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); } \
	T proj___tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) \
	{ (void)mo; (void)fmo; rt_access(a, n / 8, PROJ_RMW);		\
	  __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return c; }
RT_ATOMIC(8, char) RT_ATOMIC(16, short) RT_ATOMIC(32, int) RT_ATOMIC(64, long long)

void proj___tsan_atomic_thread_fence(int mo);
void proj___tsan_atomic_signal_fence(int mo);
void proj___tsan_atomic_thread_fence(int mo)
{
	if (mo == __ATOMIC_SEQ_CST && rt_recording)
		proj_sim_access(0, 0, PROJ_FENCE);
}
void proj___tsan_atomic_signal_fence(int mo) { (void)mo; }

/* ---- the allocator: what the tree allocates is what the model tracks ---- */

void *proj_malloc(size_t n);
void *proj_calloc(size_t k, size_t n);
void *proj_realloc(void *p, size_t n);
void proj_free(void *p);
void *proj_aligned_alloc(size_t al, size_t n);
int proj_posix_memalign(void **pp, size_t al, size_t n);
void *proj_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);
int proj_munmap(void *a, size_t n);

/*
 * While a projection records, the tree's memory comes from an arena of its
 * own, handed out in order from the same place every time: where each
 * allocation lands within its lines (which fields share a line, which
 * straddle two) is then the same whatever the harness allocated before (a
 * JSON library's hashing, an earlier projection), and so are the figures.
 * Each block is 16-byte aligned with a 16-byte header, as glibc's malloc
 * gives them; a freed block is not reused within a projection (the tree's
 * blocks are few: its nodes, slots, a queued lock's waiters), and
 * proj_rt_reset returns the pages.  Outside a recording, and if the
 * arena cannot be mapped or is full, the C library's allocator serves.
 */
#define RT_ARENA_SIZE ((size_t)16 << 30)	/* reserved, not committed: pages come on first touch */
#define RT_HDR 16				/* the block's size, before it */
static char *rt_arena;
static size_t rt_arena_used;
static int rt_arena_failed;

static inline int rt_in_arena(const void *p)
{
	return rt_arena && (uintptr_t)p - (uintptr_t)rt_arena < RT_ARENA_SIZE;
}

static void *rt_arena_alloc(size_t al, size_t n)
{
	uintptr_t p;

	if (!rt_recording || rt_arena_failed)
		return NULL;
	if (!rt_arena) {
		void *m = mmap(NULL, RT_ARENA_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED) {
			rt_arena_failed = 1;
			return NULL;
		}
		rt_arena = m;
	}
	if (al < 16 || (al & (al - 1)))
		al = 16;
	p = (uintptr_t)rt_arena + rt_arena_used + RT_HDR;
	p = (p + al - 1) & ~(uintptr_t)(al - 1);
	if (n > RT_ARENA_SIZE || p - (uintptr_t)rt_arena > RT_ARENA_SIZE - n)
		return NULL;
	*(size_t *)(p - RT_HDR) = n;
	rt_arena_used = CTR_RT_ROUND(p + n - (uintptr_t)rt_arena);
	return (void *)p;
}

/* The arena empty again (a projection starts): its pages back to the system, zero when touched again. */
static void rt_arena_reset(void)
{
	if (rt_arena && rt_arena_used)
		madvise(rt_arena, rt_arena_used, MADV_DONTNEED);
	rt_arena_used = 0;
}

static void *rt_alloc(size_t al, size_t n, int zero)
{
	void *p = rt_arena_alloc(al, n);

	if (!p) {
		if (al > 16) {
			if (posix_memalign(&p, al, n))
				p = NULL;
		} else {
			p = malloc(n);
		}
		if (p && zero)
			memset(p, 0, n);
	}
	rt_add(p, n);	/* an arena block is zero: fresh pages, or returned ones */
	return p;
}

void *proj_malloc(size_t n) { return rt_alloc(16, n, 0); }
void *proj_calloc(size_t k, size_t n)
{
	if (n && k > (size_t)-1 / n)
		return NULL;
	return rt_alloc(16, k * n, 1);
}
void *proj_realloc(void *p, size_t n)
{
	void *q;

	if (!p)
		return proj_malloc(n);
	if (!rt_in_arena(p)) {
		rt_remove(p);
		q = realloc(p, n);
		rt_add(q ? q : p, q ? n : 0);
		return q;
	}
	q = rt_alloc(16, n, 0);
	if (q) {
		const size_t old = *(size_t *)((char *)p - RT_HDR);

		memcpy(q, p, old < n ? old : n);
		rt_remove(p);
	}
	return q;
}
void proj_free(void *p)
{
	rt_remove(p);
	if (p && !rt_in_arena(p))
		free(p);
}
void *proj_aligned_alloc(size_t al, size_t n) { return rt_alloc(al, n, 0); }
int proj_posix_memalign(void **pp, size_t al, size_t n)
{
	void *p = rt_alloc(al, n, 0);

	if (!p)
		return ENOMEM;
	*pp = p;
	return 0;
}
void *proj_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	void *p = mmap(a, n, prot, fl, fd, off);

	if (p != MAP_FAILED)
		rt_add(p, n);
	return p;
}
int proj_munmap(void *a, size_t n) { rt_remove(a); return munmap(a, n); }

/*
 * syscall(): mbind() binds a slot area to its slot's node, which is the
 * line's home in the model (nothing is bound for real: the modelled
 * machine's nodes are not this one's); anything else goes through.
 */
long proj_syscall(long nr, ...);
long proj_syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_mbind) {
		int r = rt_find((uintptr_t)a[0]);
		const unsigned long *mask = (const unsigned long *)a[3];
		int node = -1;

		for (long b = 0; mask && b < a[4] && node < 0; b++)
			if (mask[b / (8 * sizeof(long))] & (1UL << (b % (8 * sizeof(long)))))
				node = (int)b;
		if (r >= 0)
			rt_regions[r].home = node;
		return 0;
	}
	return syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- time: the virtual clock of the thread running ---- */

/* 1 s in, so that no clock reads 0 (some code takes 0 as "never"); a deadline converts back. */
#define RT_EPOCH_NS 1000000000.0

static inline int rt_in(void)
{
	return sim.cal != NULL;
}

static double rt_virtual(const struct timespec *ts)
{
	return (double)ts->tv_sec * 1e9 + (double)ts->tv_nsec - RT_EPOCH_NS;
}

int proj_clock_gettime(clockid_t id, struct timespec *ts);
int proj_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns;

	if (!rt_in())
		return clock_gettime(id, ts);
	ns = proj_sim_now() + (uint64_t)RT_EPOCH_NS;
	proj_sim_step();
	sim.cur->pauses_since_clock = 0;	/* a wait for a virtual time that never comes still ends (the budget) */
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
	return 0;
}
int proj_sched_yield(void);
int proj_sched_yield(void)
{
	if (rt_in()) {
		proj_sim_step();
		sim_yield_cpu();
	}
	return 0;
}
/* A sleep is off the CPU for its length, in virtual time. */
static void rt_sleep_ns(double ns)
{
	if (!rt_in())
		return;
	proj_sim_step();
	sim_sleep((double)proj_sim_now() + ns);
}
int proj_nanosleep(const struct timespec *a, struct timespec *b);
int proj_nanosleep(const struct timespec *a, struct timespec *b)
{
	(void)b;
	rt_sleep_ns((double)a->tv_sec * 1e9 + (double)a->tv_nsec);
	return 0;
}
int proj_usleep(useconds_t us);
int proj_usleep(useconds_t us)
{
	rt_sleep_ns((double)us * 1e3);
	return 0;
}

/* ---- spin-wait hints and lock roles (ctr_internal.h, CTR_PROJ) ---- */

void proj_rt_pause(void)
{
	if (rt_in() && rt_recording) {
		sim_budget_step();
		sim_pause();
	}
}

void proj_rt_preempt(int delta)
{
	if (rt_in() && sim.cal && sim.cur)
		sim.cur->nopreempt += delta;
}

void proj_rt_lock_role(const volatile void *lock, const char *role)
{
	if (rt_in())
		proj_sim_lock_role((const void *)lock, role);
}

/* ---- locks, semaphores, condition variables: the model's (sync.c) ---- */

int proj_pthread_mutex_lock(pthread_mutex_t *m);
int proj_pthread_mutex_trylock(pthread_mutex_t *m);
int proj_pthread_mutex_unlock(pthread_mutex_t *m);
int proj_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int proj_pthread_mutex_destroy(pthread_mutex_t *m);
int proj_pthread_mutexattr_init(pthread_mutexattr_t *a);
int proj_pthread_mutexattr_settype(pthread_mutexattr_t *a, int t);
int proj_pthread_mutexattr_destroy(pthread_mutexattr_t *a);
int proj_pthread_spin_lock(pthread_spinlock_t *m);
int proj_pthread_spin_trylock(pthread_spinlock_t *m);
int proj_pthread_spin_unlock(pthread_spinlock_t *m);
int proj_pthread_spin_init(pthread_spinlock_t *m, int s);
int proj_pthread_spin_destroy(pthread_spinlock_t *m);

/* pthread_once (rstat's one TSC calibration per process): no shared line, runs for real. */
int proj_pthread_once(pthread_once_t *o, void (*fn)(void));
int proj_pthread_once(pthread_once_t *o, void (*fn)(void)) { return pthread_once(o, fn); }
int proj_pthread_mutex_lock(pthread_mutex_t *m)
{
	return rt_in() ? proj_sim_mutex_lock(m, 0, 0) : pthread_mutex_lock(m);
}
int proj_pthread_mutex_trylock(pthread_mutex_t *m)
{
	return rt_in() ? proj_sim_mutex_lock(m, 1, 0) : pthread_mutex_trylock(m);
}
int proj_pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (!rt_in())
		return pthread_mutex_unlock(m);
	proj_sim_mutex_unlock(m);
	return 0;
}
int proj_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) { return pthread_mutex_init(m, a); }
int proj_pthread_mutex_destroy(pthread_mutex_t *m) { return pthread_mutex_destroy(m); }
int proj_pthread_mutexattr_init(pthread_mutexattr_t *a) { return pthread_mutexattr_init(a); }
int proj_pthread_mutexattr_settype(pthread_mutexattr_t *a, int t) { return pthread_mutexattr_settype(a, t); }
int proj_pthread_mutexattr_destroy(pthread_mutexattr_t *a) { return pthread_mutexattr_destroy(a); }
int proj_pthread_spin_lock(pthread_spinlock_t *m)
{
	return rt_in() ? proj_sim_mutex_lock((void *)m, 0, 1) : pthread_spin_lock(m);
}
int proj_pthread_spin_trylock(pthread_spinlock_t *m)
{
	return rt_in() ? proj_sim_mutex_lock((void *)m, 1, 1) : pthread_spin_trylock(m);
}
int proj_pthread_spin_unlock(pthread_spinlock_t *m)
{
	if (!rt_in())
		return pthread_spin_unlock(m);
	proj_sim_mutex_unlock((void *)m);
	return 0;
}
int proj_pthread_spin_init(pthread_spinlock_t *m, int s) { return pthread_spin_init(m, s); }
int proj_pthread_spin_destroy(pthread_spinlock_t *m) { return pthread_spin_destroy(m); }

int proj_sem_init(sem_t *s, int sh, unsigned v);
int proj_sem_destroy(sem_t *s);
int proj_sem_post(sem_t *s);
int proj_sem_trywait(sem_t *s);
int proj_sem_wait(sem_t *s);
int proj_sem_clockwait(sem_t *s, clockid_t c, const struct timespec *t);
int proj_sem_timedwait(sem_t *s, const struct timespec *t);
int proj_sem_init(sem_t *s, int sh, unsigned v) { return sem_init(s, sh, v); }
int proj_sem_destroy(sem_t *s) { return sem_destroy(s); }
int proj_sem_post(sem_t *s)
{
	if (!rt_in())
		return sem_post(s);
	proj_sim_sem_post(s);
	return 0;
}
/* The model's answer as sem_*wait's: 0, or -1 with errno. */
static int rt_sem_ret(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}
int proj_sem_trywait(sem_t *s) { return rt_in() ? rt_sem_ret(proj_sim_sem_wait(s, 1, -1)) : sem_trywait(s); }
/* Outside a projection one thread runs: a wait that would block cannot end, and fails instead. */
int proj_sem_wait(sem_t *s) { return rt_in() ? rt_sem_ret(proj_sim_sem_wait(s, 0, -1)) : sem_trywait(s); }
int proj_sem_clockwait(sem_t *s, clockid_t c, const struct timespec *t)
{
	(void)c;
	if (rt_in())
		return rt_sem_ret(proj_sim_sem_wait(s, 0, rt_virtual(t)));
	return sem_trywait(s) ? rt_sem_ret(ETIMEDOUT) : 0;
}
int proj_sem_timedwait(sem_t *s, const struct timespec *t) { return proj_sem_clockwait(s, CLOCK_MONOTONIC, t); }

/* ---- the threads the code starts (a periodic flusher): the model's virtual threads ---- */

int proj_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int proj_pthread_join(pthread_t t, void **ret);
int proj_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int proj_pthread_cond_destroy(pthread_cond_t *c);
int proj_pthread_cond_signal(pthread_cond_t *c);
int proj_pthread_cond_broadcast(pthread_cond_t *c);
int proj_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int proj_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts);
int proj_pthread_condattr_init(pthread_condattr_t *a);
int proj_pthread_condattr_setclock(pthread_condattr_t *a, clockid_t c);
int proj_pthread_condattr_destroy(pthread_condattr_t *a);

/*
 * A thread the code starts is a virtual thread (sched.c), known by its
 * index + 1.  Outside a projection it is never run (one thread, the
 * footprint tests': what it would do is not theirs to record), and a join
 * of it returns at once.
 */
int proj_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	int i;

	(void)a;
	if (!rt_in()) {
		*t = 0;
		return 0;
	}
	i = sim_thread_start(-1, fn, arg);
	if (i < 0)
		return i == -ENOMEM ? ENOMEM : EAGAIN;
	*t = (pthread_t)(i + 1);
	return 0;
}

int proj_pthread_join(pthread_t t, void **ret)
{
	if (ret)
		*ret = NULL;
	if (rt_in() && t)
		sim_join((int)t - 1);
	return 0;
}

int proj_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	/* outside a projection nobody else could signal: a spurious wakeup */
	return rt_in() ? proj_sim_cond_wait(c, m, -1) : 0;
}
int proj_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	return rt_in() ? proj_sim_cond_wait(c, m, rt_virtual(ts)) : ETIMEDOUT;
}
int proj_pthread_cond_signal(pthread_cond_t *c)
{
	if (rt_in())
		proj_sim_cond_signal(c, 0);
	return 0;
}
int proj_pthread_cond_broadcast(pthread_cond_t *c)
{
	if (rt_in())
		proj_sim_cond_signal(c, 1);
	return 0;
}
int proj_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) { return pthread_cond_init(c, a); }
int proj_pthread_cond_destroy(pthread_cond_t *c) { return pthread_cond_destroy(c); }
int proj_pthread_condattr_init(pthread_condattr_t *a) { return pthread_condattr_init(a); }
int proj_pthread_condattr_setclock(pthread_condattr_t *a, clockid_t c) { return pthread_condattr_setclock(a, c); }
int proj_pthread_condattr_destroy(pthread_condattr_t *a) { return pthread_condattr_destroy(a); }
