/* SPDX-License-Identifier: MIT */
/*
 * fuzz_die.h - the die() of the code under a fuzz target (linked with
 * -Wl,--wrap=die): bad input was found and said; the message must be one
 * line (else abort, a finding), then back to the target for the next input.
 * The target sets fz_back with setjmp before calling into the code.
 */
#ifndef FUZZ_DIE_H
#define FUZZ_DIE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf fz_back;
void bench_one_line(char *msg);	/* bench/cli.c */

void __wrap_die(const char *fmt, ...);
void __wrap_die(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bench_one_line(msg);	/* as die() prints it */
	if (strchr(msg, '\n'))	/* the one-line promise */
		abort();
	longjmp(fz_back, 1);
}

#endif /* FUZZ_DIE_H */
