/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The names the JSON schema (folioscope/1) gives the model's values, in
 * one place: json.c writes them and json_read.c reads them back.
 */
#ifndef FOLIOSCOPE_REPORT_JSON_NAMES_H
#define FOLIOSCOPE_REPORT_JSON_NAMES_H

#include "report/report.h"

/* A histogram's kind: "align" or "log2". */
static inline const char *json__kind_name(enum fs_hist_kind kind)
{
	return kind == FS_KIND_ALIGN ? "align" : "log2";
}

/* A coverage group's large_folios, by its index in the model (not
 * judged, no, yes). */
static const char *const json_large_names[] = { "not judged", "no", "yes" };

#endif
