// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tiers of validate, each there for the bugs the others miss
 * (docs/validation.md): the matrices, every way into both paths at the
 * sizes and offsets that matter; random layouts, the space between; and
 * sequences of operations, the file states a layout never makes (holes
 * punched into large folios, fallocated ranges, truncations, mmap
 * writes). Each tier is a `folioscope run` child: a call that never
 * returns, or a run that dies, is that tier's failure, and the others
 * still run.
 *
 * The budget: the matrices run first and whole, the floor of coverage;
 * the time left is shared evenly by the runs of the drawn tiers still to
 * come (one that ends early leaves its time to the next), each at least
 * a twentieth of the budget, passed as run's --time-limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "runguard.h"
#include "tiers.h"
#include "report/report.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/proc.h"
#include "util/util.h"
#include "workload/options.h"

enum tier_mode { TM_MATRIX, TM_RANDOM, TM_OPS, TM_RACE, TM_NR };

static const char *const mode_names[TM_NR] = { "matrix", "random", "ops",
					       "race" };

/* The race tiers: the mutator and three readers (run --ops --jobs). */
#define RACE_JOBS "4"

/* --only's names, and the tiers' ("shmem ops"). */
static const char *const kind_names[WL_KIND_NR] = {
	[WL_DEDUPE] = "dedupe",
	[WL_SHMEM] = "shmem",
};

struct tier {
	enum wl_kind kind;
	enum tier_mode mode;
	/* Runs, with seeds seed .. seed + runs - 1 (drawn tiers). */
	unsigned int runs;
};

/* In this order: the matrices first, both workloads in turn. */
static const struct tier table[] = {
	{ WL_SHMEM, TM_MATRIX, 1 },
	{ WL_DEDUPE, TM_MATRIX, 1 },
	{ WL_SHMEM, TM_RANDOM, 1 },
	{ WL_DEDUPE, TM_RANDOM, 1 },
	{ WL_SHMEM, TM_OPS, 1 },
	/* xfs's block size is drawn from the seed (seed % 3 picks 1024,
	 * 2048 or 4096): three seeds in a row meet all three. */
	{ WL_DEDUPE, TM_OPS, 3 },
	/* The sequences again, with readers racing them. */
	{ WL_SHMEM, TM_RACE, 1 },
	{ WL_DEDUPE, TM_RACE, 1 },
};

/* What the tiers' reports say together, besides their groups. */
struct tiers_sum {
	char reconcile[256];  /* "" until a tier says other than ok */
	bool reconcile_seen;  /* some tier reconciled */
	bool mismatch;	      /* a tier's probes did not add up */
	char kernel_log[256]; /* "" while clean */
	bool kernel_log_seen;
	__u64 ways_missed; /* bit per enum wl_way, over the shmem tiers */
	bool ways_seen;
};

struct tiers {
	struct tier_opts o;
	char dir[PATH_MAX];
	char exe[PATH_MAX];
	int fifo_fd; /* the children's FOLIOSCOPE_VM_EXIT */
	__u64 start_ms;
	struct tiers_sum sum;
	int ran;      /* tiers run */
	bool lingers; /* a child's call never returned: it stays */
	bool disturbed;
};

int tiers__parse_only(const char *s, unsigned int *kinds)
{
	for (int k = 0; k < WL_KIND_NR; k++)
		if (!strcmp(s, kind_names[k])) {
			*kinds = 1u << k;
			return 0;
		}
	return -EINVAL;
}

int tiers__parse_modes(const char *s, unsigned int *modes)
{
	const char *p = s;

	*modes = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		int m;

		for (m = 0; m < TM_NR; m++)
			if (strlen(mode_names[m]) == n &&
			    !strncmp(p, mode_names[m], n))
				break;
		if (m == TM_NR || *modes & (1u << m))
			return -EINVAL;
		*modes |= 1u << m;
		p += n;
		if (*p && !*++p)
			return -EINVAL; /* a trailing comma */
	}
	return *modes ? 0 : -EINVAL;
}

static bool chosen(const struct tiers *t, const struct tier *tr)
{
	return (!t->o.kinds || t->o.kinds & (1u << tr->kind)) &&
	       (!t->o.modes || t->o.modes & (1u << tr->mode));
}

static void tier_name(const struct tier *tr, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s", kind_names[tr->kind], mode_names[tr->mode]);
}

