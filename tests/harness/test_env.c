/* SPDX-License-Identifier: MIT */
/* bench_env_json: every key, each null or of its type; the note; the comment lines for the table. */
#include <regex.h>

#include "../testutil.h"
#include "../../bench/env.h"

static const struct {
	const char *key;
	int type;	/* JSON_STRING, JSON_INTEGER or JSON_TRUE (boolean) */
	int never_null;
} keys[] = {
	{ "machine", JSON_STRING, 0 },		{ "hostname", JSON_STRING, 0 },
	{ "cpu_model", JSON_STRING, 0 },	{ "cpu_vendor", JSON_STRING, 0 },
	{ "cpu_family", JSON_INTEGER, 0 },	{ "cpu_model_number", JSON_INTEGER, 0 },
	{ "cpu_stepping", JSON_INTEGER, 0 },	{ "microcode", JSON_STRING, 0 },
	{ "kernel", JSON_STRING, 0 },		{ "kernel_build", JSON_STRING, 0 },
	{ "arch", JSON_STRING, 0 },		{ "smt_active", JSON_TRUE, 0 },
	{ "smt_control", JSON_STRING, 0 },	{ "governor", JSON_STRING, 0 },
	{ "boost", JSON_TRUE, 0 },		{ "numa_nodes", JSON_INTEGER, 0 },
	{ "packages", JSON_INTEGER, 0 },	{ "cores", JSON_INTEGER, 0 },
	{ "l3s", JSON_INTEGER, 0 },		{ "topology_digest", JSON_STRING, 0 },
	{ "perf_event_paranoid", JSON_INTEGER, 0 }, { "hypervisor", JSON_TRUE, 0 },
	{ "cpus_online", JSON_INTEGER, 0 },	{ "cpus_online_list", JSON_STRING, 0 },
	{ "compiler", JSON_STRING, 1 },		{ "cflags", JSON_STRING, 1 },
	{ "commit", JSON_STRING, 1 },		{ "date", JSON_STRING, 1 },
	{ "note", JSON_STRING, 0 },
};

static void test_keys(void **state)
{
	json_t *env = bench_env_json("two runs\nsame build");
	regex_t re;

	(void)state;
	assert_non_null(env);
	assert_int_equal(json_object_size(env), sizeof(keys) / sizeof(keys[0]));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(env, keys[i].key);
		int ok;

		if (!v)
			fail_msg("no key %s", keys[i].key);
		if (json_is_null(v)) {
			if (keys[i].never_null)
				fail_msg("%s is null", keys[i].key);
			continue;
		}
		ok = keys[i].type == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == (json_type)keys[i].type;
		if (!ok)
			fail_msg("%s has type %d", keys[i].key, json_typeof(v));
	}
	assert_string_equal(json_string_value(json_object_get(env, "note")), "two runs\nsame build");
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
				 REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regexec(&re, json_string_value(json_object_get(env, "date")), 0, NULL, 0), 0);
	regfree(&re);
	/* Where Linux is here, so is uname and the online CPUs. */
	assert_true(json_is_string(json_object_get(env, "kernel")));
	assert_true(json_integer_value(json_object_get(env, "cpus_online")) >= 1);
	json_decref(env);

	env = bench_env_json(NULL);
	assert_true(json_is_null(json_object_get(env, "note")));
	json_decref(env);
}

static void test_print(void **state)
{
	json_t *env = bench_env_json("a\nb");
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int lines = 0;

	(void)state;
	assert_non_null(f);
	bench_env_print(f, env);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# ", 2) || !strstr(line, ": "))
			fail_msg("not a comment line: '%s'", line);
		lines++;
	}
	assert_int_equal(lines, json_object_size(env));
	json_decref(env);
	free(buf);
}

/*
 * The machine fields: counts consistent with each other and with the online
 * CPUs, the digest 12 hex digits and the same on a second read, and the
 * machine key made of the CPU model and that digest, never the host name
 * (shards of one sweep on a cluster's identical nodes are one machine).
 */
static void test_machine(void **state)
{
	json_t *a = bench_env_json(NULL), *b = bench_env_json(NULL);
	json_int_t online, pkgs, cores, l3s;
	const char *digest, *machine, *model, *host;

	(void)state;
	online = json_integer_value(json_object_get(a, "cpus_online"));
	if (json_is_integer(json_object_get(a, "cores"))) {
		pkgs = json_integer_value(json_object_get(a, "packages"));
		cores = json_integer_value(json_object_get(a, "cores"));
		assert_true(pkgs >= 1 && pkgs <= cores);
		assert_true(cores >= 1 && cores <= online);
		if (json_is_integer(json_object_get(a, "l3s"))) {
			l3s = json_integer_value(json_object_get(a, "l3s"));
			assert_true(l3s >= 1 && l3s <= cores);
		}
	}
	digest = json_string_value(json_object_get(a, "topology_digest"));
	if (digest) {
		assert_int_equal(strlen(digest), 12);
		assert_int_equal(strspn(digest, "0123456789abcdef"), 12);
		assert_string_equal(digest, json_string_value(json_object_get(b, "topology_digest")));
	}
	machine = json_string_value(json_object_get(a, "machine"));
	model = json_string_value(json_object_get(a, "cpu_model"));
	host = json_string_value(json_object_get(a, "hostname"));
	if (model) {
		assert_non_null(machine);
		assert_non_null(strstr(machine, model));
		if (digest)
			assert_non_null(strstr(machine, digest));
		if (host && strlen(host) > 3 && !strstr(model, host))
			assert_null(strstr(machine, host));
		assert_string_equal(machine, json_string_value(json_object_get(b, "machine")));
	} else {
		assert_true(json_is_null(json_object_get(a, "machine")));
	}
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
