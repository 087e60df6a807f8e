/* SPDX-License-Identifier: MIT */
/* The environment of a run, read from /proc, /sys and uname; null where unreadable. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
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

static json_t *env_file_int(const char *path)
{
	char *s = env_read_line(path), *end;
	json_t *j = json_null();
	long v;

	if (s && *s) {
		v = strtol(s, &end, 10);
		if (!*end)
			j = json_integer(v);
	}
	free(s);
	return j;
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

static json_t *env_date(void)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[32];

	if (now == (time_t)-1 || !gmtime_r(&now, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

/* json_string of a possibly invalid UTF-8 string: null rather than nothing. */
static json_t *env_or_null(json_t *j)
{
	return j ? j : json_null();
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
	json_object_set_new(env, "cpu_model", env_cpuinfo_string("model name"));
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
	json_object_set_new(env, "perf_event_paranoid", env_file_int("/proc/sys/kernel/perf_event_paranoid"));
	json_object_set_new(env, "hypervisor", env_hypervisor());
	json_object_set_new(env, "cpus_online", online > 0 ? json_integer(online) : json_null());
	json_object_set_new(env, "cpus_online_list", env_file_string("/sys/devices/system/cpu/online"));
	json_object_set_new(env, "compiler", env_or_null(json_string(ENV_COMPILER)));
	json_object_set_new(env, "cflags", env_or_null(env_macro_string(ENV_CFLAGS)));
	json_object_set_new(env, "commit", env_or_null(env_macro_string(ENV_COMMIT)));
	json_object_set_new(env, "date", env_date());
	json_object_set_new(env, "note", note ? env_or_null(json_string(note)) : json_null());
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