int tiers__open(struct tiers **out, const struct tier_opts *o)
{
	const char *tmp = getenv("TMPDIR");
	struct tiers *t;
	char fifo[PATH_MAX + 8];
	ssize_t n;
	int err = 0;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err__print("validate", -ENOMEM, "allocate the tiers");
		return -ENOMEM;
	}
	t->o = *o;
	t->fifo_fd = -1;
	n = readlink("/proc/self/exe", t->exe, sizeof(t->exe) - 1);
	if (n <= 0) {
		err = n < 0 ? -errno : -EIO;
		err__print("validate", err, "readlink /proc/self/exe");
		goto fail;
	}
	t->exe[n] = '\0';
	snprintf(t->dir, sizeof(t->dir), "%s/folioscope-validate-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir)) {
		err = -errno;
		err__print("validate", err, "make a work dir in %s",
			   tmp && *tmp ? tmp : "/tmp");
		t->dir[0] = '\0';
		goto fail;
	}
	/* Read and write: the fifo never reads as closed between the
	 * children that write it. */
	snprintf(fifo, sizeof(fifo), "%s/exit", t->dir);
	if (mkfifo(fifo, 0600) ||
	    (t->fifo_fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    setenv("FOLIOSCOPE_VM_EXIT", fifo, 1)) {
		err = -errno;
		err__print("validate", err, "make the fifo %s", fifo);
		goto fail;
	}
	*out = t;
	return 0;
fail:
	tiers__destroy(t);
	return err;
}

void tiers__destroy(struct tiers *t)
{
	char path[PATH_MAX + 32];

	if (!t)
		return;
	if (t->fifo_fd >= 0)
		close(t->fifo_fd);
	if (t->dir[0]) {
		/* The fifo; nothing else is made here. */
		snprintf(path, sizeof(path), "%s/exit", t->dir);
		unlink(path);
		rmdir(t->dir);
	}
	free(t);
}

/* "1m40s", "12s", "250ms": a --time-limit run takes it back. */
static void duration_text(__u64 ms, char *buf, size_t n)
{
	if (ms % 1000)
		snprintf(buf, n, "%llums", (unsigned long long)ms);
	else if (ms >= 60000 && !(ms % 60000))
		snprintf(buf, n, "%llum", (unsigned long long)(ms / 60000));
	else
		snprintf(buf, n, "%llus", (unsigned long long)(ms / 1000));
}

/* One run of a tier: its arguments, and the command a user types. */
struct run_cmd {
	char *argv[24];
	int argc;
	char strs[6][32];
	char shown[400]; /* "folioscope run shmem-read --random 64 ..." */
};

static void arg(struct run_cmd *c, const char *a, bool shown)
{
	size_t len = strlen(c->shown);

	if (c->argc < (int)ARRAY_SIZE(c->argv) - 1)
		c->argv[c->argc++] = (char *)a;
	if (shown)
		snprintf(c->shown + len, sizeof(c->shown) - len, " %s", a);
}

static const char *num(struct run_cmd *c, int i, __u64 v)
{
	snprintf(c->strs[i], sizeof(c->strs[i]), "%llu", (unsigned long long)v);
	return c->strs[i];
}

static void build_cmd(const struct tiers *t, const struct tier *tr, size_t ti,
		      unsigned int run, __u64 limit_ms, struct run_cmd *c)
{
	const struct tier_opts *o = &t->o;

	memset(c, 0, sizeof(*c));
	snprintf(c->shown, sizeof(c->shown), "folioscope run");
	c->argv[c->argc++] = (char *)t->exe;
	c->argv[c->argc++] = "run";
	arg(c, wl_kind__name(tr->kind), true);
	switch (tr->mode) {
	case TM_MATRIX:
		arg(c, "--matrix", true);
		break;
	case TM_RANDOM:
	case TM_OPS:
	case TM_RACE:
		if (tr->mode == TM_RACE) {
			arg(c, "--jobs", true);
			arg(c, RACE_JOBS, true);
		}
		arg(c, tr->mode == TM_RANDOM ? "--random" : "--ops", true);
		arg(c, num(c, 0, tr->mode == TM_RANDOM ? o->random : o->ops),
		    true);
		arg(c, "--seed", true);
		arg(c, num(c, 1, o->seed + run), true);
		arg(c, "--time-limit", true);
		duration_text(limit_ms, c->strs[2], sizeof(c->strs[2]));
		arg(c, c->strs[2], true);
		break;
	default:
		break;
	}
	if (o->mode) {
		arg(c, "-m", true);
		arg(c, o->mode, true);
	}
	if (o->btf) {
		arg(c, "--btf", true);
		arg(c, o->btf, true);
	}
	if (o->debuginfo) {
		arg(c, "--debuginfo", true);
		arg(c, o->debuginfo, true);
	}
	if (o->verbose)
		arg(c, "-v", false);
	/* The report on its stdout, a pipe: not a file of the kernel under
	 * test, whose tmpfs reads may be what is wrong. */
	arg(c, "--format", false);
	arg(c, "json", false);
	c->argv[c->argc] = NULL;
}

