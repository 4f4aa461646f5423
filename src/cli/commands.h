/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Subcommands; each takes argv[0] = its own name and returns an exit code. */
#ifndef FS_COMMANDS_H
#define FS_COMMANDS_H

#include <stdbool.h>

extern bool fs_verbose;

int cmd_trace(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_validate(int argc, char **argv);

#endif /* FS_COMMANDS_H */
