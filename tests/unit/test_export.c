// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests: export formats (CSV, OpenMetrics/Prometheus, SVG, HTML), the
 * JSON round trip giving the same bytes in every format, the atomic write
 * and the /metrics server.
 *
 * The run fixtures in tests/fixtures/ (used by tests/host/export.sh) are
 * built here; FS_WRITE_FIXTURES=1 rewrites them after a schema change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "report/report.h"
#include "serve/serve.h"
#include "util/util.h"

#define FIXTURE_BASE "tests/fixtures/export-base.json"
#define FIXTURE_NEW "tests/fixtures/export-new.json"

/* ---- fixtures ---- */

static void set_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s);
}

#define SET(field, s) set_str(field, sizeof(field), s)

static void add_value(struct fs_histogram *h, __u64 v)
{
	h->slot[fs_log2_slot(v)]++;
	h->count++;
	h->sum += v;
}

static void add_align(struct fs_histogram *h, __u64 off)
{
	__u64 a = fs_alignment(off);

	h->slot[fs_log2_slot(a)]++;
	h->count++;
	h->sum += a;
}

/*
 * A run as trace would record it while a tmpfs file of 16 MiB is read in
 * 64 KiB blocks (one more read at EOF) and 64 dedupe ranges of 128 KiB
 * are compared. huge: folios of 2 MiB instead of 4 KiB (the "new" run).
 */
static void make_run(struct fs_report *r, bool huge)
{
	struct fs_target_report *dd = &r->target[FS_TGT_DEDUPE];
	struct fs_target_report *sh = &r->target[FS_TGT_SHMEM];
	const __u64 size = 16 << 20, bs = 64 << 10, range = 128 << 10;
	const __u64 folio = huge ? 2 << 20 : 4096;
	__u64 pos;
	int i;

	model__init(r);
	memset(r->kernel, 0, sizeof(r->kernel));
	memset(r->machine, 0, sizeof(r->machine));
	SET(r->kernel,
	    huge ? "6.1.0-13-cloud-amd64+thp" : "6.1.0-13-cloud-amd64");
	SET(r->machine, "x86_64");
	SET(r->tool_version, "0.1.0");
	r->page_size = 4096;

	model__enable(r, FS_TGT_SHMEM, true);
	SET(sh->attach.function, "shmem_file_read_iter");
	SET(sh->attach.symbol, "shmem_file_read_iter");
	SET(sh->attach.mechanism, "fentry");
	SET(sh->attach.reason, "symbol and BTF prototype match: fentry");
	for (pos = 0, i = 0; pos < size; pos += bs, i++) {
		add_value(&sh->hist[FS_SH_BYTES], bs);
		add_value(&sh->hist[FS_SH_REQ_BYTES], bs);
		add_align(&sh->hist[FS_SH_POS_ALIGN], pos);
		add_align(&sh->hist[FS_SH_BUF_ALIGN], 0x7f0000001000ULL);
		add_value(&sh->hist[FS_SH_LATENCY],
			  (huge ? 900 : 1500) + (__u64)(i * 7919 % 6000));
		/* A lookup per folio the read meets. */
		add_value(&sh->hist[FS_SH_LOOKUPS], huge ? 1 : bs / folio);
		if (huge) {
			add_value(&sh->hist[FS_SH_COPY_BYTES], bs);
		} else {
			for (__u64 p = 0; p < bs; p += folio)
				add_value(&sh->hist[FS_SH_COPY_BYTES], folio);
		}
	}
	for (pos = 0; pos < size; pos += folio)
		add_value(&sh->hist[FS_SH_FOLIO_SIZE], folio);
	/* The read at EOF returns 0 bytes, before any lookup. */
	add_value(&sh->hist[FS_SH_BYTES], 0);
	add_value(&sh->hist[FS_SH_LOOKUPS], 0);
	add_value(&sh->hist[FS_SH_REQ_BYTES], bs);
	add_align(&sh->hist[FS_SH_POS_ALIGN], size);
	add_align(&sh->hist[FS_SH_BUF_ALIGN], 0x7f0000001000ULL);
	add_value(&sh->hist[FS_SH_LATENCY], 400);
	sh->counter[FS_SH_CALLS] = size / bs + 1;

	model__enable(r, FS_TGT_DEDUPE, true);
	SET(dd->attach.function, "vfs_dedupe_file_range_compare");
	SET(dd->attach.symbol, "__generic_remap_file_range_prep");
	SET(dd->attach.mechanism, "kprobe");
	dd->attach.inlined = true;
	SET(dd->attach.reason, "the compare is inlined; fentry on its "
			       "caller fails with error 524 (7 arguments)");
	for (i = 0; i < 64; i++) {
		add_value(&dd->hist[FS_DD_BYTES], range);
		add_align(&dd->hist[FS_DD_SRC_ALIGN], i * range);
		add_align(&dd->hist[FS_DD_DST_ALIGN], i * range + 4096);
		add_value(&dd->hist[FS_DD_LATENCY],
			  (huge ? 20000 : 45000) + (__u64)(i * 104729 % 30000));
	}
	model__not_measured(r, FS_TGT_DEDUPE, FS_DD_FOLIO_SIZE,
			    "the compare is inlined: its folio reads cannot "
			    "be told from the caller's");
	model__not_measured(r, FS_TGT_DEDUPE, FS_DD_CALLER_LAT,
			    "measured at inline sites only (the "
			    "kprobe-inline step)");
	dd->counter[FS_DD_CALLS] = 64;
	dd->counter[FS_DD_SAME] = huge ? 56 : 48;
	dd->counter[FS_DD_DIFFERS] = huge ? 8 : 16;

	SET(r->workload_name, "shmem-read");
	model__kv_str(r, "huge", huge ? "always" : "never");
	model__kv_u64(r, "size", size);
	model__kv_u64(r, "bs", bs);
	model__kv_u64(r, "calls", size / bs + 1);
	model__kv_u64(r, "bytes", size);
	model__kv_u64(r, "validation_failures", 0);
	model__kv_str(r, "reconcile", "ok");
}

/* ---- helpers ---- */

static char *render(enum report_format fmt, const struct fs_report *a,
		    const struct fs_report *b, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report__emit(f, fmt, a, b), 0);
	assert_int_equal(fclose(f), 0);
	if (lenp)
		*lenp = len;
	return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing from output:\n%s\n--- output "
			 "(start):\n%.2000s",
			 needle, hay);
}

