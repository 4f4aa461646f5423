/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reporters: turn a filled histogram model into text or JSON, and JSON back
 * into a model. They read only struct fs_report (src/model), never BPF maps.
 */
#ifndef FS_REPORT_H
#define FS_REPORT_H

#include <stdio.h>
#include "model/model.h"

struct json_object;

/* JSON schema identifier; bumped on any incompatible change. */
#define FS_REPORT_SCHEMA "folioscope/1"

/*
 * Human-readable report of every enabled target: attach info, counters,
 * log2 bar histograms, then the workload's key/values.
 * Returns 0, or -EIO if writing to f failed.
 */
int report__text(FILE *f, const struct fs_report *r);

/*
 * The report as a JSON tree (schema FS_REPORT_SCHEMA), or NULL when out of
 * memory. The caller owns the result (json_object_put).
 */
struct json_object *report__to_json(const struct fs_report *r);

/*
 * Write the JSON report to path atomically (temp file, fsync, rename); "-"
 * is stdout. On failure prints one line to stderr, leaves no file behind
 * and returns -errno.
 */
int report__json_write(const struct fs_report *r, const char *path);

/*
 * Rebuild a report from a JSON file written by report__json_write ("-" is
 * stdin). Returns 0, -errno if the file cannot be read, or -EINVAL (with
 * one line on stderr) for malformed JSON, a wrong schema or unknown names.
 * r is only changed on success.
 */
int report__json_read(const char *path, struct fs_report *r);

#endif /* FS_REPORT_H */
