/* SPDX-License-Identifier: MIT */
/* The environment of a run, read from /proc, /sys and uname; null where unreadable. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "env.h"

/* Stringizes the expansion: a string literal keeps its quotes (undone at run time), tokens become text. */
#define ENV_STR_(...) #__VA_ARGS__
#define ENV_STR(...) ENV_STR_(__VA_ARGS__)

#ifdef CTRBENCH_CFLAGS
#define ENV_CFLAGS ENV_STR(CTRBENCH_CFLAGS)
#else
#define ENV_CFLAGS "unknown"
#endif
#ifdef CTRBENCH_COMMIT
#define ENV_COMMIT ENV_STR(CTRBENCH_COMMIT)
#else
#define ENV_COMMIT "unknown"
#endif

#if defined(__clang__)
#define ENV_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define ENV_COMPILER "gcc " __VERSION__
#else
#define ENV_COMPILER __VERSION__
#endif

/* A stringized macro: "\"-O2 -g\"" back to -O2 -g (one literal, \" and \\ undone); tokens as they are. */
static json_t *env_macro_string(const char *s)
{
	size_t n = strlen(s);
	json_t *j;
	char *out, *o;

	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return json_string(s);
	out = malloc(n);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] == '\\' && i + 1 < n - 1)
			i++;
		*o++ = s[i];
	}
	*o = 0;
	j = json_string(out);
	free(out);
	return j;
}

/* The first line of a file without its newline, or NULL (caller frees). */
static char *env_read_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = 0;
	return line;
}

static json_t *env_file_string(const char *path)
{
	char *s = env_read_line(path);
	json_t *j = s && *s ? json_string(s) : json_null();

	free(s);
	return j;
}

/* "1"/"0" as a boolean; invert for files that say the opposite (no_turbo). */
static json_t *env_file_bool(const char *path, int invert)
{
	char *s = env_read_line(path);
	json_t *j = json_null();

	if (s && (!strcmp(s, "0") || !strcmp(s, "1")))
		j = json_boolean((s[0] == '1') ^ invert);
	free(s);
	return j;
}

/* A whole decimal string as a number: 1 and *v, else 0 (NULL, empty, trailing text).  Frees s. */
static int env_take_long(char *s, long *v)
{
	char *end;
	int ok = 0;

	if (s && *s) {
		*v = strtol(s, &end, 10);
		ok = !*end;
	}
	free(s);
	return ok;
}

static json_t *env_file_int(const char *path)
{
	long v;

	return env_take_long(env_read_line(path), &v) ? json_integer(v) : json_null();
}

/* The value of the first "key<spaces/tabs>: value" line of /proc/cpuinfo, or NULL (caller frees). */
static char *env_cpuinfo(const char *key)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *val = NULL;
	size_t cap = 0, klen = strlen(key);
	ssize_t n;

	if (!f)
		return NULL;
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *p = line + klen;

		if (strncmp(line, key, klen))
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = 0;
		val = strdup(p);
		break;
	}
	free(line);
	fclose(f);
	return val;
}

static json_t *env_cpuinfo_string(const char *key)
{
	char *s = env_cpuinfo(key);
	json_t *j = s && *s ? json_string(s) : json_null();

	free(s);
	return j;
}

/* The cpuinfo flag "hypervisor": true, false, or null when there is no flags line (not x86, no /proc). */
static json_t *env_hypervisor(void)
{
	char *flags = env_cpuinfo("flags"), *save = NULL;
	json_t *j = json_null();

	if (flags) {
		j = json_false();
		for (char *t = strtok_r(flags, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			if (!strcmp(t, "hypervisor"))
				j = json_true();
	}
	free(flags);
	return j;
}

/* Directories node<N> under /sys/devices/system/node, or null when it cannot be read. */
static json_t *env_numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0;

	if (!d)
		return json_null();
	while ((e = readdir(d))) {
		const char *p = e->d_name;

		if (strncmp(p, "node", 4) || !p[4])
			continue;
		for (p += 4; isdigit((unsigned char)*p); p++)
			;
		n += !*p;
	}
	closedir(d);
	return n ? json_integer(n) : json_null();
}

/* json_string of a possibly invalid UTF-8 string: null rather than nothing. */
static json_t *env_or_null(json_t *j)
{
	return j ? j : json_null();
}

/* An integer file under a CPU's sysfs directory, -1 when it cannot be read. */
static long env_cpu_int(int cpu, const char *rel)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", cpu, rel);
	return env_take_long(env_read_line(path), &v) ? v : -1;
}

