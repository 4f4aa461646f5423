// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* folioscope: per-call histograms of the dedupe compare and tmpfs reads. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "cli/runguard.h"
#include "version.h"
#include <argp.h>
#include "util/err.h"
#include "util/util.h"

bool fs_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!fs_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "trace", cmd_trace,
	  "trace until -d, CMD exit or Ctrl-C; print histograms" },
	{ "run", cmd_run,
	  "drive the dedupe or shmem-read workload while tracing" },
	{ "validate", cmd_validate,
	  "run every tier of both workloads on this kernel: one verdict" },
	{ "doctor", cmd_doctor,
	  "explain how each target would be attached here" },
	{ "vm", cmd_vm,
	  "boot a kernel in qemu and run folioscope ARGS inside" },
	{ "report", cmd_report,
	  "write a saved JSON run as csv, openmetrics, svg, html...; or serve "
	  "it" },
	{ "compare", cmd_compare,
	  "compare two kernels' reports; --expect rules as a CI gate" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: folioscope COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'folioscope COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	char names[256] = "";
	size_t n = 0;

	libbpf_set_print(libbpf_print);
	/* Usage errors exit 2, like the other usage errors here. */
	argp_err_exit_status = 2;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("folioscope %s\n", FOLIOSCOPE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			/* The commands that set workloads up undo them
			 * before a signal ends them. */
			if (commands[i].fn != cmd_run &&
			    commands[i].fn != cmd_validate)
				return commands[i].fn(argc - 1, argv + 1);
			runguard__start();
			return runguard__finish(
				commands[i].fn(argc - 1, argv + 1));
		}
	for (size_t i = 0; i < ARRAY_SIZE(commands) && n < sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
			      i ? ", " : "", commands[i].name);
	err__print(NULL, 0, "unknown command '%s' (%s; see --help)", argv[1],
		   names);
	return 2;
}
