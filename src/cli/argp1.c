// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * argp_parse with every command-line error on one stderr line.
 *
 * getopt prints "run: unrecognized option '--bogus'" and argp adds a second
 * line, "Try `run --help' or `run --usage' for more information.", before
 * exiting with argp_err_exit_status (2). Both write to the stderr stream,
 * so while argp parses, stderr is a stream that passes on the first line
 * only, as "folioscope: run: ...; see 'folioscope run --help'" when it is
 * not one of folioscope's own messages already. --help and --usage go to
 * stdout and are untouched.
 */
#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "common.h"
#include <sys/types.h>

struct oneline {
	FILE *out; /* the real stderr */
	const char *cmd;
	char buf[512];
	size_t len;
	bool done; /* the line has been written */
};

static void oneline__emit(struct oneline *o)
{
	static const char me[] = "folioscope: ";
	bool ours = !strncmp(o->buf, me, sizeof(me) - 1);

	if (o->done || !o->len)
		return;
	o->done = true;
	o->buf[o->len] = '\0';
	if (ours)
		fprintf(o->out, "%s\n", o->buf);
	else
		fprintf(o->out, "%s%s; see 'folioscope %s --help'\n", me,
			o->buf, o->cmd);
	fflush(o->out);
}

static ssize_t oneline__write(void *cookie, const char *b, size_t n)
{
	struct oneline *o = cookie;

	for (size_t i = 0; i < n && !o->done; i++) {
		if (b[i] == '\n')
			oneline__emit(o);
		else if (o->len < sizeof(o->buf) - 1)
			o->buf[o->len++] = b[i];
	}
	return (ssize_t)n;
}

static int oneline__close(void *cookie)
{
	oneline__emit(cookie); /* a message without its newline */
	return 0;
}

error_t cli__argp_parse(const struct argp *argp, int argc, char **argv,
			unsigned flags, int *end, void *input)
{
	static const cookie_io_functions_t io = {
		.write = oneline__write,
		.close = oneline__close,
	};
	struct oneline o = { .out = stderr, .cmd = argc ? argv[0] : "" };
	FILE *f;
	error_t err;

	fflush(stderr);
	f = fopencookie(&o, "w", io);
	if (!f)
		return argp_parse(argp, argc, argv, flags, end, input);
	setvbuf(f, NULL, _IONBF, 0);
	stderr = f;
	err = argp_parse(argp, argc, argv, flags, end, input);
	stderr = o.out;
	fclose(f);
	return err;
}