/* Every format renders a and b (a's JSON round trip) alike. */
static void assert_same_renders(const struct fs_report *a,
				const struct fs_report *b)
{
	for (int fmt = 0; fmt < REPORT_FMT_NR; fmt++) {
		size_t la, lb;
		char *ra = render(fmt, a, NULL, &la);
		char *rb = render(fmt, b, NULL, &lb);

		if (la != lb || memcmp(ra, rb, la))
			fail_msg("%s differs after the JSON round trip",
				 report__format_name(fmt));
		free(ra);
		free(rb);
	}
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("unexpected in output:\n%s", needle);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static char *make_dir(void)
{
	char *dir = strdup("/tmp/fs-export-unit.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void remove_dir(char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static int dir_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static char *slurp(const char *path, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *f = fopen(path, "r"), *m;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	while ((n = fread(chunk, 1, sizeof(chunk), f)))
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	if (lenp)
		*lenp = len;
	return buf;
}

/* ---- formats ---- */

static void test_format_names(void **state)
{
	enum report_format fmt;

	for (int i = 0; i < REPORT_FMT_NR; i++) {
		assert_int_equal(
			report__format_parse(report__format_name(i), &fmt), 0);
		assert_int_equal(fmt, i);
		assert_non_null(strstr(REPORT_FORMATS, report__format_name(i)));
	}
	assert_int_equal(report__format_parse("xml", &fmt), -EINVAL);
	assert_int_equal(report__format_guess("a/b.CSV", &fmt), 0);
	assert_int_equal(fmt, REPORT_FMT_CSV);
	assert_int_equal(report__format_guess("run.om", &fmt), 0);
	assert_int_equal(fmt, REPORT_FMT_OPENMETRICS);
	assert_int_equal(report__format_guess("x.htm", &fmt), 0);
	assert_int_equal(fmt, REPORT_FMT_HTML);
	assert_int_equal(report__format_guess("dir.svg/out", &fmt), -EINVAL);
	assert_int_equal(report__format_guess("/out/0", &fmt), -EINVAL);
	assert_true(report__format_ab(REPORT_FMT_HTML));
	assert_false(report__format_ab(REPORT_FMT_CSV));
}

static void test_human_units(void **state)
{
	static const struct {
		const char *unit;
		__u64 v;
		const char *want;
	} cases[] = {
		{ "bytes", 0, "0 B" },
		{ "bytes", 512, "512 B" },
		{ "bytes", 4096, "4 KiB" },
		{ "bytes", 1536, "1.5 KiB" },
		{ "bytes", 2 << 20, "2 MiB" },
		{ "bytes", 1ULL << 62, "4 EiB" },
		{ "ns", 999, "999 ns" },
		{ "ns", 1024, "1.02 µs" },
		{ "ns", 999999, "1 ms" },
		{ "ns", 4194304, "4.19 ms" },
		{ "ns", 3000000000ULL, "3 s" },
	};
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		report__human(buf, sizeof(buf), cases[i].unit, cases[i].v);
		assert_string_equal(buf, cases[i].want);
	}
}

/* Bucket labels, the padded slot range and wrapped SVG lines, which
 * report's pictures and compare's share. */
static void test_chart_pieces(void **state)
{
	static struct fs_report r;
	const struct fs_hist_spec *align, *bytes;
	const struct report_svg_text st = { .cls = "note",
					    .x = 20,
					    .size = 12,
					    .wrap = 10,
					    .color = "#222222" };
	char buf[32], *out = NULL;
	int first, last, y;
	size_t len = 0;
	FILE *f;

	model__init(&r);
	model__enable(&r, FS_TGT_SHMEM, true);
	align = r.target[FS_TGT_SHMEM].hist[FS_SH_POS_ALIGN].spec;
	bytes = r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].spec;
	report__slot_label(buf, sizeof(buf), align, 0, 0, report__human);
	assert_string_equal(buf, REPORT_OFFSET0);
	report__slot_label(buf, sizeof(buf), align, FS_ALIGN_CAP_SHIFT + 1,
			   2 << 20, report__human);
	assert_string_equal(buf, "2 MiB+");
	report__slot_label(buf, sizeof(buf), bytes, 13, 4096, report__human);
	assert_string_equal(buf, "4 KiB");

	/* Widened to 6 slots, but never past an alignment's cap. */
	first = last = 10;
	report__slots_pad(bytes, 6, &first, &last);
	assert_int_equal(first, 8);
	assert_int_equal(last, 13);
	first = last = FS_ALIGN_CAP_SHIFT + 1;
	report__slots_pad(align, 6, &first, &last);
	assert_int_equal(first, FS_ALIGN_CAP_SHIFT - 4);
	assert_int_equal(last, FS_ALIGN_CAP_SHIFT + 1);

	/* Cut at the last space of a line's second half; never inside a
	 * UTF-8 sequence when there is no space to cut at. */
	f = open_memstream(&out, &len);
	assert_non_null(f);
	y = report__svg_lines(f, &st, 30, "abc defgh ijk <x>");
	y = report__svg_lines(f, &st, y, "aaaaaaaaaµbbb");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(y, 30 + 4 * 18);
	assert_string_equal(
		out, "<text class=\"note\" x=\"20\" y=\"30\" font-size=\"12\" "
		     "fill=\"#222222\">abc defgh</text>\n"
		     "<text class=\"note\" x=\"20\" y=\"48\" font-size=\"12\" "
		     "fill=\"#222222\">ijk &lt;x&gt;</text>\n"
		     "<text class=\"note\" x=\"20\" y=\"66\" font-size=\"12\" "
		     "fill=\"#222222\">aaaaaaaaa</text>\n"
		     "<text class=\"note\" x=\"20\" y=\"84\" font-size=\"12\" "
		     "fill=\"#222222\">µbbb</text>\n");
	free(out);
	model__free(&r);
}

static void test_csv_rows(void **state)
{
	static struct fs_report r;
	char *out;

	model__init(&r);
	model__enable(&r, FS_TGT_SHMEM, true);
	r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].slot[0] = 1;
	r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].slot[2] = 5;
	r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].count = 6;
	r.target[FS_TGT_SHMEM].hist[FS_SH_POS_ALIGN].slot[13] = 2;
	r.target[FS_TGT_SHMEM].hist[FS_SH_POS_ALIGN].count = 2;
	r.target[FS_TGT_SHMEM].hist[FS_SH_LATENCY].slot[FS_SLOTS - 1] = 1;
	r.target[FS_TGT_SHMEM].hist[FS_SH_LATENCY].count = 1;
	model__not_measured(&r, FS_TGT_SHMEM, FS_SH_FOLIO_SIZE, "no, sir");
	out = render(REPORT_FMT_CSV, &r, NULL, NULL);
	assert_string_equal(out, "target,histogram,lo,hi,count\r\n"
				 "shmem,bytes,0,0,1\r\n"
				 "shmem,bytes,1,1,0\r\n"
				 "shmem,bytes,2,3,5\r\n"
				 "shmem,pos_align,4096,4096,2\r\n"
				 "shmem,latency_ns,4611686018427387904,"
				 "18446744073709551615,1\r\n");
	free(out);
}

static void test_csv_quoting(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ "", "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		report__csv_field(f, cases[i].in);
		fclose(f);
		assert_string_equal(buf, cases[i].want);
		free(buf);
	}
}

/* ---- OpenMetrics ---- */

static void test_openmetrics_histogram(void **state)
{
	static struct fs_report r;
	char *om, *prom;

	make_run(&r, false);
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	prom = render(REPORT_FMT_PROMETHEUS, &r, NULL, NULL);

	/* shmem bytes: one 0-byte read, 256 reads of 64 KiB (slot 17). */
	assert_contains(om, "# TYPE folioscope_shmem_bytes histogram\n"
			    "# UNIT folioscope_shmem_bytes bytes\n"
			    "folioscope_shmem_bytes_bucket{kernel=\""
			    "6.1.0-13-cloud-amd64\",mechanism=\"fentry\","
			    "le=\"0\"} 1\n");
	assert_contains(om,
			"folioscope_shmem_bytes_bucket{kernel=\"6.1.0-13-"
			"cloud-amd64\",mechanism=\"fentry\",le=\"65535\"} 1\n");
	assert_contains(om, "folioscope_shmem_bytes_bucket{kernel=\"6.1.0-13-"
			    "cloud-amd64\",mechanism=\"fentry\",le=\"131071\"} "
			    "257\n");
	assert_contains(om, "le=\"+Inf\"} 257\nfolioscope_shmem_bytes_count{");
	assert_contains(om, "folioscope_shmem_bytes_sum{kernel=\"6.1.0-13-cloud"
			    "-amd64\",mechanism=\"fentry\"} 16777216\n");
	/* Every slot but the open-ended last one is a finite bucket. */
	assert_int_equal(count_of(om, "folioscope_shmem_bytes_bucket{"),
			 FS_SLOTS);
	/* Alignment buckets stop at the 2 MiB cap. */
	assert_int_equal(
		count_of(om, "folioscope_shmem_pos_align_bytes_bucket{"),
		FS_ALIGN_CAP_SHIFT + 3);
	assert_contains(
		om, "folioscope_shmem_pos_align_bytes_bucket{kernel=\"6.1"
		    ".0-13-cloud-amd64\",mechanism=\"fentry\",le=\"2097152\"}"
		    " 257\n");
	/* ns become exact decimal seconds. */
	assert_contains(om,
			"# TYPE folioscope_shmem_latency_seconds histogram\n"
			"# UNIT folioscope_shmem_latency_seconds seconds\n");
	assert_contains(om, "le=\"0.000000511\"} 1\n");
	assert_contains(om, "le=\"0.000001023\"} 1\n");
	assert_contains(om, ",le=\"4611686018.427387903\"}");
	/* Counters: OpenMetrics family without _total, 0.0.4 with it. */
	assert_contains(om, "# TYPE folioscope_dedupe_calls counter\n"
			    "folioscope_dedupe_calls_total{kernel=\"6.1.0-13-"
			    "cloud-amd64\",mechanism=\"kprobe\"} 64\n");
	assert_contains(prom, "# TYPE folioscope_dedupe_calls_total counter\n"
			      "folioscope_dedupe_calls_total{");
	assert_contains(om, "folioscope_dedupe_differs_total{kernel=\"6.1.0-13-"
			    "cloud-amd64\",mechanism=\"kprobe\"} 16\n");
	/* Not measured: no family, a 0 with the reason. */
	assert_lacks(om, "folioscope_dedupe_folio_size_bytes");
	assert_contains(om, "folioscope_measured{target=\"dedupe\","
			    "histogram=\"folio_size\",kernel=\"6.1.0-13-cloud-"
			    "amd64\",mechanism=\"kprobe\",reason=\"the compare "
			    "is inlined: its folio reads cannot be told from "
			    "the caller's\"} 0\n");
	assert_contains(om,
			"histogram=\"bytes\",kernel=\"6.1.0-13-cloud-amd64\","
			"mechanism=\"kprobe\",reason=\"\"} 1\n");
	assert_contains(om,
			"folioscope_target_attached{target=\"dedupe\",kernel"
			"=\"6.1.0-13-cloud-amd64\",mechanism=\"kprobe\","
			"function=\"vfs_dedupe_file_range_compare\",symbol="
			"\"__generic_remap_file_range_prep\",inlined=\"true\"}"
			" 1\n");
	/* OpenMetrics ends with # EOF; 0.0.4 has neither it nor # UNIT. */
	assert_string_equal(om + strlen(om) - 6, "# EOF\n");
	assert_lacks(prom, "# EOF");
	assert_lacks(prom, "# UNIT");
	free(om);
	free(prom);
}