static __u64 kv_u64(const struct fs_report *r, const char *key)
{
	const struct fs_kv *kv = model__kv_find(r, key);

	return kv && kv->type == FS_KV_U64 ? kv->u : 0;
}

static const char *kv_str(const struct fs_report *r, const char *key)
{
	const struct fs_kv *kv = model__kv_find(r, key);

	return kv && kv->type == FS_KV_STR ? kv->s : NULL;
}

static void append(char *buf, size_t n, const char *fmt, const char *a,
		   const char *b)
{
	size_t len = strlen(buf);

	if (len < n)
		snprintf(buf + len, n - len, fmt, len ? "; " : "", a, b);
}

/* A run's reconcile, kernel log and ways into the sums. */
static void sum_run(struct tiers_sum *s, const char *name,
		    const struct fs_report *r)
{
	const char *rec = kv_str(r, "reconcile");
	const char *klog = kv_str(r, "kernel_log");
	const char *missed = kv_str(r, "ways_missed");

	if (rec) {
		s->reconcile_seen = true;
		if (strcmp(rec, "ok"))
			append(s->reconcile, sizeof(s->reconcile), "%s%s: %s",
			       name, rec);
		s->mismatch |= !strcmp(rec, "MISMATCH");
	}
	if (klog) {
		s->kernel_log_seen = true;
		if (strcmp(klog, "clean"))
			append(s->kernel_log, sizeof(s->kernel_log), "%s%s: %s",
			       name, klog);
	}
	if (missed) {
		__u64 mask = 0;
		char copy[256], *tok, *save = NULL;

		snprintf(copy, sizeof(copy), "%s", missed);
		for (tok = strtok_r(copy, ", ", &save); tok;
		     tok = strtok_r(NULL, ", ", &save))
			if (wl_way__parse(tok) >= 0)
				mask |= 1ULL << wl_way__parse(tok);
		s->ways_missed = s->ways_seen ? s->ways_missed & mask : mask;
		s->ways_seen = true;
	}
}

/* What one run of a tier came to. */
struct run_end {
	int status;    /* waitpid's, when it exited */
	bool exited;   /* else it announced its exit, or was not run */
	int announced; /* the status it announced */
	bool reported; /* its report read and merged */
	__u64 drawn;   /* layouts or operations that ran */
	__u64 ms;
};

/*
 * Run one part of tier tr into r's group name: spawn, wait for its exit
 * or its announcement, read its report and merge it. A run without a
 * report is a failed check of kind "no verdict".
 */
static int run_one(struct tiers *t, const struct tier *tr, const char *name,
		   const struct run_cmd *c, struct fs_report *r,
		   struct fs_report *one, struct run_end *e)
{
	struct proc_io io = { .in_fd = -1, .err_fd = -1, .pdeathsig = true };
	/* Every tier keeps its first failures and replays. */
	const struct fs_merge m = {
		.group = name,
		.max_cases = FS_MAX_CASES / (int)ARRAY_SIZE(table),
		.max_replays = FS_MAX_REPLAYS / (int)ARRAY_SIZE(table),
	};
	/* A run whose call never returns writes its report, says so and
	 * ends, most often within the grace; else it lingers. */
	struct proc_wait w = { .announce_fd = t->fifo_fd, .grace_ms = 10000 };
	__u64 t0 = clock__now_ms();
	char got[160];
	int out[2], err;
	pid_t pid;

