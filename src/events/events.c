// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-call events as output: lines and JSON Lines. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include "events/events.h"
#include "util/fs.h"
#include "report/report.h"
#include "util/err.h"
#include "util/jsonb.h"

struct evout {
	FILE *out;
	/* JSON Lines: straight to a pipe, else into memory and written
	 * atomically at the end. */
	const char *json_path;
	FILE *json;
	bool json_stream;
	char *jbuf;
	size_t jlen;
	__u64 t0_ns;	/* CLOCK_MONOTONIC at open, bpf_ktime_get_ns's clock */
	__u64 json_oom; /* events the JSON could not hold: out of memory */
	/* The last file resolved, for runs of events on one file. */
	__u32 c_pid, c_dev;
	__u64 c_ino;
	char c_path[PATH_MAX];
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Does link (a /proc fd entry) lead to dev:ino? Its target into out. */
static bool path__match(const char *link, dev_t dev, __u64 ino, char *out,
			size_t n)
{
	struct stat st;
	dev_t sb_dev;
	ssize_t len;

	if (stat(link, &st) || st.st_ino != ino)
		return false;
	/* The event has the superblock's device, which is not st_dev on
	 * btrfs (a subvolume's). */
	if (st.st_dev != dev && (path__sb_dev(link, &sb_dev) || sb_dev != dev))
		return false;
	len = readlink(link, out, n - 1);
	if (len < 0)
		return false;
	out[len] = '\0';
	return true;
}

/*
 * The path of the event's file, from the process's open descriptors: the
 * call's own fd when the level saw it, else any fd on the same dev:ino.
 * False when the process or the file has gone (a short-lived process's
 * events are read after it exited).
 */
static bool ev__path(struct evout *o, const struct fs_event *e, char *out,
		     size_t n)
{
	dev_t dev = makedev(e->dev >> 20, e->dev & 0xfffff);
	char link[64];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	if (o->c_path[0] && o->c_pid == e->pid && o->c_dev == e->dev &&
	    o->c_ino == e->ino) {
		snprintf(out, n, "%s", o->c_path);
		return true;
	}
	if (e->flags & FS_EVF_FD) {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", e->tid, e->fd);
		found = path__match(link, dev, e->ino, out, n);
	}
	if (!found) {
		snprintf(link, sizeof(link), "/proc/%u/fd", e->pid);
		dir = opendir(link);
		while (dir && !found && (d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(link, sizeof(link), "/proc/%u/fd/%s", e->pid,
				 d->d_name);
			found = path__match(link, dev, e->ino, out, n);
		}
		if (dir)
			closedir(dir);
	}
	if (found) {
		o->c_pid = e->pid;
		o->c_dev = e->dev;
		o->c_ino = e->ino;
		snprintf(o->c_path, sizeof(o->c_path), "%s", out);
	}
	return found;
}

/* RESULT column: SAME, DIFFERS, OK, SHORT (fewer bytes than asked),
 * the errno's name, or "-" when the level sees no result. */
static void ev__result(const struct fs_event *e, char *out, size_t n)
{
	const char *name;

	switch (e->result) {
	case FS_EV_SAME:
		snprintf(out, n, "SAME");
		break;
	case FS_EV_DIFFERS:
		snprintf(out, n, "DIFFERS");
		break;
	case FS_EV_OK:
		snprintf(out, n, "%s", (__u64)e->ret < e->req ? "SHORT" : "OK");
		break;
	case FS_EV_ERROR:
		name = strerrorname_np((int)-e->ret);
		if (name)
			snprintf(out, n, "%s", name);
		else
			snprintf(out, n, "E%lld", (long long)-e->ret);
		break;
	default:
		snprintf(out, n, "-");
		break;
	}
}

static void u64_or_dash(char *out, size_t n, bool seen, __u64 v)
{
	if (seen)
		snprintf(out, n, "%" PRIu64, (uint64_t)v);
	else
		snprintf(out, n, "-");
}

/* "min-max/count" of the folios or chunks a call met, "-" if not seen. */
static void minmax(char *out, size_t n, bool seen, __u64 lo, __u64 hi,
		   __u32 count)
{
	if (!seen)
		snprintf(out, n, "-");
	else if (!count)
		snprintf(out, n, "0");
	else
		snprintf(out, n, "%" PRIu64 "-%" PRIu64 "/%u", (uint64_t)lo,
			 (uint64_t)hi, count);
}

static const char header[] =
	"TIME(s)     COMM             PID     TID CPU TARGET MECH    "
	"   LAT(us) RESULT       OFFSET       OFF2        REQ        RET "
	"ALIGN         FOLIOS            CHUNKS            FILE\n";

static void ev__line(struct evout *o, enum fs_target t, const char *mech,
		     __u32 f, const struct fs_event *e, const char *path)
{
	char res[32], off2[24], ret[24], al[48], fol[64], chk[64], file[64];
	char bal[24];
	bool is_dd = t == FS_TGT_DEDUPE;

	ev__result(e, res, sizeof(res));
	u64_or_dash(off2, sizeof(off2), f & FS_EVF_DST, e->off2);
	if (f & FS_EVF_LEN)
		snprintf(ret, sizeof(ret), "%lld", (long long)e->ret);
	else
		snprintf(ret, sizeof(ret), "-");
	u64_or_dash(bal, sizeof(bal), is_dd ? f & FS_EVF_DST : f & FS_EVF_BUF,
		    fs_alignment(is_dd ? e->off2 : e->buf));
	snprintf(al, sizeof(al), "%" PRIu64 "/%s",
		 (uint64_t)fs_alignment(e->off), bal);
	minmax(fol, sizeof(fol), f & FS_EVF_FOLIO, e->folio_min, e->folio_max,
	       e->folio_n);
	minmax(chk, sizeof(chk), f & FS_EVF_CHUNK, e->chunk_min, e->chunk_max,
	       e->chunk_n);
	if (f & FS_EVF_FILE)
		snprintf(file, sizeof(file), "dev=%u:%u,ino=%" PRIu64,
			 e->dev >> 20, e->dev & 0xfffff, (uint64_t)e->ino);
	else
		snprintf(file, sizeof(file), "-");
	fprintf(o->out,
		"%-11.6f %-16.16s %-7u %-7u %-3u %-6s %-7s %10.3f %-7s "
		"%10" PRIu64 " %10s %10" PRIu64 " %10s %-13s %-17s %-17s %s\n",
		e->ts_ns > o->t0_ns ? (e->ts_ns - o->t0_ns) / 1e9 : 0.0,
		e->comm, e->pid, e->tid, e->cpu, model__target_name(t), mech,
		e->lat_ns / 1e3, res, (uint64_t)e->off, off2, (uint64_t)e->req,
		ret, al, fol, chk, path ? path : file);
	fflush(o->out);
}

/* key: v, or null when !have (v is then not built). */
#define PUT_IF(b, o, key, have, v)                                             \
	do {                                                                   \
		if (have)                                                      \
			jsonb__put(b, o, key, v);                              \
		else                                                           \
			jsonb__put_null(b, o, key);                            \
	} while (0)

static void put_minmax(struct jsonb *b, json_object *j, const char *key,
		       bool seen, __u64 lo, __u64 hi, __u32 n)
{
	json_object *o;

	if (!seen) {
		jsonb__put_null(b, j, key);
		return;
	}
	o = jsonb__put(b, j, key, json_object_new_object());
	PUT_IF(b, o, "min", n, json_object_new_uint64(lo));
	PUT_IF(b, o, "max", n, json_object_new_uint64(hi));
	jsonb__put(b, o, "count", json_object_new_uint64(n));
}

static void ev__json(struct evout *o, enum fs_target t, const char *mech,
		     __u32 f, const struct fs_event *e, const char *path)
{
	struct jsonb b = { .oom = false };
	json_object *j = json_object_new_object(), *file;
	const char *text;
	char res[32], dev[24];
	bool is_dd = t == FS_TGT_DEDUPE;

	ev__result(e, res, sizeof(res));
	jsonb__put(&b, j, "type", json_object_new_string("event"));
	jsonb__put(&b, j, "time_ns", json_object_new_uint64(e->ts_ns));
	jsonb__put(&b, j, "time_s",
		   json_object_new_double(e->ts_ns > o->t0_ns
						  ? (e->ts_ns - o->t0_ns) / 1e9
						  : 0.0));
	jsonb__put(&b, j, "pid", json_object_new_uint64(e->pid));
	jsonb__put(&b, j, "tid", json_object_new_uint64(e->tid));
	jsonb__put(&b, j, "comm", JSONB_STR(e->comm));
	jsonb__put(&b, j, "cpu", json_object_new_uint64(e->cpu));
	jsonb__put(&b, j, "target",
		   json_object_new_string(model__target_name(t)));
	jsonb__put(&b, j, "mechanism", json_object_new_string(mech));
	if (f & FS_EVF_FILE) {
		file = jsonb__put(&b, j, "file", json_object_new_object());
		snprintf(dev, sizeof(dev), "%u:%u", e->dev >> 20,
			 e->dev & 0xfffff);
		jsonb__put(&b, file, "dev", json_object_new_string(dev));
		jsonb__put(&b, file, "ino", json_object_new_uint64(e->ino));
		jsonb__put_str_or_null(&b, file, "path", path);
	} else {
		jsonb__put_null(&b, j, "file");
	}
	PUT_IF(&b, j, "fd", f & FS_EVF_FD, json_object_new_int(e->fd));
	jsonb__put(&b, j, "offset", json_object_new_uint64(e->off));
	jsonb__put(&b, j, "offset_align",
		   json_object_new_uint64(fs_alignment(e->off)));
	if (is_dd) {
		PUT_IF(&b, j, "dst_offset", f & FS_EVF_DST,
		       json_object_new_uint64(e->off2));
		PUT_IF(&b, j, "dst_align", f & FS_EVF_DST,
		       json_object_new_uint64(fs_alignment(e->off2)));
	} else {
		PUT_IF(&b, j, "buf_align", f & FS_EVF_BUF,
		       json_object_new_uint64(fs_alignment(e->buf)));
	}
	jsonb__put(&b, j, "req_bytes", json_object_new_uint64(e->req));
	PUT_IF(&b, j, "ret", f & FS_EVF_LEN, json_object_new_int64(e->ret));
	jsonb__put(&b, j, "result", json_object_new_string(res));
	PUT_IF(&b, j, "errno", e->result == FS_EV_ERROR,
	       json_object_new_int((int)-e->ret));
	jsonb__put(&b, j, "latency_ns", json_object_new_uint64(e->lat_ns));
	put_minmax(&b, j, "folios", f & FS_EVF_FOLIO, e->folio_min,
		   e->folio_max, e->folio_n);
	if (!is_dd)
		put_minmax(&b, j, "chunks", f & FS_EVF_CHUNK, e->chunk_min,
			   e->chunk_max, e->chunk_n);
	text = j && !b.oom ? json_object_to_json_string_ext(
				     j, JSON_C_TO_STRING_PLAIN)
			   : NULL;
	if (text) {
		fprintf(o->json, "%s\n", text);
		fflush(o->json);
	} else {
		o->json_oom++;
	}
	json_object_put(j);
}

void evout__event(void *ctx, enum fs_target t, const char *mech, __u32 seen,
		  const struct fs_event *e)
{
	struct evout *o = ctx;
	char path[PATH_MAX];
	__u32 f = e->flags & seen;
	bool have_path =
		(f & FS_EVF_FILE) && ev__path(o, e, path, sizeof(path));

	ev__line(o, t, mech, f, e, have_path ? path : NULL);
	if (o->json)
		ev__json(o, t, mech, f, e, have_path ? path : NULL);
}

/* What an attach level leaves out, as "folios, copy chunks". */
static void unseen(enum fs_target t, __u32 seen, const char *mech, char *out,
		   size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	if (!(seen & FS_EVF_FOLIO))
		len += snprintf(out + len, n - len, "folio sizes");
	if (t == FS_TGT_SHMEM && !(seen & FS_EVF_CHUNK) && len < n)
		len += snprintf(out + len, n - len, "%scopy chunks",
				len ? ", " : "");
	if (strcmp(mech, "syscall") && len < n)
		snprintf(out + len, n - len,
			 "%sfds (paths from any open fd "
			 "on the same file)",
			 len ? ", " : "");
}

int evout__open(struct evout **op, const char *json, struct session *s,
		FILE *out, bool quiet)
{
	struct evout *o = calloc(1, sizeof(*o));
	struct stat st;
	char why[160];
	int err;

	if (!o)
		return -ENOMEM;
	o->out = out;
	o->json_path = json;
	if (json) {
		o->json_stream = !strcmp(json, "-") ||
				 (!stat(json, &st) && !S_ISREG(st.st_mode));
		o->json = o->json_stream ? (strcmp(json, "-") ? fopen(json, "w")
							      : stdout)
					 : open_memstream(&o->jbuf, &o->jlen);
		if (!o->json) {
			err = -errno;
			err__print(NULL, err, "cannot write '%s'", json);
			free(o);
			return err;
		}
	}
	if (!quiet) {
		for (int t = 0; t < FS_TGT_NR; t++) {
			const struct plan *p = &s->plan[t];
			const char *mech;

			if (!s->probe[t])
				continue;
			mech = plan__mech_name(p->step[p->chosen].mech);
			unseen(t, probe__events_seen(s->probe[t]), mech, why,
			       sizeof(why));
			if (why[0])
				fprintf(out,
					"# %s via %s does not see: %s (-)\n",
					model__target_name(t), mech, why);
		}
		fputs(header, out);
		fflush(out);
	}
	err = session__events_start(s, evout__event, o);
	if (err) {
		if (o->json && o->json != stdout)
			fclose(o->json);
		free(o->jbuf);
		free(o);
		return err;
	}
	o->t0_ns = mono_ns();
	*op = o;
	return 0;
}

int evout__close(struct evout *o, struct session *s)
{
	struct fs_report *r = malloc(sizeof(*r));
	int err = 0;

	if (!o) {
		free(r);
		return 0;
	}
	if (r) {
		model__init(r);
		if (session__collect(s, r, false)) {
			model__free(r);
			free(r);
			r = NULL;
		}
	}
	/* After the counters' read: every event they count is drained. */
	session__events_drain(s);
	for (int t = 0; r && t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];
		int ce = model__counter_index(r, t, "events");
		int cl = model__counter_index(r, t, "events_lost");

		if (!tr->enabled || ce < 0 || cl < 0)
			continue;
		fprintf(o->out,
			"%s: events %" PRIu64 ", events lost %" PRIu64 "\n",
			tr->name, (uint64_t)tr->counter[ce],
			(uint64_t)tr->counter[cl]);
		if (o->json)
			fprintf(o->json,
				"{\"type\":\"summary\",\"target\":\"%s\","
				"\"events\":%" PRIu64
				",\"events_lost\":%" PRIu64 "}\n",
				tr->name, (uint64_t)tr->counter[ce],
				(uint64_t)tr->counter[cl]);
	}
	fflush(o->out);
	if (o->json_oom) {
		err = -ENOMEM;
		err__print(NULL, err, "%" PRIu64 " events left out of '%s'",
			   (uint64_t)o->json_oom, o->json_path);
	}
	if (o->json && o->json_stream) {
		if (o->json != stdout && fclose(o->json))
			err = -errno;
	} else if (o->json) {
		if (fclose(o->json))
			err = -ENOMEM;
		else if (!err)
			err = report__write_atomic(o->json_path, o->jbuf,
						   o->jlen);
		if (err && !o->json_oom)
			err__print(NULL, err, "cannot write '%s'",
				   o->json_path);
	}
	free(o->jbuf);
	free(o);
	if (r)
		model__free(r);
	free(r);
	return err;
}