static void test_openmetrics_escaping(void **state)
{
	static struct fs_report r;
	char *om, *prom;

	model__init(&r);
	memset(r.kernel, 0, sizeof(r.kernel));
	SET(r.kernel, "6.1 \"odd\\name\"\nx");
	model__enable(&r, FS_TGT_SHMEM, true);
	model__not_measured(&r, FS_TGT_SHMEM, FS_SH_BYTES, "a \"b\" \\ c");
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	prom = render(REPORT_FMT_PROMETHEUS, &r, NULL, NULL);
	assert_contains(om, "kernel=\"6.1 \\\"odd\\\\name\\\"\\nx\"");
	assert_contains(om, "reason=\"a \\\"b\\\" \\\\ c\"");
	/* Empty but measured: zero buckets and +Inf, not left out. */
	assert_contains(om,
			"folioscope_shmem_req_bytes_count{kernel=\"6.1 "
			"\\\"odd\\\\name\\\"\\nx\",mechanism=\"none\"} 0\n");
	assert_contains(om, "folioscope_target_attached{target=\"shmem\","
			    "kernel=");
	assert_contains(om, "inlined=\"false\"} 0\n");
	/* Label values escape the same way in 0.0.4. */
	assert_contains(prom, "kernel=\"6.1 \\\"odd\\\\name\\\"\\nx\"");
	free(om);
	free(prom);
}

static void test_openmetrics_processes(void **state)
{
	static struct fs_report r;
	static struct fs_stats st;
	char *om, *prom;

	struct fs_part_key cat = { .pid = 42, .comm = "cat" };
	struct fs_part_key other = { .other = true, .nother = 3 };

	make_run(&r, false);
	r.by = FS_BY_PROCESS;
	memset(&st, 0, sizeof(st));
	st.hist[FS_SH_BYTES].slot[17] = 200;
	st.hist[FS_SH_BYTES].sum = 200 * 65536;
	st.counter[FS_SH_CALLS] = 200;
	assert_int_equal(model__part_add(&r, &cat, FS_TGT_SHMEM, &st), 0);
	st.hist[FS_SH_BYTES].slot[17] = 56;
	st.hist[FS_SH_BYTES].slot[0] = 1;
	st.hist[FS_SH_BYTES].sum = 56 * 65536;
	st.counter[FS_SH_CALLS] = 57;
	assert_int_equal(model__part_add(&r, &other, FS_TGT_SHMEM, &st), 0);
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	prom = render(REPORT_FMT_PROMETHEUS, &r, NULL, NULL);
	/* Totals stay as they were, without comm. */
	assert_contains(om, "folioscope_shmem_calls_total{kernel=\"6.1.0-13-"
			    "cloud-amd64\",mechanism=\"fentry\"} 257\n");
	assert_contains(om,
			"# HELP folioscope_process_shmem_calls shmem per "
			"process: calls of the traced function\n"
			"# TYPE folioscope_process_shmem_calls counter\n"
			"folioscope_process_shmem_calls_total{kernel=\"6.1.0-"
			"13-cloud-amd64\",mechanism=\"fentry\",comm=\"cat\","
			"pid=\"42\"} 200\n"
			"folioscope_process_shmem_calls_total{kernel=\"6.1.0-"
			"13-cloud-amd64\",mechanism=\"fentry\",comm=\"other\","
			"pid=\"\"} 57\n");
	assert_contains(om, "# TYPE folioscope_process_shmem_bytes histogram\n"
			    "# UNIT folioscope_process_shmem_bytes bytes\n");
	assert_contains(om,
			"folioscope_process_shmem_bytes_bucket{kernel=\"6.1."
			"0-13-cloud-amd64\",mechanism=\"fentry\",comm=\"cat\","
			"pid=\"42\",le=\"131071\"} 200\n");
	assert_contains(om, "comm=\"other\",pid=\"\",le=\"0\"} 1\n");
	/* No process has dedupe numbers: no dedupe breakdown. */
	assert_lacks(om, "folioscope_process_dedupe");
	assert_contains(prom, "# TYPE folioscope_process_shmem_calls_total "
			      "counter\n");
	assert_contains(om, "folioscope_process_other_keys{target=\"shmem\","
			    "kernel=\"6.1.0-13-cloud-amd64\",mechanism=\""
			    "fentry\"} 3\n");
	model__free(&r);
	free(om);
	free(prom);
}

/* By cgroup: a cgroup label instead of comm and pid, "other" for the
 * rest; the JSON keeps every row and reads back the same. */
static void test_breakdown_cgroups(void **state)
{
	static struct fs_report r, back;
	static struct fs_stats st;
	struct fs_part_key web = { .pid = 9,
				   .comm = "nginx",
				   .cgroup_id = 4242,
				   .cgroup = "/system.slice/web \"1\".scope" };
	struct fs_part_key other = { .other = true,
				     .nother = 70,
				     .nother_more = true };
	struct json_object *j;
	char *om, *text;

	make_run(&r, false);
	r.by = FS_BY_CGROUP;
	memset(&st, 0, sizeof(st));
	st.hist[FS_SH_BYTES].slot[17] = 10;
	st.hist[FS_SH_BYTES].sum = 10 * 65536;
	st.counter[FS_SH_CALLS] = 10;
	assert_int_equal(model__part_add(&r, &web, FS_TGT_SHMEM, &st), 0);
	st.counter[FS_SH_CALLS] = 4;
	st.hist[FS_SH_BYTES].slot[17] = 4;
	st.hist[FS_SH_BYTES].sum = 4 * 65536;
	assert_int_equal(model__part_add(&r, &other, FS_TGT_SHMEM, &st), 0);
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	assert_contains(om, "# HELP folioscope_cgroup_shmem_calls shmem per "
			    "cgroup: calls of the traced function\n");
	assert_contains(om, "folioscope_cgroup_shmem_calls_total{kernel=\"6.1."
			    "0-13-cloud-amd64\",mechanism=\"fentry\",cgroup="
			    "\"/system.slice/web \\\"1\\\".scope\"} 10\n");
	assert_contains(om, "folioscope_cgroup_shmem_calls_total{kernel=\"6.1."
			    "0-13-cloud-amd64\",mechanism=\"fentry\",cgroup="
			    "\"other\"} 4\n");
	assert_contains(om, "folioscope_cgroup_other_keys{target=\"shmem\","
			    "kernel=\"6.1.0-13-cloud-amd64\",mechanism=\""
			    "fentry\"} 70\n");
	assert_lacks(om, "folioscope_process_");
	assert_lacks(om, "pid=");
	text = render(REPORT_FMT_TEXT, &r, NULL, NULL);
	assert_contains(text, "\n=== cgroup /system.slice/web \"1\".scope\n");
	assert_contains(text, "\n=== other cgroups: 70 or more past the "
			      "table's 64\n");

	j = report__to_json(&r);
	assert_non_null(j);
	assert_int_equal(
		report__json_parse(json_object_to_json_string(j),
				   strlen(json_object_to_json_string(j)),
				   "t.json", &back),
		0);
	assert_int_equal(back.by, FS_BY_CGROUP);
	assert_int_equal(back.nparts, 2);
	assert_string_equal(back.parts[0].cgroup, web.cgroup);
	assert_int_equal(back.parts[0].cgroup_id, 4242);
	assert_string_equal(back.parts[0].comm, "nginx");
	assert_int_equal(
		back.parts[0].target[FS_TGT_SHMEM].counter[FS_SH_CALLS], 10);
	assert_int_equal(
		back.parts[0].target[FS_TGT_SHMEM].hist[FS_SH_BYTES].sum,
		10 * 65536);
	assert_true(back.parts[1].other);
	assert_int_equal(back.parts[1].nother[FS_TGT_SHMEM], 70);
	assert_true(back.parts[1].nother_more[FS_TGT_SHMEM]);
	assert_false(back.parts[0].target[FS_TGT_DEDUPE].enabled);
	json_object_put(j);
	model__free(&back);
	model__free(&r);
	free(om);
	free(text);
}