	memset(e, 0, sizeof(*e));
	if (pipe2(out, O_CLOEXEC)) {
		err = -errno;
		err__print("validate", err, "a pipe for %s", c->shown);
		return err;
	}
	io.out_fd = out[1];
	pid = proc__spawn(c->argv, &io);
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		err__print("validate", pid, "start %s", c->shown);
		return pid;
	}
	w.out_fd = out[0];
	err = proc__wait_announced(pid, &w);
	close(out[0]);
	if (err) {
		free(w.out);
		err__print("validate", err, "wait for %s", c->shown);
		return err;
	}
	e->exited = w.exited;
	e->status = w.status;
	e->announced = w.announced;
	t->lingers |= !e->exited;
	e->ms = clock__now_ms() - t0;
	err = w.out ? report__json_parse(w.out, w.out_len, c->shown, one)
		    : -ENODATA;
	free(w.out);
	if (!err) {
		e->reported = true;
		e->drawn = tr->mode == TM_RANDOM   ? kv_u64(one, "random_ran")
			   : tr->mode != TM_MATRIX ? kv_u64(one, "ops_run")
						   : 0;
		if (model__merge(r, one, &m) == -ENOSPC)
			err__print("validate", 0,
				   "%s: coverage groups past %d not kept", name,
				   FS_MAX_COV);
		sum_run(&t->sum, name, one);
		t->disturbed |= one->validation.disturbed[0] != 0;
		model__free(one);
		return 0;
	}
	if (!e->exited)
		snprintf(got, sizeof(got),
			 "no report: it announced exit %d, a thread of it "
			 "still in the kernel",
			 e->announced);
	else if (WIFSIGNALED(e->status))
		snprintf(got, sizeof(got), "no report: killed by signal %d",
			 WTERMSIG(e->status));
	else
		snprintf(got, sizeof(got), "no report: exit %d",
			 WEXITSTATUS(e->status));
	model__check_group(r, name);
	model__check_kind(r, false, "no verdict", c->shown,
			  "a run that ends with a verdict", got);
	model__check_group(r, NULL);
	return 0;
}

/* The time run `run` of tier `from` gets: an even share of what is
 * left among the drawn runs from it on, at least a twentieth of the
 * budget, in whole seconds. */
static __u64 share_ms(const struct tiers *t, size_t from, unsigned int run)
{
	__u64 used = clock__now_ms() - t->start_ms, left, runs = 0, ms;

	left = used < t->o.budget_ms ? t->o.budget_ms - used : 0;
	for (size_t i = from; i < ARRAY_SIZE(table); i++)
		if (table[i].mode != TM_MATRIX && chosen(t, &table[i]))
			runs += table[i].runs;
	runs -= run;
	ms = runs ? left / runs : left;
	if (ms < t->o.budget_ms / 20)
		ms = t->o.budget_ms / 20;
	ms -= ms % 1000;
	return ms < 1000 ? 1000 : ms;
}

static void run_tier(struct tiers *t, size_t ti, struct fs_report *r,
		     struct fs_report *one, int ntiers)
{
	const struct tier *tr = &table[ti];
	__u64 drawn = 0, ms = 0, limit = 0;
	struct run_cmd *c = calloc(1, sizeof(*c));
	struct run_end e = {};
	char name[64], note[192] = "", replay[400] = "";
	int nreplays = r->validation.nreplays;
	bool all_reported = true;
	unsigned int run;

	if (!c) {
		err__print("validate", -ENOMEM, "tier %zu", ti);
		return;
	}
	tier_name(tr, name, sizeof(name));
	for (run = 0; run < tr->runs && !runguard_signal; run++) {
		if (tr->mode != TM_MATRIX)
			limit = share_ms(t, ti, run);
		build_cmd(t, tr, ti, run, limit, c);
		if (tr->runs > 1)
			err__print(NULL, 0,
				   "validate: tier %d of %d, %s, seed %u of "
				   "%u: %s",
				   t->ran + 1, ntiers, name, run + 1, tr->runs,
				   c->shown);
		else
			err__print(NULL, 0, "validate: tier %d of %d, %s: %s",
				   t->ran + 1, ntiers, name, c->shown);
		if (run_one(t, tr, name, c, r, one, &e)) {
			all_reported = false;
			break;
		}
		all_reported &= e.reported;
		drawn += e.drawn;
		ms += e.ms;
		/* What replays it whole: what ran, without the limit. */
		if (tr->mode == TM_MATRIX)
			snprintf(replay, sizeof(replay), "%s", c->shown);
		else
			snprintf(replay, sizeof(replay),
				 "folioscope run %s --%s %llu --seed %llu",
				 wl_kind__name(tr->kind), mode_names[tr->mode],
				 (unsigned long long)(e.drawn ?: 1),
				 (unsigned long long)(t->o.seed + run));
		/* A failed run without a replay of its own (a matrix, or a
		 * report that did not shrink) replays as it ran. */
		if (r->validation.nreplays == nreplays) {
			__u64 f = 0;

			for (int g = 0; g < r->validation.ngroups; g++)
				if (!strcmp(r->validation.groups[g].name, name))
					f = r->validation.groups[g].failures;
			if (f) {
				model__check_group(r, name);
				model__replay(r, replay);
				model__check_group(r, NULL);
			}
		}
		nreplays = r->validation.nreplays;
	}
	t->ran++;
	if (tr->mode == TM_MATRIX)
		snprintf(note, sizeof(note), "in %llu s; %s",
			 (unsigned long long)(ms / 1000), replay);
	else if (tr->runs > 1)
		snprintf(note, sizeof(note),
			 "%llu %s over seeds %llu .. %llu in %llu s",
			 (unsigned long long)drawn,
			 tr->mode == TM_RANDOM ? "layouts" : "operations",
			 (unsigned long long)t->o.seed,
			 (unsigned long long)(t->o.seed + run - 1),
			 (unsigned long long)(ms / 1000));
	else
		snprintf(note, sizeof(note), "%llu %s in %llu s; %s",
			 (unsigned long long)drawn,
			 tr->mode == TM_RANDOM ? "layouts" : "operations",
			 (unsigned long long)(ms / 1000), replay);
	if (!all_reported)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "; without a report");
	model__group_note(r, name, "%s", note);
	free(c);
}

