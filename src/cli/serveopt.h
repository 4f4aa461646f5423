/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --serve ADDR:PORT and --serve-any, shared by trace and report as an
 * argp child, so that both spell, document and check them alike.
 */
#ifndef FS_CLI_SERVEOPT_H
#define FS_CLI_SERVEOPT_H

#include <argp.h>
#include <stdbool.h>

struct serve_cli {
	const char *addr; /* --serve ADDR:PORT, NULL = not serving */
	bool any;	  /* --serve-any: a non-loopback address is allowed */
};

/*
 * The child parser; its input is a struct serve_cli, which the parent
 * hands over at ARGP_KEY_INIT (state->child_inputs[its index]).
 */
extern const struct argp serve_cli_argp;

#endif /* FS_CLI_SERVEOPT_H */