/* The validation's families, in full, after everything else. */
static void test_openmetrics_validation(void **state)
{
	static struct fs_report r;
	char *om, *prom;

	model__init(&r);
	memset(r.kernel, 0, sizeof(r.kernel));
	SET(r.kernel, "6.1.0-13-cloud-amd64");
	SET(r.workload_name, "shmem-read");
	model__check(&r, true, "seq", "a", "a");
	model__check_kind(&r, false, "data", "seq huge=always", "0x41", "0x00");
	model__check_kind(&r, false, "data", "seq huge=never", "0x41", "0x00");
	model__checks_passed(&r, 4);
	model__skip(&r, "syscall=io_uring-read", "io_uring is disabled");
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	prom = render(REPORT_FMT_PROMETHEUS, &r, NULL, NULL);
	assert_non_null(strstr(om, "# HELP folioscope_validation_checks "));
	assert_string_equal(
		strstr(om, "# HELP folioscope_validation_checks "),
		"# HELP folioscope_validation_checks ground-truth checks of "
		"the workload's answers\n"
		"# TYPE folioscope_validation_checks counter\n"
		"folioscope_validation_checks_total{kernel=\"6.1.0-13-cloud-"
		"amd64\",workload=\"shmem-read\"} 7\n"
		"# HELP folioscope_validation_failures checks that failed, by "
		"the failure's kind\n"
		"# TYPE folioscope_validation_failures counter\n"
		"folioscope_validation_failures_total{kernel=\"6.1.0-13-cloud-"
		"amd64\",workload=\"shmem-read\",kind=\"wrong answer\"} 0\n"
		"folioscope_validation_failures_total{kernel=\"6.1.0-13-cloud-"
		"amd64\",workload=\"shmem-read\",kind=\"data\"} 2\n"
		"# HELP folioscope_validation_skipped layouts not run: the "
		"kernel lacks what they need\n"
		"# TYPE folioscope_validation_skipped counter\n"
		"folioscope_validation_skipped_total{kernel=\"6.1.0-13-cloud-"
		"amd64\",workload=\"shmem-read\"} 1\n"
		"# HELP folioscope_validation_passed 1 if the run's checks "
		"passed, 0 if any failed, the run was disturbed or every "
		"layout skipped\n"
		"# TYPE folioscope_validation_passed gauge\n"
		"folioscope_validation_passed{kernel=\"6.1.0-13-cloud-amd64\","
		"workload=\"shmem-read\"} 0\n"
		"# EOF\n");
	/* 0.0.4: counter families named with _total. */
	assert_contains(prom, "# TYPE folioscope_validation_checks_total "
			      "counter\nfolioscope_validation_checks_total{");
	assert_contains(prom, "# TYPE folioscope_validation_failures_total "
			      "counter\n");
	assert_contains(prom, "# TYPE folioscope_validation_skipped_total "
			      "counter\n");
	free(om);
	free(prom);

	/* Passed: the wrong-answer series at 0, one only, no skipped. */
	model__init(&r);
	SET(r.workload_name, "dedupe");
	model__checks_passed(&r, 3);
	model__kinds_add(&r.validation.kinds, FS_CASE_ANSWER, 0);
	prom = render(REPORT_FMT_PROMETHEUS, &r, NULL, NULL);
	assert_int_equal(count_of(prom, "kind=\"wrong answer\"} 0\n"), 1);
	assert_int_equal(count_of(prom, "folioscope_validation_failures_"
					"total{"),
			 1);
	assert_lacks(prom, "folioscope_validation_skipped");
	assert_contains(prom, "workload=\"dedupe\"} 1\n");
	free(prom);

	/* No validating workload: no validation families. */
	model__init(&r);
	om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
	assert_lacks(om, "folioscope_validation");
	free(om);
}

/* ---- pictures ---- */

static void test_html_charts(void **state)
{
	static struct fs_report r;
	char *html;

	make_run(&r, false);
	html = render(REPORT_FMT_HTML, &r, NULL, NULL);
	assert_int_equal(report__nr_charts(&r), 12);
	assert_int_equal(count_of(html, "<figure class=\"chart\""), 12);
	assert_int_equal(count_of(html, "<svg class=\"bars\""), 12);
	assert_contains(html, "<figure class=\"chart\" data-target=\"shmem\" "
			      "data-histogram=\"folio_size\">");
	assert_contains(html, "<p class=\"not-measured\">folio_size: not "
			      "measured (the compare is inlined");
	/* Human units on the axes. */
	assert_contains(html, ">64 KiB</text>");
	assert_contains(html, ">4 KiB</text>");
	assert_contains(html, " µs</text>");
	/* Plan, kernel, workload and verdict. */
	assert_contains(html, "<td>__generic_remap_file_range_prep</td>");
	assert_contains(html, "<td>6.1.0-13-cloud-amd64</td>");
	assert_contains(html, "<td>shmem-read</td>");
	assert_contains(html, "class=\"pass verdict\">passed: no validation "
			      "failures; reconcile ok</td>");
	/* Self-contained: nothing to fetch, nothing to run. */
	assert_contains(html, "content=\"default-src 'none'; style-src "
			      "'unsafe-inline'\"");
	assert_lacks(html, "http:");
	assert_lacks(html, "https:");
	assert_lacks(html, "<script");
	assert_lacks(html, " src=");
	assert_lacks(html, "href=");
	free(html);
}

static void test_ab_view(void **state)
{
	static struct fs_report a, b;
	char *html, *svg;

	make_run(&a, false);
	make_run(&b, true);
	model__check(&b, false, "fs=tmpfs huge=always off=4095", "SAME",
		     "DIFFERS");
	model__check(&b, true, "fs=tmpfs huge=always off=0", "SAME", "SAME");
	html = render(REPORT_FMT_HTML, &a, &b, NULL);
	assert_int_equal(count_of(html, "<figure class=\"chart\""), 12);
	assert_contains(html,
			"<th>A (base)</th><th>B (new)</th><th>B - A</th>");
	assert_contains(html, "<th>same</th><td class=\"num\">48</td>"
			      "<td class=\"num\">56</td><td class=\"num\">+8"
			      "</td>");
	assert_contains(html, "class=\"fail verdict\">FAILED: 1 of 2 checks");
	assert_contains(html, "<td>fs=tmpfs huge=always off=4095</td>");
	assert_contains(html, ">B (new)</text>");
	assert_contains(html, "fill=\"#e8772e\"");
	svg = render(REPORT_FMT_SVG, &a, &b, NULL);
	assert_int_equal(count_of(svg, "<g class=\"chart\">"), 12);
	assert_contains(svg, "folioscope A/B report");
	free(html);
	free(svg);
}

static void test_svg_document(void **state)
{
	static const char head[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\"";
	static struct fs_report r;
	char *svg;

	make_run(&r, false);
	svg = render(REPORT_FMT_SVG, &r, NULL, NULL);
	assert_true(!strncmp(svg, head, strlen(head)));
	assert_int_equal(count_of(svg, "<g class=\"chart\">"), 12);
	assert_contains(svg, "dedupe folio_size: not measured (the compare");
	assert_contains(svg, "validation: passed");
	assert_contains(svg, "shmem: fentry on shmem_file_read_iter");
	assert_string_equal(svg + strlen(svg) - 7, "</svg>\n");
	free(svg);
}

static void test_two_runs_need_picture(void **state)
{
	static struct fs_report r;
	FILE *f = fopen("/dev/null", "w");

	make_run(&r, false);
	assert_int_equal(report__emit(f, REPORT_FMT_CSV, &r, &r), -EINVAL);
	assert_int_equal(report__emit(f, REPORT_FMT_OPENMETRICS, &r, &r),
			 -EINVAL);
	fclose(f);
}

/* ---- JSON is the lossless source ---- */

/* Writes r with dedupe's histogram name removed from the JSON. */
static void write_without(struct fs_report *r, const char *path,
			  const char *name)
{
	struct json_object *o, *h;

	assert_int_equal(report__json_write(r, path), 0);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "targets", &h));
	assert_true(json_object_object_get_ex(h, "dedupe", &h));
	assert_true(json_object_object_get_ex(h, "histograms", &h));
	assert_true(json_object_object_get_ex(h, name, NULL));
	json_object_object_del(h, name);
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);
}

/* A report from before caller_latency_ns reads as not measuring it; a
 * histogram every report has is still required. */
static void test_optional_histogram(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), path[512];
	const struct fs_histogram *h;

	make_run(&r, false);
	/* Measured in r, so that only the reader can unmark it. */
	r.target[FS_TGT_DEDUPE].hist[FS_DD_CALLER_LAT].measured = true;
	snprintf(path, sizeof(path), "%s/old.json", dir);
	write_without(&r, path, "caller_latency_ns");
	assert_int_equal(report__json_read(path, &back), 0);
	h = &back.target[FS_TGT_DEDUPE].hist[FS_DD_CALLER_LAT];
	assert_false(h->measured);
	assert_string_equal(h->why, "not in this report");
	assert_true(back.target[FS_TGT_DEDUPE].hist[FS_DD_LATENCY].measured);
	model__free(&back);
	write_without(&r, path, "latency_ns");
	assert_int_not_equal(report__json_read(path, &back), 0);
	model__free(&r);
	remove_dir(dir);
}