static void set_values(struct tiers *t, struct fs_report *r, const char *done)
{
	char buf[256] = "";

	snprintf(r->workload_name, sizeof(r->workload_name), "validate");
	model__kv_u64(r, "seed", t->o.seed);
	model__kv_u64(r, "budget_s", t->o.budget_ms / 1000);
	model__kv_u64(r, "elapsed_s", (clock__now_ms() - t->start_ms) / 1000);
	model__kv_str(r, "tiers", done[0] ? done : "none");
	if (t->sum.reconcile_seen)
		model__kv_str(r, "reconcile",
			      t->sum.reconcile[0] ? t->sum.reconcile : "ok");
	if (t->sum.kernel_log_seen)
		model__kv_str(r, "kernel_log",
			      t->sum.kernel_log[0] ? t->sum.kernel_log
						   : "clean");
	if (t->sum.ways_seen) {
		int reached = 0;

		for (int w = 0; w < WL_WAY_NR; w++) {
			size_t len = strlen(buf);

			if (!(t->sum.ways_missed & (1ULL << w))) {
				reached++;
				continue;
			}
			snprintf(buf + len, sizeof(buf) - len, "%s%s",
				 len ? ", " : "", wl_way__name(w));
		}
		model__kv_u64(r, "ways_reached", (__u64)reached);
		model__kv_u64(r, "ways", WL_WAY_NR);
		model__kv_str(r, "ways_missed", buf[0] ? buf : "none");
	}
}

int tiers__run(struct tiers *t, struct fs_report *r)
{
	struct fs_report *one = malloc(sizeof(*one));
	char done[256] = "", name[64];
	int ntiers = 0;

	if (!one) {
		err__print("validate", -ENOMEM, "allocate a tier's report");
		return -ENOMEM;
	}
	t->start_ms = clock__now_ms();
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		ntiers += chosen(t, &table[i]);
	err__print(NULL, 0, "validate: seed %llu, budget %llu s, %d tier%s",
		   (unsigned long long)t->o.seed,
		   (unsigned long long)(t->o.budget_ms / 1000), ntiers,
		   ntiers == 1 ? "" : "s");
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		if (!chosen(t, &table[i]))
			continue;
		tier_name(&table[i], name, sizeof(name));
		if (runguard_signal) {
			model__group_note(r, name, "not run: interrupted");
			continue;
		}
		run_tier(t, i, r, one, ntiers);
		snprintf(done + strlen(done), sizeof(done) - strlen(done),
			 "%s%s", done[0] ? ", " : "", name);
	}
	set_values(t, r, done);
	free(one);
	if (t->lingers)
		err__print(NULL, 0,
			   "validate: a tier's call never returned; its "
			   "process stays, stuck in the kernel");
	return 0;
}

int tiers__status(const struct tiers *t, const struct fs_report *r)
{
	if (r->validation.failures || t->disturbed || t->sum.mismatch)
		return 1;
	if (!r->validation.checks)
		return 4;
	return 0;
}
