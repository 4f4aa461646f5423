/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Options trace and run share (-t, -m, -j, -o, --format, -d, --btf,
 * --debuginfo, -v), as an argp child; doctor takes the planning ones
 * (-m, --btf, --debuginfo, -v) and validate all but -t and -d through
 * the same parser.
 */
#ifndef FS_CLI_COMMON_H
#define FS_CLI_COMMON_H

#include <argp.h>
#include "plan/plan.h"
#include "model/model.h"
#include "report/report.h"

struct common_opts {
	const char *targets; /* NULL = command's default */
	enum plan_mode mode;
	const char *json;	   /* -j FILE */
	const char *output;	   /* -o FILE, "-" = stdout */
	bool format_set;	   /* --format given */
	enum report_format format; /* for -o, or stdout instead of text */
	double duration;	   /* -d SECONDS, 0 = none */
	const char *btf;	   /* --btf FILE, NULL = the kernel's */
	const char *debuginfo;	   /* --debuginfo FILE, NULL = looked for */
	/* stdout carries another output (run --ktap -): the report that
	 * would go there goes to stderr. */
	bool stdout_taken;
};

extern const struct argp common_argp;
/* -m, --btf, --debuginfo and -v alone, as doctor words them. */
extern const struct argp common_plan_argp;
/* All but -t and -d: for a command that runs others (validate). */
extern const struct argp common_report_argp;
/* The struct either child parser fills; set at ARGP_KEY_INIT. */
extern struct common_opts *common_opts_target;

/* "folioscope: CMD: message" on one line, exit 2 (usage error). */
void cli__usage_error(const struct argp_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * argp_parse with each command-line error on one stderr line, exit 2
 * (argp alone adds a "Try --help" line); --help is unchanged. Every
 * command parses its arguments with it (argp1.c).
 */
error_t cli__argp_parse(const struct argp *argp, int argc, char **argv,
			unsigned flags, int *end, void *input);

/*
 * --btf FILE: exit 1 with one line unless FILE is readable BTF (checked
 * while parsing, before anything is set up).
 */
void cli__check_btf(const struct argp_state *st, const char *path);

/*
 * An output file option's value: exit 1 with one line unless path can be
 * written (its directory takes a new file, and it is no directory), so
 * that a long run does not end in "cannot write". "-" always can.
 */
void cli__check_output(const char *path);

/*
 * Print the report (as text, or in --format when there is no -o; on
 * stderr when stdout_taken), then write -j and -o when asked; returns 0
 * or -errno.
 */
int common__output(const struct common_opts *c, const struct fs_report *r);

#endif /* FS_CLI_COMMON_H */