/* The NUMA node of an online CPU (its nodeN link in sysfs), -1 when there is none. */
static long env_cpu_node(int cpu)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	long node = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4])) {
			node = strtol(e->d_name + 4, NULL, 10);
			break;
		}
	closedir(d);
	return node;
}

/* Distinct values among the first n of v (n is at most the CPUs: quadratic is fine). */
static long env_distinct(const long *v, int n)
{
	long count = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = v[j] == v[i];
		count += !seen;
	}
	return count;
}

/*
 * The machine's shape as Linux shows it, for putting machines side by side:
 * packages, cores (distinct package/core pairs) and L3s (distinct L3 ids;
 * cache/index3/id, Linux 5.1+) over the online CPUs, and a digest of every
 * online CPU's (number, package, core, L3, node) tuple, FNV-1a 64, as 12 hex
 * digits: two machines with one digest number and group their CPUs alike, so
 * one placement puts threads on the same kind of neighbours on both.  A
 * count is null where any CPU's file is unreadable (not guessed from the rest).
 */
static void env_topology(json_t *env)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), *pkg = NULL, *core = NULL, *l3 = NULL;
	int n = 0, pkg_ok = 1, core_ok = 1, l3_ok = 1;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a 64's offset basis */
	char digest[16];

	if (ncpu > 0 && ncpu <= 65536) {
		pkg = calloc((size_t)ncpu, sizeof(*pkg));
		core = calloc((size_t)ncpu, sizeof(*core));
		l3 = calloc((size_t)ncpu, sizeof(*l3));
	}
	if (!pkg || !core || !l3)
		goto out;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		long p, c, l, node;
		char tuple[96];

		/* cpu0 has no online file where it cannot be taken offline */
		if (cpu && env_cpu_int(cpu, "online") == 0)
			continue;
		p = env_cpu_int(cpu, "topology/physical_package_id");
		c = env_cpu_int(cpu, "topology/core_id");
		l = env_cpu_int(cpu, "cache/index3/id");
		node = env_cpu_node(cpu);
		if (p < 0 && c < 0)
			continue;	/* not present (possible but not there) */
		pkg_ok &= p >= 0;
		core_ok &= p >= 0 && c >= 0;
		l3_ok &= l >= 0;
		pkg[n] = p;
		core[n] = p * 1000000 + c;	/* core ids repeat per package */
		l3[n] = l;
		n++;
		snprintf(tuple, sizeof(tuple), "%d:%ld:%ld:%ld:%ld;", cpu, p, c, l, node);
		for (const char *s = tuple; *s; s++)
			h = (h ^ (unsigned char)*s) * 0x100000001b3ull;	/* FNV-1a 64's prime */
	}
out:
	json_object_set_new(env, "packages", n && pkg_ok ? json_integer(env_distinct(pkg, n)) : json_null());
	json_object_set_new(env, "cores", n && core_ok ? json_integer(env_distinct(core, n)) : json_null());
	json_object_set_new(env, "l3s", n && l3_ok ? json_integer(env_distinct(l3, n)) : json_null());
	snprintf(digest, sizeof(digest), "%012llx", (unsigned long long)(h >> 16));
	json_object_set_new(env, "topology_digest", n ? json_string(digest) : json_null());
	free(pkg);
	free(core);
	free(l3);
}

/* A decimal /proc/cpuinfo field ("cpu family", "model", "stepping") as an integer, else null. */
static json_t *env_cpuinfo_int(const char *key)
{
	long v;

	return env_take_long(env_cpuinfo(key), &v) && v >= 0 ? json_integer(v) : json_null();
}

static json_t *env_hostname(void)
{
	char name[256];

	if (gethostname(name, sizeof(name)) || !name[0])
		return json_null();
	name[sizeof(name) - 1] = 0;
	return env_or_null(json_string(name));
}

/*
 * What makes two lines the same kind of machine, for compare --by machine and
 * the report's series: the CPU's model name, packages x cores, L3s, NUMA nodes
 * and the topology digest, not the host name (a cluster's identical nodes
 * that ran shards of one sweep are one machine there).  null when the CPU
 * model cannot be read.
 */
