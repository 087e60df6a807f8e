#!/bin/sh
# proj-rename.sh OUT IN.o... - the projection's copy of libctr (docs/projection.md): link the
# objects compiled with -fsanitize=thread into one, then rename every symbol they define to
# proj_<name> (so the copy sits beside the benchmark's libctr in one binary) and every call
# they make to the TSan entry points, the allocator, pthread, semaphores, clocks, yields and
# syscall() to proj_<name>, which project/rt.c defines.  A call this list misses into one of
# those families would run for real, unseen by the model: such a symbol fails the build.
set -eu
out=$1; shift
tmp=$out.tmp.o
map=$out.syms
${LD:-ld} -r -o "$tmp" "$@"
{
	nm -g --defined-only "$tmp" | awk 'NF == 3 { print $3 }'
	nm -u "$tmp" | awk '{ print $2 }' |
		grep -E '^(__tsan_|pthread_|sem_|sched_|clock_gettime$|nanosleep$|usleep$|syscall$|malloc$|calloc$|realloc$|free$|aligned_alloc$|posix_memalign$|mmap$|munmap$|membarrier$)' || true
} | sort -u | awk '{ print $1, "proj_" $1 }' > "$map"
bad=$(nm -u "$tmp" | awk '{ print $2 }' | grep -E '^(futex|thrd_|mtx_|cnd_|clock_(nanosleep|getres)$|gettimeofday$|time$|memalign$|valloc$|pvalloc$|numa_|mbind$)' || true)
if [ -n "$bad" ]; then
	echo "proj-rename.sh: the instrumented libctr calls what the model does not wrap: $bad" >&2
	rm -f "$tmp"
	exit 1
fi
objcopy --redefine-syms="$map" "$tmp" "$out"
rm -f "$tmp"