static void test_roundtrip_same_bytes(void **state)
{
	static struct fs_report r, back, r2, back2;
	char *dir = make_dir(), path[512], out[512];

	make_run(&r, false);
	make_run(&r2, true);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	snprintf(path, sizeof(path), "%s/new.json", dir);
	assert_int_equal(report__json_write(&r2, path), 0);
	assert_int_equal(report__json_read(path, &back2), 0);

	for (int fmt = 0; fmt < REPORT_FMT_NR; fmt++) {
		size_t la, lb, lf;
		char *a = render(fmt, &r, NULL, &la);
		char *b = render(fmt, &back, NULL, &lb);
		char *file;

		if (la != lb || memcmp(a, b, la))
			fail_msg("%s differs after the JSON round trip",
				 report__format_name(fmt));
		/* The file write gives the same bytes as the stream. */
		snprintf(out, sizeof(out), "%s/out.%d", dir, fmt);
		assert_int_equal(report__write(out, fmt, &back, NULL), 0);
		file = slurp(out, &lf);
		assert_non_null(file);
		assert_int_equal(lf, la);
		assert_memory_equal(file, a, la);
		free(a);
		free(b);
		free(file);
		if (!report__format_ab(fmt))
			continue;
		a = render(fmt, &r, &r2, &la);
		b = render(fmt, &back, &back2, &lb);
		if (la != lb || memcmp(a, b, la))
			fail_msg("%s A/B differs after the JSON round trip",
				 report__format_name(fmt));
		free(a);
		free(b);
	}
	remove_dir(dir);
}

/* A run the environment disturbed keeps its reason and unjudged count
 * through JSON, and every format says DISTURBED, not passed. */
static void test_roundtrip_disturbed(void **state)
{
	static struct fs_report r, back;
	static const char why[] = "file '/tmp/x/full' was truncated by another "
				  "process (size 16777216 -> 1048576) during "
				  "the run";
	char *dir = make_dir(), path[512], *text, *html;

	make_run(&r, false);
	for (int i = 0; i < 16; i++)
		model__check(&r, true, "", "", "");
	model__disturbed(&r, 1, "%s", why);
	/* Only the first reason is kept; the counts add up. */
	model__disturbed(&r, 2, "a later fault");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_string_equal(back.validation.disturbed, why);
	assert_int_equal(back.validation.unjudged, 3);
	assert_int_equal(back.validation.checks, 16);
	assert_int_equal(back.validation.failures, 0);
	assert_same_renders(&r, &back);
	text = render(REPORT_FMT_TEXT, &back, NULL, NULL);
	assert_contains(text, "DISTURBED (not the kernel's fault): file "
			      "'/tmp/x/full' was truncated");
	assert_contains(text, "unjudged answers: 3");
	html = render(REPORT_FMT_HTML, &back, NULL, NULL);
	assert_contains(html, "DISTURBED: file");
	assert_true(!strstr(html, "pass verdict"));
	free(text);
	free(html);
	remove_dir(dir);
}

/* Skipped layouts and the VM facts survive JSON; the verdict says what
 * was skipped, and a run that checked nothing has not passed. */
static void test_roundtrip_skips(void **state)
{
	static struct fs_report r, back;
	char *dir = make_dir(), path[512], *text, buf[320];

	make_run(&r, false);
	snprintf(r.vm.accel, sizeof(r.vm.accel), "tcg");
	r.vm.reboots = 1;
	model__skip(&r, "plan=pv2-nowait syscall=preadv2 rwf=nowait",
		    "preadv2 RWF_NOWAIT: EOPNOTSUPP");
	/* Once per layout. */
	model__skip(&r, "plan=pv2-nowait syscall=preadv2 rwf=nowait", "again");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_int_equal(back.validation.nskips, 1);
	assert_string_equal(back.validation.skips[0].why,
			    "preadv2 RWF_NOWAIT: EOPNOTSUPP");
	assert_string_equal(back.vm.accel, "tcg");
	assert_int_equal(back.vm.reboots, 1);
	report__verdict(buf, sizeof(buf), &back);
	assert_string_equal(buf, "SKIPPED: plan=pv2-nowait syscall=preadv2 "
				 "rwf=nowait: preadv2 RWF_NOWAIT: EOPNOTSUPP; "
				 "reconcile ok");
	model__check(&back, true, "", "", "");
	report__verdict(buf, sizeof(buf), &back);
	assert_string_equal(buf,
			    "passed: 1 checks, 1 layout skipped; reconcile ok");
	text = render(REPORT_FMT_TEXT, &r, NULL, NULL);
	assert_contains(text, "  SKIP plan=pv2-nowait syscall=preadv2 "
			      "rwf=nowait: preadv2 RWF_NOWAIT: EOPNOTSUPP\n");
	assert_contains(text, "WARNING: vm: the guest's kernel died while "
			      "booting (tcg) and was booted again 1 time");
	free(text);
	remove_dir(dir);
}

/* str with the first from replaced by to (the caller frees). */
static char *replaced(const char *str, const char *from, const char *to)
{
	const char *at = strstr(str, from);
	size_t n = strlen(str) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - str), str, to,
		 at + strlen(from));
	return out;
}

static int read_text(const char *dir, const char *text, struct fs_report *r)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/edited.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return report__json_read(path, r);
}

/* A report of several runs (validate's tiers as groups) survives JSON:
 * groups with their kinds and notes, the cases' groups, the replays;
 * a report whose numbers do not add up is refused. */
static void test_roundtrip_groups(void **state)
{
	static struct fs_report r, one, back;
	const struct fs_merge m1 = { "shmem matrix", 2, 1 };
	const struct fs_merge m2 = { "dedupe ops", 2, 1 };
	char *dir = make_dir(), path[512], *json, *bad, *text, *ktap, *xml;
	static const char *const edits[][2] = {
		/* kinds that do not add up to the failures (the first are
		 * the run's) */
		{ "\"wrong answer\": 3", "\"wrong answer\": 4" },
		/* a case of a group that is not there */
		{ "\"group\": \"dedupe ops\"", "\"group\": \"dedupe\"" },
		/* a group's failures past its checks */
		{ "\"checks\": 7,", "\"checks\": 2," },
		/* the same group twice */
		{ "\"name\": \"dedupe ops\"", "\"name\": \"shmem matrix\"" },
		/* more cases a group than it keeps */
		{ "\"cases_per_group\": 2", "\"cases_per_group\": 1" },
	};

	(void)state;
	model__init(&r);
	make_run(&one, false);
	model__check_group(&one, "inner");
	for (int i = 0; i < 9; i++)
		model__check_kind(&one, i >= 5, "stale", "huge=always", "0x00",
				  "0x53");
	model__check_group(&one, NULL);
	assert_int_equal(model__merge(&r, &one, &m1), 0);
	make_run(&one, false);
	for (int i = 0; i < 7; i++)
		model__check_kind(&one, i >= 3, FS_CASE_ANSWER, "ops seed=1",
				  "same", "differs");
	model__replay(&one, "folioscope run dedupe --ops 9 --seed 1 "
			    "--ops-only 2,5");
	assert_int_equal(model__merge(&r, &one, &m2), 0);
	model__group_note(&r, "shmem matrix", "in %d s", 12);
	model__group_note(&r, "shmem ops", "not run: interrupted");
	snprintf(r.workload_name, sizeof(r.workload_name), "validate");
	model__kv_str(&r, "reconcile", "ok");

	snprintf(path, sizeof(path), "%s/validate.json", dir);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_int_equal(back.validation.ngroups, 3);
	assert_memory_equal(back.validation.groups, r.validation.groups,
			    3 * sizeof(r.validation.groups[0]));
	assert_memory_equal(&back.validation.kinds, &r.validation.kinds,
			    sizeof(r.validation.kinds));
	assert_int_equal(back.validation.cases_per_group, 2);
	assert_int_equal(back.validation.ncases, 4);
	assert_int_equal(back.validation.cases[3].group, 2);
	assert_int_equal(back.validation.nreplays, 1);
	assert_int_equal(back.validation.replays[0].group, 2);
	assert_string_equal(back.validation.replays[0].cmd,
			    "folioscope run dedupe --ops 9 --seed 1 "
			    "--ops-only 2,5");
	assert_same_renders(&r, &back);
	text = render(REPORT_FMT_TEXT, &back, NULL, NULL);
	assert_contains(text, "\nverdicts:\n  FAIL shmem matrix     9 checks, "
			      "5 failures (stale x5); in 12 s\n");
	assert_contains(text, "  FAIL dedupe ops       7 checks, 3 failures "
			      "(wrong answer x3)\n");
	assert_contains(text, "  SKIP shmem ops        0 checks, 0 failures; "
			      "not run: interrupted\n");
	assert_contains(text, "  REPLAY dedupe ops: folioscope run dedupe "
			      "--ops 9 --seed 1 --ops-only 2,5\n");
	assert_contains(text, "(4 more failures not kept)");
	free(text);

	/* KTAP: a test per group, its checks as subtests, the one that
	 * checked nothing skipped with its note. */
	ktap = NULL;
	{
		size_t n = 0;
		FILE *f = open_memstream(&ktap, &n);

		assert_int_equal(report__ktap(f, &back), 0);
		fclose(f);
	}
	assert_contains(ktap, "1..4\n");
	assert_contains(ktap, "  1..9\n");
	assert_contains(ktap, "\nnot ok 1 shmem matrix # stale: huge=always "
			      "(and 4 more failures)\n");
	assert_contains(ktap, "  not ok 3 check 3 # a failure past the first "
			      "2, whose layouts the report keeps\n");
	assert_contains(ktap, "\nnot ok 2 dedupe ops # wrong answer: ops "
			      "seed=1 (and 2 more failures)\n");
	assert_contains(ktap, "\nok 3 shmem ops # SKIP not run: interrupted\n");
	assert_contains(ktap, "\nok 4 reconcile\n");
	free(ktap);

	/* JUnit: a testsuite per group, the counts as properties. */
	xml = NULL;
	{
		size_t n = 0;
		FILE *f = open_memstream(&xml, &n);

		assert_int_equal(report__junit(f, &back), 0);
		fclose(f);
	}
	assert_contains(xml, "<testsuites name=\"folioscope validate\">\n");
	assert_contains(xml, "<testsuite name=\"shmem matrix\" tests=\"4\" "
			     "failures=\"3\" errors=\"0\" skipped=\"0\">");
	assert_contains(xml, "<property name=\"checks\" value=\"9\"/>"
			     "<property name=\"failed_checks\" value=\"5\"/>");
	assert_contains(xml, "<failure type=\"stale\" message=\"expected: "
			     "0x00; got: 0x53\"/>");
	assert_contains(xml, "name=\"3 more failures, past those the report "
			     "keeps\"");
	assert_contains(xml, "name=\"4 checks passed\"/>");
	assert_contains(xml, "<testsuite name=\"shmem ops\" tests=\"1\" "
			     "failures=\"0\" errors=\"0\" skipped=\"1\">");
	assert_contains(xml, "<skipped message=\"not run: interrupted\"/>");
	free(xml);

	json = slurp(path, NULL);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		bad = replaced(json, edits[i][0], edits[i][1]);
		if (read_text(dir, bad, &back) != -EINVAL)
			fail_msg("edit %zu read as a report", i);
		free(bad);
	}
	free(json);
	remove_dir(dir);
}