static json_t *env_machine(const json_t *env)
{
	const char *model = json_string_value(json_object_get(env, "cpu_model"));
	const char *digest = json_string_value(json_object_get(env, "topology_digest"));
	char buf[384];

	if (!model)
		return json_null();
	snprintf(buf, sizeof(buf), "%s; %lld packages, %lld cores, %lld L3, %lld nodes; topology %s", model,
		 (long long)json_integer_value(json_object_get(env, "packages")),
		 (long long)json_integer_value(json_object_get(env, "cores")),
		 (long long)json_integer_value(json_object_get(env, "l3s")),
		 (long long)json_integer_value(json_object_get(env, "numa_nodes")),
		 digest ? digest : "no digest");
	return env_or_null(json_string(buf));
}

static json_t *env_date(void)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[32];

	if (now == (time_t)-1 || !gmtime_r(&now, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

json_t *bench_env_json(const char *note)
{
	json_t *env = json_object();
	struct utsname u;
	int have_uname = uname(&u) == 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	json_t *boost;

	if (!env)
		return NULL;
	json_object_set_new(env, "machine", json_null());	/* filled in last, from the fields below */
	json_object_set_new(env, "hostname", env_hostname());
	json_object_set_new(env, "cpu_model", env_cpuinfo_string("model name"));
	json_object_set_new(env, "cpu_vendor", env_cpuinfo_string("vendor_id"));
	json_object_set_new(env, "cpu_family", env_cpuinfo_int("cpu family"));
	json_object_set_new(env, "cpu_model_number", env_cpuinfo_int("model"));
	json_object_set_new(env, "cpu_stepping", env_cpuinfo_int("stepping"));
	json_object_set_new(env, "microcode", env_cpuinfo_string("microcode"));
	json_object_set_new(env, "kernel", have_uname ? env_or_null(json_string(u.release)) : json_null());
	json_object_set_new(env, "kernel_build", have_uname ? env_or_null(json_string(u.version)) : json_null());
	json_object_set_new(env, "arch", have_uname ? env_or_null(json_string(u.machine)) : json_null());
	json_object_set_new(env, "smt_active", env_file_bool("/sys/devices/system/cpu/smt/active", 0));
	json_object_set_new(env, "smt_control", env_file_string("/sys/devices/system/cpu/smt/control"));
	json_object_set_new(env, "governor",
			    env_file_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
	boost = env_file_bool("/sys/devices/system/cpu/cpufreq/boost", 0);
	if (json_is_null(boost)) {
		json_decref(boost);
		boost = env_file_bool("/sys/devices/system/cpu/intel_pstate/no_turbo", 1);
	}
	json_object_set_new(env, "boost", boost);
	json_object_set_new(env, "numa_nodes", env_numa_nodes());
	env_topology(env);
	json_object_set_new(env, "perf_event_paranoid", env_file_int("/proc/sys/kernel/perf_event_paranoid"));
	json_object_set_new(env, "hypervisor", env_hypervisor());
	json_object_set_new(env, "cpus_online", online > 0 ? json_integer(online) : json_null());
	json_object_set_new(env, "cpus_online_list", env_file_string("/sys/devices/system/cpu/online"));
	json_object_set_new(env, "compiler", env_or_null(json_string(ENV_COMPILER)));
	json_object_set_new(env, "cflags", env_or_null(env_macro_string(ENV_CFLAGS)));
	json_object_set_new(env, "commit", env_or_null(env_macro_string(ENV_COMMIT)));
	json_object_set_new(env, "date", env_date());
	json_object_set_new(env, "note", note ? env_or_null(json_string(note)) : json_null());
	json_object_set_new(env, "machine", env_machine(env));
	return env;
}

void bench_env_print(FILE *f, const json_t *env)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)env, key, v) {
		fprintf(f, "# %s: ", key);
		if (json_is_null(v)) {
			fputs("n/a", f);
		} else if (json_is_string(v)) {
			for (const char *s = json_string_value(v); *s; s++)
				fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
		} else {
			char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			fputs(s ? s : "n/a", f);
			free(s);
		}
		fputc('\n', f);
	}
}

const char *bench_env_commit(void)
{
	static char commit[128];

	if (!commit[0]) {
		json_t *j = env_macro_string(ENV_COMMIT);

		snprintf(commit, sizeof(commit), "%s", json_is_string(j) ? json_string_value(j) : "unknown");
		json_decref(j);
	}
	return commit;
}
