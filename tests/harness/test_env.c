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
	{ "cpu_model", JSON_STRING, 0 },	{ "microcode", JSON_STRING, 0 },
	{ "kernel", JSON_STRING, 0 },		{ "kernel_build", JSON_STRING, 0 },
	{ "arch", JSON_STRING, 0 },		{ "smt_active", JSON_TRUE, 0 },
	{ "smt_control", JSON_STRING, 0 },	{ "governor", JSON_STRING, 0 },
	{ "boost", JSON_TRUE, 0 },		{ "numa_nodes", JSON_INTEGER, 0 },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