/* Folio coverage survives JSON, and every format shows the gap. */
static void test_roundtrip_coverage(void **state)
{
	static struct fs_report r, back, d;
	struct fs_histogram *h;
	char *dir = make_dir(), path[512], *text, *html;

	make_run(&r, false);
	r.coverage.warn = true;
	/* Group 0: 4 KiB and 2 MiB folios; group 1: only 4 KiB ones where
	 * the kernel makes large folios. */
	model__init(&d);
	model__enable(&d, FS_TGT_DEDUPE, true);
	model__enable(&d, FS_TGT_SHMEM, true);
	h = &d.target[FS_TGT_SHMEM].hist[FS_SH_FOLIO_SIZE];
	h->slot[fs_log2_slot(4096)] = 12;
	h->slot[fs_log2_slot(2 << 20)] = 3;
	assert_int_equal(model__coverage_add(&r, "tmpfs huge=always", -1,
					     "not judged", &d),
			 0);
	h->slot[fs_log2_slot(2 << 20)] = 0;
	assert_int_equal(model__coverage_add(&r, "tmpfs huge=never", 1,
					     "yes: a fact", &d),
			 0);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_int_equal(back.coverage.ngroups, 2);
	assert_memory_equal(&back.coverage, &r.coverage, sizeof(r.coverage));
	assert_same_renders(&r, &back);
	text = render(REPORT_FMT_TEXT, &back, NULL, NULL);
	assert_contains(text, "coverage: folio sizes met, per group");
	assert_contains(text, "  tmpfs huge=always: dedupe not measured; "
			      "shmem 4 KiB x12, 2 MiB x3; large folios: not "
			      "judged\n");
	assert_contains(text, "  tmpfs huge=never: dedupe not measured; "
			      "shmem 4 KiB x12; large folios: yes: a fact -- "
			      "WARNING: only page-sized folios met\n");
	html = render(REPORT_FMT_HTML, &back, NULL, NULL);
	assert_contains(html, "<h2>Folio coverage</h2>");
	assert_int_equal(count_of(html, "<td class=\"fail\">tmpfs huge="), 1);
	free(text);
	free(html);
	/* Not a matrix: the gap is in the JSON, the warning nowhere. */
	r.coverage.warn = false;
	assert_int_equal(report__json_write(&r, path), 0);
	assert_int_equal(report__json_read(path, &back), 0);
	assert_false(back.coverage.warn);
	assert_true(model__coverage_gap(&back, 1, FS_TGT_SHMEM));
	text = render(REPORT_FMT_TEXT, &back, NULL, NULL);
	assert_contains(text, "  tmpfs huge=never: dedupe not measured; "
			      "shmem 4 KiB x12; large folios: yes: a fact\n");
	assert_null(strstr(text, "WARNING"));
	html = render(REPORT_FMT_HTML, &back, NULL, NULL);
	assert_int_equal(count_of(html, "<td class=\"fail\">tmpfs huge="), 0);
	free(text);
	free(html);
	remove_dir(dir);
}

/* The committed fixtures are this file's runs, written by the writer. */
static void test_fixtures_current(void **state)
{
	static struct fs_report r;
	const char *paths[2] = { FIXTURE_BASE, FIXTURE_NEW };
	bool rewrite = getenv("FS_WRITE_FIXTURES");

	for (int i = 0; i < 2; i++) {
		char *want, *have;
		size_t lw, lh;
		FILE *f;

		make_run(&r, i == 1);
		if (rewrite)
			assert_int_equal(report__json_write(&r, paths[i]), 0);
		f = open_memstream(&want, &lw);
		assert_non_null(f);
		assert_int_equal(report__json_stream(f, &r), 0);
		fclose(f);
		have = slurp(paths[i], &lh);
		if (!have)
			fail_msg("%s missing (run from the top directory; "
				 "FS_WRITE_FIXTURES=1 writes it)",
				 paths[i]);
		if (lw != lh || memcmp(want, have, lw))
			fail_msg("%s is stale: FS_WRITE_FIXTURES=1 %s rewrites "
				 "it",
				 paths[i], "build/tests/test_export");
		free(want);
		free(have);
	}
}

/*
 * ---- checks computed apart from the exporters ----
 *
 * The fixtures above are what the exporters wrote once; these hold the
 * exported documents to the counts make_run recorded (fs_histogram.count,
 * kept by add_value/add_align, not by any exporter): every exported
 * histogram's buckets add up to its count, in JSON, OpenMetrics and CSV.
 */

/* Measured histograms of make_run's report: dedupe's folio_size and
 * caller_latency_ns are not. */
#define RUN_MEASURED (FS_DD_NHIST - 2 + FS_SH_NHIST)

static void test_json_bucket_sums(void **state)
{
	static struct fs_report r;

	for (int huge = 0; huge < 2; huge++) {
		struct json_object *root, *targets;
		int checked = 0;
		char *buf;

		make_run(&r, huge);
		buf = render(REPORT_FMT_JSON, &r, NULL, NULL);
		root = json_tokener_parse(buf);
		assert_non_null(root);
		assert_true(
			json_object_object_get_ex(root, "targets", &targets));
		for (int t = 0; t < FS_TGT_NR; t++) {
			const struct fs_target_report *tr = &r.target[t];
			struct json_object *jt, *hs;

			assert_true(json_object_object_get_ex(targets, tr->name,
							      &jt));
			assert_true(json_object_object_get_ex(jt, "histograms",
							      &hs));
			for (int i = 0; i < tr->nhists; i++) {
				const struct fs_histogram *h = &tr->hist[i];
				struct json_object *jh, *v, *bs;
				__u64 sum = 0;

				assert_true(json_object_object_get_ex(
					hs, h->spec->name, &jh));
				assert_true(json_object_object_get_ex(
					jh, "measured", &v));
				assert_int_equal(json_object_get_boolean(v),
						 h->measured);
				if (!h->measured) {
					assert_false(json_object_object_get_ex(
						jh, "buckets", &bs));
					continue;
				}
				assert_true(json_object_object_get_ex(
					jh, "buckets", &bs));
				for (size_t b = 0;
				     b < json_object_array_length(bs); b++) {
					assert_true(json_object_object_get_ex(
						json_object_array_get_idx(bs,
									  b),
						"count", &v));
					sum += json_object_get_uint64(v);
				}
				assert_true(json_object_object_get_ex(
					jh, "count", &v));
				assert_int_equal(json_object_get_uint64(v),
						 h->count);
				assert_int_equal(sum, h->count);
				checked++;
			}
		}
		assert_int_equal(checked, RUN_MEASURED);
		/* The scenario's own arithmetic: 16 MiB in 64 KiB reads plus
		 * the one at EOF, 64 dedupe ranges; 4 KiB folios copied one
		 * at a time, or one 64 KiB chunk per read from 2 MiB ones. */
		assert_int_equal(r.target[FS_TGT_SHMEM].hist[FS_SH_BYTES].count,
				 257);
		assert_int_equal(
			r.target[FS_TGT_SHMEM].hist[FS_SH_COPY_BYTES].count,
			huge ? 256 : 4096);
		assert_int_equal(
			r.target[FS_TGT_DEDUPE].hist[FS_DD_LATENCY].count, 64);
		json_object_put(root);
		free(buf);
	}
}

