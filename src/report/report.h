/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reporters: turn a filled histogram model into text, JSON, CSV,
 * OpenMetrics, SVG, HTML or KTAP, and JSON back into a model (json_read.c).
 * They read only struct fs_report (src/model), never BPF maps.
 *
 * The writers (text.c, json.c, csv.c, openmetrics.c, svg.c, heatmap.c,
 * html.c, ktap.c) share words.c (values, labels and verdicts in words),
 * markup.c (the SVG and HTML pieces, which compare's picture uses too)
 * and atomic.c with tmpfile.c (the atomic file write). format.c picks a
 * writer by format; no writer calls it.
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
/* The same from len bytes at buf (what a pipe brought), name for the
 * error line. */
int report__json_parse(const char *buf, size_t len, const char *name,
		       struct fs_report *r);

/* ---- KTAP (ktap.c) ---- */

/*
 * The run's verdicts as KTAP version 1: a plan; per group of layouts
 * (fs_validation.groups) a test whose subtests are its checks, failed
 * ones "not ok" with "# KIND: LAYOUT" (the first FS_MAX_CASES failures
 * kept), the group "not ok" with its first failure's kind and layout;
 * checks of no group in a test "the whole run"; "ok WHAT # SKIP WHY" per
 * layout skipped; "environment # SKIP" when the environment was
 * disturbed; last, "reconcile" (workload key reconcile: ok, MISMATCH,
 * "skipped: why"). Returns 0, or -EIO if writing to f failed.
 */
int report__ktap(FILE *f, const struct fs_report *r);
/* report__ktap to path atomically ("-" is stdout); on failure one line
 * on stderr, no file left behind, -errno. */
int report__ktap_write(const struct fs_report *r, const char *path);
/* s as a KTAP description or directive text: '#' (which would start the
 * directive) becomes '.', control characters spaces. */
void report__ktap_text(FILE *f, const char *s);

/* ---- JUnit XML (junit.c) ---- */

/*
 * The verdicts as JUnit XML: a testsuite per group of layouts (validate:
 * per tier) with a testcase per failed check kept (its kind and layout;
 * a <failure> with what it expected and got), one for the failures past
 * those and one for the checks that passed (the counts also as
 * properties "checks" and "failed_checks"); a group that checked nothing
 * a skipped testcase with its note; testsuites "skipped" (a testcase per
 * layout the kernel cannot run) and "reconcile". Returns 0 or -EIO.
 */
int report__junit(FILE *f, const struct fs_report *r);
/* report__junit to path atomically ("-" is stdout); on failure one line
 * on stderr, no file left behind, -errno. */
int report__junit_write(const struct fs_report *r, const char *path);

/* ---- export formats: names and dispatch (format.c) ---- */

enum report_format {
	REPORT_FMT_TEXT,
	REPORT_FMT_JSON,
	REPORT_FMT_CSV,
	REPORT_FMT_OPENMETRICS, /* OpenMetrics 1.0 text, ends with "# EOF" */
	REPORT_FMT_PROMETHEUS,	/* Prometheus text exposition 0.0.4 */
	REPORT_FMT_SVG,
	REPORT_FMT_HTML,
	REPORT_FMT_NR,
};

/* "text, json, csv, ...": for usage messages. */
#define REPORT_FORMATS "text, json, csv, openmetrics, prometheus, svg, html"

/* Format by name; -EINVAL if unknown. */
int report__format_parse(const char *name, enum report_format *fmt);
const char *report__format_name(enum report_format fmt);
/*
 * Format from path's extension (.json .csv .om .prom .svg .html .htm
 * .txt); -EINVAL if the name does not tell.
 */
int report__format_guess(const char *path, enum report_format *fmt);
/* Formats that can show two runs side by side (svg, html). */
bool report__format_ab(enum report_format fmt);

/*
 * CSV, one row per bucket of each measured histogram of each enabled
 * target: "target,histogram,lo,hi,count" after a header row, CRLF line
 * ends and RFC 4180 quoting. Same buckets as JSON (first to last
 * non-empty slot). Returns 0 or -EIO.
 */
int report__csv(FILE *f, const struct fs_report *r);

/*
 * OpenMetrics (om = true) or Prometheus 0.0.4 text (om = false). One
 * histogram family per measured histogram, folioscope_<target>_<name>
 * with the unit as suffix (ns become seconds), every slot as a cumulative
 * le bucket; one counter family per counter; folioscope_measured
 * (0 with the reason for a histogram that is not measured, which is
 * otherwise left out); folioscope_target_attached with the attach step.
 * The two flavours differ only where the formats do: counter family names
 * (OpenMetrics: no _total on the family), # UNIT and # EOF.
 */
int report__openmetrics(FILE *f, const struct fs_report *r, bool om);

/*
 * SVG picture / self-contained HTML page (no scripts, nothing fetched):
 * host, attach plan, workload and validation verdict, and one bar chart
 * per measured histogram. With next != NULL, an A/B view: base and next
 * side by side in every chart and table.
 */
int report__svg(FILE *f, const struct fs_report *base,
		const struct fs_report *next);
int report__html(FILE *f, const struct fs_report *base,
		 const struct fs_report *next);

/* The HTML page reloading itself every refresh seconds (0: never). */
int report__html_page(FILE *f, const struct fs_report *base,
		      const struct fs_report *next, int refresh);
int report__html_refresh(FILE *f, const struct fs_report *r, int refresh);

/* The JSON report as written by report__json_write, to a stream. */
int report__json_stream(FILE *f, const struct fs_report *r);

/*
 * Any format to a stream, by the writer of fmt; next is the second run
 * of an A/B view (-EINVAL for a format that cannot show two). Returns 0
 * or -errno.
 */
int report__emit(FILE *f, enum report_format fmt, const struct fs_report *base,
		 const struct fs_report *next);

/*
 * Render into memory, then write path atomically: a temp file in the same
 * directory, fsync, rename. "-" is stdout. On failure prints one line to
 * stderr ("folioscope: cannot write 'PATH': ..."), leaves no file behind
 * (an existing file at path stays as it was) and returns -errno.
 */
int report__write(const char *path, enum report_format fmt,
		  const struct fs_report *base, const struct fs_report *next);

/* ---- atomic writes (atomic.c, tmpfile.c) ---- */

/*
 * The atomic write of buf alone, as report__write does it; same
 * contract, no message printed (except a line per stale temp file
 * removed, see report__tmp_clean).
 * SIGINT, SIGTERM and SIGHUP are held while the temp file exists.
 */
int report__write_atomic(const char *path, const void *buf, size_t len);
/*
 * What render writes to its FILE, rendered whole in memory and then
 * written with report__write_atomic: a render that fails (its return
 * < 0, or a stream error) writes nothing. No message printed.
 */
int report__render_atomic(const char *path, int (*render)(FILE *f, void *arg),
			  void *arg);
/*
 * Temp files of atomic writes (tmpfile.c): "DIR/.BASE.folioscope-PID.
 * XXXXXX" for path DIR/BASE, a mkstemp template in *out (malloc'd);
 * 0 or -ENOMEM.
 */
int report__tmp_name(const char *path, char **out);
/*
 * Remove path's temp files that a killed folioscope left: regular files
 * of the effective uid whose PID is neither this process nor a live
 * folioscope; one line on stderr per file. Returns how many, or -errno.
 */
int report__tmp_clean(const char *path);

/* ---- words every format shares (words.c) ---- */

/*
 * v in human units for an axis label: bytes as B/KiB/MiB/GiB/TiB (exact
 * for powers of two, else 3 significant digits), ns as ns/µs/ms/s.
 */
void report__human(char *buf, size_t n, const char *unit, __u64 v);
/*
 * Alignment histograms: slot 0 holds offset 0 (no largest power of two
 * divides 0) and the 2 MiB slot every larger alignment. The label of
 * slot 0 is REPORT_OFFSET0; report__align_cap says a slot is the cap's.
 */
#define REPORT_OFFSET0 "offset 0"
bool report__align_zero(const struct fs_hist_spec *sp, int slot);
bool report__align_cap(const struct fs_hist_spec *sp, int slot);

/*
 * A breakdown row's title: "process 123 (cat)", "cgroup /a/b",
 * "other cgroups: 7 past the table's 64" ("at least 7" when the kernel's
 * table of keys filled; per target when the two differ).
 */
void report__part_title(const struct fs_report *r, const struct fs_part *p,
			char *buf, size_t n);
/* One-line verdict of a run's checks ("passed: 12 checks", ...). */
void report__verdict(char *buf, size_t n, const struct fs_report *r);
/*
 * Coverage group g in one line: "xfs bs=1024: dedupe 4K x120, 64K x3;
 * large folios: yes: ...", "WARNING" before a large-folio gap; a target
 * that did not measure folio sizes says "not measured".
 */
void report__coverage_line(char *buf, size_t n, const struct fs_report *r,
			   int g);
/*
 * What a run of several (validate) covered, in a few lines of prefix
 * each: the ways into a read reached (workload values ways_reached,
 * ways, ways_missed), each filesystem's groups with the folio sizes they
 * met ("xfs bs=1024 (4 KiB .. 2 MiB)"), and the layouts skipped, by why.
 * Returns 0 or -EIO.
 */
int report__covered(FILE *f, const struct fs_report *r, const char *prefix);
/*
 * A bucket's label from its lower bound lo, written by units:
 * REPORT_OFFSET0 for an alignment's slot 0, "+" after the cap's ("2
 * MiB+": 2 MiB or more). Charts pass report__human.
 */
typedef void report_units_fn(char *buf, size_t n, const char *unit, __u64 v);
void report__slot_label(char *buf, size_t n, const struct fs_hist_spec *sp,
			int slot, __u64 lo, report_units_fn *units);
/*
 * A target's attach plan in one line: "[LABEL ]NAME: MECHANISM on SYMBOL
 * (function FUNCTION[, inlined]): REASON", "-" for what is empty.
 */
void report__attach_line(char *buf, size_t n, const char *label,
			 const struct fs_target_report *tr);
/*
 * Append the nkv workload values to the len bytes in buf (len as
 * snprintf counts, so possibly past n): ": key=value, key=value".
 * Returns the new len.
 */
int report__kv_append(char *buf, size_t n, int len, const struct fs_kv *kv,
		      int nkv);

/* ---- SVG and HTML pieces (markup.c), for compare's picture too ---- */

/*
 * The pictures' colours: series A (a single run, or the base) and B (the
 * new run), text, secondary text, grid lines, axes, and a failed or
 * passed verdict. Colours are attributes, not CSS, so an SVG looks the
 * same in a browser, an image viewer or pasted into a bug report.
 */
#define REPORT_COLOR_A "#4e79a7"
#define REPORT_COLOR_B "#e8772e"
#define REPORT_COLOR_TEXT "#222222"
#define REPORT_COLOR_MUTED "#666666"
#define REPORT_COLOR_GRID "#dddddd"
#define REPORT_COLOR_AXIS "#333333"
#define REPORT_COLOR_FAIL "#b00020"
#define REPORT_COLOR_PASS "#17692b"
#define REPORT_SVG_FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

/* Write s with &, <, >, " and ' escaped for XML/HTML. */
void report__xml_escape(FILE *f, const char *s);
/* The same for the first n bytes of s at most. */
void report__xml_escape_n(FILE *f, const char *s, size_t n);
/* Number of measured histograms of enabled targets: the charts drawn. */
int report__nr_charts(const struct fs_report *r);

/*
 * A self-contained page's head, up to and including <body>: no script
 * and a Content-Security-Policy that forbids fetching anything, the
 * title "TITLE: KERNEL[ vs VS_KERNEL]", and the CSS every page shares
 * followed by css, the page's own rules.
 */
struct report_page {
	const char *title;
	const char *kernel, *vs_kernel; /* vs_kernel NULL: one run */
	const char *css;
	bool viewport; /* a viewport meta, for phones */
	int refresh;   /* seconds between reloads, 0: never */
};
void report__html_head(FILE *f, const struct report_page *pg);
/* The page's end, after its body; 0, or -EIO when writing failed. */
int report__html_foot(FILE *f);

/*
 * An SVG document width wide around what body writes to its FILE. The
 * height is known only once the body is laid out, so body writes to
 * memory first and returns the height it took, or -errno (then nothing
 * is written). Returns 0 or -errno.
 */
int report__svg_document(FILE *f, int width, int (*body)(FILE *f, void *arg),
			 void *arg);

/*
 * text as <text> lines at st->x from baseline y down, each size + 6
 * below the last. SVG text does not wrap by itself: a line of more than
 * st->wrap bytes is cut at its last space in the second half (else at
 * wrap), never inside a UTF-8 sequence. Returns the next baseline.
 */
struct report_svg_text {
	const char *cls; /* class attribute, or NULL */
	int x, size, wrap;
	const char *color;
	bool bold;
};
int report__svg_lines(FILE *f, const struct report_svg_text *st, int y,
		      const char *text);

/*
 * A chart's opening <svg> element REPORT_CHART_W wide, its white frame
 * and its title "TARGET · HISTOGRAM (UNIT)[TITLE_TAIL]"; the caller
 * draws the rest and closes the element.
 */
struct report_frame {
	const char *cls; /* "bars", "heatmap", compare's "ab" */
	int x, y, height;
	const char *target;
	const struct fs_hist_spec *sp;
	const char *attrs;	/* more attributes of <svg>, or NULL */
	const char *title_tail; /* after the unit, or NULL */
};
void report__svg_frame(FILE *f, const struct report_frame *fr);

/*
 * A lone bar fills a whole chart and says nothing about its scale: widen
 * the slot range first..last to min slots, the empty neighbours
 * included, up to the last slot the histogram's kind has.
 */
void report__slots_pad(const struct fs_hist_spec *sp, int min, int *first,
		       int *last);

/*
 * A bucket's label under the x axis (axis_y), centred on x: rotated by
 * 40 degrees when the slots are too narrow for it.
 */
void report__svg_slot_label(FILE *f, double x, int axis_y, bool rotate,
			    const char *label);

/* ---- the writers' own parts other writers use ---- */

/* One CSV field, quoted per RFC 4180 when it has to be (csv.c). */
void report__csv_field(FILE *f, const char *s);

/*
 * One bar chart as an <svg> element (svg.c; standalone = with the xmlns, for
 * nesting in an SVG document it is harmless, for HTML it is left out).
 * b is NULL unless A/B; a or b may be a histogram that is not measured.
 */
struct report_chart {
	const char *target;
	const struct fs_histogram *a, *b;
	const char *a_label, *b_label; /* legend, A/B only */
	int x, y;		       /* position inside an SVG document */
};
#define REPORT_CHART_W 760
#define REPORT_CHART_H 280
void report__svg_chart(FILE *f, const struct report_chart *c);

/*
 * Heatmap of one histogram over trace -i's intervals (heatmap.c): time
 * on x, log2 bucket on y, count as colour, each interval's events as a
 * strip above; cells carry data-interval, data-slot, data-lo and
 * data-count. An <svg> element REPORT_CHART_W wide and
 * report__heatmap_height(h) high, at x, y inside an SVG document.
 */
void report__svg_heatmap(FILE *f, const struct fs_report *r, int t, int hi,
			 int x, int y);
int report__heatmap_height(const struct fs_histogram *h);
/* "12 intervals of 1 s" or "none (...)": for the run's facts. */
void report__intervals_fact(char *buf, size_t n, const struct fs_report *r);

#endif /* FS_REPORT_H */