/* folioscope_<target>_<name> with the unit as suffix, ns as seconds
 * (docs/export.md). */
static void om_family(char *out, size_t cap, const char *target,
		      const struct fs_hist_spec *sp)
{
	size_t n = strlen(sp->name), u = strlen(sp->unit);

	if (!strcmp(sp->unit, "ns"))
		snprintf(out, cap, "folioscope_%s_%.*s_seconds", target,
			 (int)(n - 3), sp->name);
	else if (!strcmp(sp->name, sp->unit) ||
		 (n > u && sp->name[n - u - 1] == '_' &&
		  !strcmp(sp->name + n - u, sp->unit)))
		snprintf(out, cap, "folioscope_%s_%s", target, sp->name);
	else
		snprintf(out, cap, "folioscope_%s_%s_%s", target, sp->name,
			 sp->unit);
}

/* The value at the end of the line that starts at p. */
static __u64 line_value(const char *p)
{
	const char *e = strchr(p, '\n');

	assert_non_null(e);
	while (e > p && e[-1] != ' ')
		e--;
	return strtoull(e, NULL, 10);
}

static void test_openmetrics_bucket_sums(void **state)
{
	static struct fs_report r;

	for (int huge = 0; huge < 2; huge++) {
		int checked = 0;
		char *om;

		make_run(&r, huge);
		om = render(REPORT_FMT_OPENMETRICS, &r, NULL, NULL);
		for (int t = 0; t < FS_TGT_NR; t++) {
			const struct fs_target_report *tr = &r.target[t];

			for (int i = 0; i < tr->nhists; i++) {
				const struct fs_histogram *h = &tr->hist[i];
				char fam[128], key[160];
				const char *p;
				__u64 prev = 0, v = 0;
				int n = 0;

				om_family(fam, sizeof(fam), tr->name, h->spec);
				snprintf(key, sizeof(key), "\n%s_bucket{", fam);
				if (!h->measured) {
					assert_lacks(om, key);
					continue;
				}
				/* Cumulative: never down, +Inf last = count. */
				for (p = om; (p = strstr(p, key)); p++) {
					v = line_value(p + 1);
					assert_true(v >= prev);
					prev = v;
					n++;
				}
				assert_true(n > 1);
				assert_int_equal(v, h->count);
				snprintf(key, sizeof(key), "\n%s_count{", fam);
				p = strstr(om, key);
				assert_non_null(p);
				assert_int_equal(line_value(p + 1), h->count);
				checked++;
			}
		}
		assert_int_equal(checked, RUN_MEASURED);
		free(om);
	}
}

static void test_csv_bucket_sums(void **state)
{
	static struct fs_report r;

	for (int huge = 0; huge < 2; huge++) {
		__u64 sums[FS_TGT_NR][FS_MAX_HISTS] = { { 0 } };
		char *csv, *line, *save = NULL;
		int rows = 0;

		make_run(&r, huge);
		csv = render(REPORT_FMT_CSV, &r, NULL, NULL);
		line = strtok_r(csv, "\n", &save);
		assert_string_equal(line, "target,histogram,lo,hi,count\r");
		while ((line = strtok_r(NULL, "\n", &save))) {
			char tgt[32], name[32];
			unsigned long long lo, hi, count;
			int t, i;

			assert_int_equal(
				sscanf(line, "%31[^,],%31[^,],%llu,%llu,%llu\r",
				       tgt, name, &lo, &hi, &count),
				5);
			assert_true(lo <= hi);
			t = model__target_from_name(tgt);
			assert_true(t >= 0);
			for (i = 0; i < r.target[t].nhists; i++)
				if (!strcmp(r.target[t].hist[i].spec->name,
					    name))
					break;
			assert_true(i < r.target[t].nhists);
			assert_true(r.target[t].hist[i].measured);
			sums[t][i] += count;
			rows++;
		}
		assert_true(rows > 0);
		for (int t = 0; t < FS_TGT_NR; t++)
			for (int i = 0; i < r.target[t].nhists; i++)
				assert_int_equal(
					sums[t][i],
					r.target[t].hist[i].measured
						? r.target[t].hist[i].count
						: 0);
		free(csv);
	}
}

/*
 * One small run exported as CSV, the expected text written out by hand
 * from docs/export.md (target,histogram,lo,hi,count, RFC 4180 CRLF) and
 * the bucket edges of model.h (log2: [2^(k-1), 2^k - 1] and [0, 0];
 * alignment: one power of two), not taken from the exporter: targets in
 * order dedupe, shmem; each histogram's rows from its first non-empty
 * bucket to its last; empty and not-measured histograms have none.
 */
static void test_csv_by_hand(void **state)
{
	static struct fs_report r;
	struct fs_target_report *dd = &r.target[FS_TGT_DEDUPE];
	struct fs_target_report *sh = &r.target[FS_TGT_SHMEM];
	char *out;

	model__init(&r);
	model__enable(&r, FS_TGT_DEDUPE, true);
	model__enable(&r, FS_TGT_SHMEM, true);
	/* Dedupe: two 4 KiB ranges, one of 64 KiB, one of 100000 bytes, at
	 * source offsets aligned to 4K, 4K (12288) and 8K. */
	add_value(&dd->hist[FS_DD_BYTES], 4096);
	add_value(&dd->hist[FS_DD_BYTES], 4096);
	add_value(&dd->hist[FS_DD_BYTES], 65536);
	add_value(&dd->hist[FS_DD_BYTES], 100000);
	add_align(&dd->hist[FS_DD_SRC_ALIGN], 4096);
	add_align(&dd->hist[FS_DD_SRC_ALIGN], 12288);
	add_align(&dd->hist[FS_DD_SRC_ALIGN], 8192);
	model__not_measured(&r, FS_TGT_DEDUPE, FS_DD_FOLIO_SIZE, "inlined");
	/* Shmem: reads of 0, 1 and 3 bytes taking 1000 and 1500 ns. */
	add_value(&sh->hist[FS_SH_BYTES], 0);
	add_value(&sh->hist[FS_SH_BYTES], 1);
	add_value(&sh->hist[FS_SH_BYTES], 3);
	add_value(&sh->hist[FS_SH_LATENCY], 1000);
	add_value(&sh->hist[FS_SH_LATENCY], 1500);
	out = render(REPORT_FMT_CSV, &r, NULL, NULL);
	assert_string_equal(out, "target,histogram,lo,hi,count\r\n"
				 "dedupe,bytes,4096,8191,2\r\n"
				 "dedupe,bytes,8192,16383,0\r\n"
				 "dedupe,bytes,16384,32767,0\r\n"
				 "dedupe,bytes,32768,65535,0\r\n"
				 "dedupe,bytes,65536,131071,2\r\n"
				 "dedupe,src_align,4096,4096,2\r\n"
				 "dedupe,src_align,8192,8192,1\r\n"
				 "shmem,bytes,0,0,1\r\n"
				 "shmem,bytes,1,1,1\r\n"
				 "shmem,bytes,2,3,1\r\n"
				 "shmem,latency_ns,512,1023,1\r\n"
				 "shmem,latency_ns,1024,2047,1\r\n");
	free(out);
}

/* ---- atomic write ---- */

static void test_write_failures_leave_nothing(void **state)
{
	static struct fs_report r;
	char *dir = make_dir(), path[512];
	FILE *saved = stderr;

	make_run(&r, false);
	stderr = fopen("/dev/null", "w");
	snprintf(path, sizeof(path), "%s/nope/out.csv", dir);
	assert_int_equal(report__write(path, REPORT_FMT_CSV, &r, NULL),
			 -ENOENT);
	/* A directory in the way: the rename fails, the temp goes. */
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(report__write(path, REPORT_FMT_HTML, &r, NULL),
			 -EISDIR);
	/* Two runs in a one-run format: nothing written either. */
	snprintf(path, sizeof(path), "%s/two.csv", dir);
	assert_int_equal(report__write(path, REPORT_FMT_CSV, &r, &r), -EINVAL);
	fclose(stderr);
	stderr = saved;
	assert_int_equal(dir_entries(dir), 1);
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(dir_entries(path), 0);
	remove_dir(dir);
}

static void test_write_replaces(void **state)
{
	static struct fs_report r;
	char *dir = make_dir(), path[512], *got;
	struct stat st;

	make_run(&r, false);
	snprintf(path, sizeof(path), "%s/out.prom", dir);
	assert_int_equal(report__write_atomic(path, "old\n", 4), 0);
	assert_int_equal(report__write(path, REPORT_FMT_PROMETHEUS, &r, NULL),
			 0);
	got = slurp(path, NULL);
	assert_true(!strncmp(got, "# HELP folioscope_dedupe_calls_total ", 37));
	assert_int_equal(stat(path, &st), 0);
	/* Not mkstemp's 0600. */
	assert_true(st.st_mode & 0044);
	assert_int_equal(dir_entries(dir), 1);
	free(got);
	remove_dir(dir);
}

/* ---- /metrics ---- */

struct fill_ctx {
	struct fs_report *r;
	int calls;
	int err;
};

static int fill(void *ctx, struct fs_report *r)
{
	struct fill_ctx *c = ctx;

	c->calls++;
	if (c->err)
		return c->err;
	memcpy(r, c->r, sizeof(*r));
	/* Live counters grow between scrapes. */
	r->target[FS_TGT_SHMEM].counter[FS_SH_CALLS] += c->calls;
	return 0;
}

/* One HTTP/1.0 request to 127.0.0.1:port; the whole answer. */
static char *http(unsigned short port, const char *method, const char *path,
		  const char *accept)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char req[512], chunk[4096];
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *m;
	int fd;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req, sizeof(req),
		 "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s%s%s\r\n", method,
		 path, accept ? "Accept: " : "", accept ? accept : "",
		 accept ? "\r\n" : "");
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	m = open_memstream(&buf, &len);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	close(fd);
	return buf;
}

static void test_serve_metrics(void **state)
{
	static struct fs_report r, expect;
	struct fill_ctx ctx = { .r = &r };
	struct serve *s = NULL, *s2 = NULL;
	char addr[64], *resp, *want;
	unsigned short port;
	FILE *saved = stderr;

	make_run(&r, false);
	assert_int_equal(serve__start(&s, "127.0.0.1:0", NULL, fill, &ctx), 0);
	port = serve__port(s);
	assert_true(port > 0);
	snprintf(addr, sizeof(addr), "http://127.0.0.1:%u/metrics", port);
	assert_string_equal(serve__url(s), addr);

	/* Prometheus' Accept: OpenMetrics, exactly the file format. */
	resp = http(port, "GET", "/metrics",
		    "application/openmetrics-text;version=1.0.0,text/plain;"
		    "version=0.0.4;q=0.5,*/*;q=0.1");
	assert_contains(resp, " 200 OK\r\n");
	assert_contains(resp, "Content-Type: application/openmetrics-text; "
			      "version=1.0.0; charset=utf-8\r\n");
	memcpy(&expect, &r, sizeof(r));
	expect.target[FS_TGT_SHMEM].counter[FS_SH_CALLS] += 1;
	want = render(REPORT_FMT_OPENMETRICS, &expect, NULL, NULL);
	assert_non_null(strstr(resp, "\r\n\r\n"));
	assert_string_equal(strstr(resp, "\r\n\r\n") + 4, want);
	free(resp);
	free(want);

	/* curl: 0.0.4 text; and the counter has grown. */
	resp = http(port, "GET", "/metrics", NULL);
	assert_contains(resp, "Content-Type: text/plain; version=0.0.4; "
			      "charset=utf-8\r\n");
	assert_contains(resp, "folioscope_shmem_calls_total{kernel=\"6.1.0-13-"
			      "cloud-amd64\",mechanism=\"fentry\"} 259\n");
	free(resp);
	resp = http(port, "GET", "/nope", NULL);
	assert_contains(resp, " 404 ");
	free(resp);
	/* The same report as a page and as JSON (fill's, without opts). */
	resp = http(port, "GET", "/report.html", NULL);
	assert_contains(resp, " 200 OK\r\n");
	assert_contains(resp, "Content-Type: text/html; charset=utf-8\r\n");
	assert_contains(resp, "<title>folioscope report: 6.1.0-13-cloud-amd64"
			      "</title>");
	assert_null(strstr(resp, "http-equiv=\"refresh\""));
	free(resp);
	resp = http(port, "GET", "/report.json", NULL);
	assert_contains(resp, "Content-Type: application/json; "
			      "charset=utf-8\r\n");
	assert_contains(resp, "\"schema\": \"folioscope/1\"");
	free(resp);
	resp = http(port, "POST", "/metrics", NULL);
	assert_contains(resp, " 405 ");
	assert_contains(resp, "Allow: GET, HEAD\r\n");
	free(resp);
	ctx.err = -EIO;
	resp = http(port, "GET", "/metrics", NULL);
	assert_contains(resp, " 500 ");
	assert_contains(resp, "cannot collect: Input/output error");
	free(resp);

	stderr = fopen("/dev/null", "w");
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	assert_int_equal(serve__start(&s2, addr, NULL, fill, &ctx),
			 -EADDRINUSE);
	snprintf(addr, sizeof(addr), ":%u", port);
	assert_int_equal(serve__start(&s2, addr, NULL, fill, &ctx),
			 -EADDRINUSE);
	fclose(stderr);
	stderr = saved;
	serve__stop(s);
}

static void test_serve_addresses(void **state)
{
	static const struct {
		const char *addr;
		bool remote;
		int err;
	} cases[] = {
		{ "0.0.0.0:0", false, -EACCES },
		{ "192.0.2.1:9100", false, -EACCES },
		{ "[::]:0", false, -EACCES },
		/* Allowed, then refused by the kernel: no such local
		 * address, and nothing listens beyond loopback. */
		{ "192.0.2.1:0", true, -EADDRNOTAVAIL },
		{ "localhost:0", false, 0 },
		{ "127.0.0.2:0", false, 0 },
		{ "0", false, 0 },
		{ "", false, -EINVAL },
		{ "127.0.0.1", false, -EINVAL },
		{ "127.0.0.1:65536", false, -EINVAL },
		{ "127.0.0.1:-1", false, -EINVAL },
		{ "127.0.0.1:80x", false, -EINVAL },
		{ "::1:9100", false, -EINVAL },
		{ "[::1]9100", false, -EINVAL },
		{ "example.org:80", false, -EINVAL },
	};
	struct fill_ctx ctx = { .r = NULL };
	FILE *saved = stderr;

	stderr = fopen("/dev/null", "w");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct serve_opts o = { .allow_remote = cases[i].remote };
		struct serve *s = NULL;
		int err = serve__start(&s, cases[i].addr, &o, fill, &ctx);

		if (err != cases[i].err) {
			fclose(stderr);
			stderr = saved;
			fail_msg("'%s': got %d, want %d", cases[i].addr, err,
				 cases[i].err);
		}
		serve__stop(err ? NULL : s);
	}
	fclose(stderr);
	stderr = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_human_units),
		cmocka_unit_test(test_chart_pieces),
		cmocka_unit_test(test_csv_rows),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_openmetrics_histogram),
		cmocka_unit_test(test_openmetrics_escaping),
		cmocka_unit_test(test_openmetrics_processes),
		cmocka_unit_test(test_breakdown_cgroups),
		cmocka_unit_test(test_openmetrics_validation),
		cmocka_unit_test(test_html_charts),
		cmocka_unit_test(test_ab_view),
		cmocka_unit_test(test_svg_document),
		cmocka_unit_test(test_two_runs_need_picture),
		cmocka_unit_test(test_roundtrip_same_bytes),
		cmocka_unit_test(test_optional_histogram),
		cmocka_unit_test(test_roundtrip_disturbed),
		cmocka_unit_test(test_roundtrip_skips),
		cmocka_unit_test(test_roundtrip_coverage),
		cmocka_unit_test(test_roundtrip_groups),
		cmocka_unit_test(test_fixtures_current),
		cmocka_unit_test(test_json_bucket_sums),
		cmocka_unit_test(test_openmetrics_bucket_sums),
		cmocka_unit_test(test_csv_bucket_sums),
		cmocka_unit_test(test_csv_by_hand),
		cmocka_unit_test(test_write_failures_leave_nothing),
		cmocka_unit_test(test_write_replaces),
		cmocka_unit_test(test_serve_metrics),
		cmocka_unit_test(test_serve_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
