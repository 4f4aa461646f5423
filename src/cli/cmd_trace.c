// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope trace: attach, report every -i interval or once at the end
 * (duration, the command's exit, or Ctrl-C). With a command, only the
 * command and its descendants are traced.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "commands.h"
#include "common.h"
#include "util/parse.h"
#include "session/session.h"
#include "serve/serve.h"
#include "serveopt.h"
#include "evopts.h"
#include "events/events.h"
#include "user.h"
#include "util/util.h"
#include "util/err.h"
#include "util/fs.h"

static volatile sig_atomic_t exiting;

/* First signal: finish with a final report. Second: leave at once. */
static void on_signal(int sig)
{
	if (exiting)
		_exit(130);
	exiting = 1;
}

/* Caught only to end the main loop's sleep: the loop reaps the command. */
static void on_child(int sig)
{
	(void)sig;
}

struct trace_args {
	struct common_opts c;
	struct probe_opts p;
	double interval;
	bool cumulative;
	bool timestamps;
	bool quiet;
	struct serve_cli serve; /* --serve, --serve-any */
	struct events_cli ev;	/* --events, --errors, --slower-than... */
	bool drop;		/* --user given */
	struct user_ids user;
	char **cmd; /* after "--" */
	/* -c, --dev and --fs as given, for the report's filters */
	struct fs_filters f;
};

enum {
	OPT_COMM = 0x200,
	OPT_DEV,
	OPT_FS,
	OPT_CUMULATIVE,
	OPT_USER,
	OPT_LEAN,
	OPT_BY,
};

static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0,
	  "print a report every SECONDS (each shows only its own events)", 0 },
	{ "cumulative", OPT_CUMULATIVE, NULL, 0,
	  "with -i: each report shows everything since the start", 0 },
	{ "timestamp", 'T', NULL, 0, "print a timestamp before each report",
	  0 },
	{ "quiet", 'q', NULL, 0, "no progress messages on stderr", 0 },
	{ "user", OPT_USER, "USER", 0,
	  "once attached (and bound with --serve), run as USER: no "
	  "supplementary groups, USER's uid and gid from /etc/passwd",
	  0 },
	{ "per-process", 'P', NULL, 0, "the same as --by process", 0 },
	{ "by", OPT_BY, "process|cgroup", 0,
	  "also histograms per process or per cgroup v2 (64 of them, then "
	  "'other', which says how many it holds)",
	  0 },
	{ "lean", OPT_LEAN, NULL, 0,
	  "leave out the costliest optional histograms (buffer alignment, "
	  "folio sizes, copy chunks, lookups per call) and, without events, "
	  "latency where the exit alone sees the call (tmpfs reads at fentry "
	  "or the syscall level, dedupes at fentry): each call is then "
	  "counted at its exit alone; reports mark them not measured",
	  0 },
	{ "pid", 'p', "PID", 0, "only this process (repeatable, up to 8)", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "only tasks with this name", 1 },
	{ "cgroup", 'c', "PATH", 0,
	  "only tasks in this cgroup v2 directory or below it (repeatable, "
	  "up to 8)",
	  1 },
	{ "dev", OPT_DEV, "PATH|MAJ:MIN", 0,
	  "only files on this device (a path on it, or major:minor)", 1 },
	{ "fs", OPT_FS, "TYPE", 0, "only files on tmpfs, btrfs, xfs or ext4",
	  1 },
	{},
};

static const struct {
	const char *name;
	__u64 magic;
} fs_magics[] = {
	{ "tmpfs", 0x01021994 },
	{ "btrfs", 0x9123683e },
	{ "xfs", 0x58465342 },
	{ "ext4", 0xef53 },
};

/* Kernel-internal dev_t (MKDEV: 12-bit major, 20-bit minor). */
static __u32 kdev(unsigned int maj, unsigned int min)
{
	return (maj << 20) | min;
}

static int parse_dev(const char *s, __u32 *out)
{
	unsigned int maj, min;
	char extra;
	dev_t dev;
	int err;

	if (sscanf(s, "%u:%u%c", &maj, &min, &extra) == 2) {
		*out = kdev(maj, min);
		return 0;
	}
	err = path__sb_dev(s, &dev);
	if (err)
		return err;
	*out = kdev(major(dev), minor(dev));
	return 0;
}

/* A cgroup v2 directory, open for the filter's map. */
static int open_cgroup(const char *path, int *fd)
{
	struct statfs sf;

	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (fstatfs(*fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		close(*fd);
		*fd = -1;
		return -ENOTDIR;
	}
	return 0;
}

static double parse_seconds(struct argp_state *st, const char *arg)
{
	double v;

	if (seconds__parse(arg, &v))
		cli__usage_error(st,
				 "invalid number of seconds '%s' (want 0 < "
				 "S <= %.0f)",
				 arg, PARSE_MAX_SECONDS);
	return v;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct trace_args *a = st->input;
	char *end;
	size_t len;
	long pid;
	int err;

	switch (key) {
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		st->child_inputs[1] = &a->serve; /* children[1] */
		st->child_inputs[2] = &a->ev;	 /* children[2] */
		break;
	case 'i':
		a->interval = parse_seconds(st, arg);
		break;
	case OPT_CUMULATIVE:
		a->cumulative = true;
		break;
	case 'T':
		a->timestamps = true;
		break;
	case 'q':
		a->quiet = true;
		break;
	case 'P':
		a->p.by = FS_BY_PROCESS;
		break;
	case OPT_BY:
		if (!strcmp(arg, "process"))
			a->p.by = FS_BY_PROCESS;
		else if (!strcmp(arg, "cgroup"))
			a->p.by = FS_BY_CGROUP;
		else
			cli__usage_error(
				st, "unknown --by '%s' (process, cgroup)", arg);
		break;
	case OPT_LEAN:
		a->p.lean = true;
		break;
	case OPT_USER:
		user__parse(st, arg, &a->user);
		a->drop = true;
		break;
	case 'p':
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || pid <= 0 || pid > 0x3fffffff)
			cli__usage_error(st, "invalid pid '%s'", arg);
		if (a->p.npids == FS_MAX_PIDS)
			cli__usage_error(st, "at most %d -p options",
					 FS_MAX_PIDS);
		a->p.pids[a->p.npids++] = (__u32)pid;
		break;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			cli__usage_error(st,
					 "--comm '%s': names are 1 to 15 "
					 "characters",
					 arg);
		snprintf(a->p.comm, sizeof(a->p.comm), "%s", arg);
		break;
	case 'c':
		if (a->p.ncgroups == FS_MAX_CGROUPS)
			cli__usage_error(st, "at most %d --cgroup options",
					 FS_MAX_CGROUPS);
		err = open_cgroup(arg, &a->p.cgroup_fds[a->p.ncgroups]);
		if (err == -ENOTDIR)
			cli__usage_error(st,
					 "cgroup '%s': not a cgroup v2 "
					 "directory",
					 arg);
		if (err)
			cli__usage_error(st, "cgroup '%s': %s", arg,
					 strerror(-err));
		len = strlen(a->f.cgroup);
		snprintf(a->f.cgroup + len, sizeof(a->f.cgroup) - len, "%s%s",
			 a->p.ncgroups ? ", " : "", arg);
		a->p.ncgroups++;
		break;
	case OPT_DEV:
		snprintf(a->f.dev, sizeof(a->f.dev), "%s", arg);
		err = parse_dev(arg, &a->p.dev);
		if (err)
			cli__usage_error(st, "--dev '%s': %s", arg,
					 strerror(-err));
		break;
	case OPT_FS:
		for (size_t i = 0; i < ARRAY_SIZE(fs_magics); i++)
			if (!strcmp(arg, fs_magics[i].name)) {
				a->p.magic = fs_magics[i].magic;
				snprintf(a->f.fs, sizeof(a->f.fs), "%s",
					 fs_magics[i].name);
			}
		if (!a->p.magic)
			cli__usage_error(st,
					 "unknown --fs '%s' (tmpfs, btrfs, "
					 "xfs, ext4)",
					 arg);
		break;
	case ARGP_KEY_ARGS:
		/* Declining ARGP_KEY_ARG hands argp's rest of argv here. */
		a->cmd = st->argv + st->next;
		break;
	case ARGP_KEY_END:
		if (a->cumulative && !a->interval)
			cli__usage_error(st, "--cumulative needs -i");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &serve_cli_argp, 0, NULL, 0 },
	{ &events_cli_argp, 0, NULL, 0 },
	{},
};

static const struct argp trace_argp = {
	options,
	parse,
	"[-- CMD [ARGS...]]",
	"Trace the dedupe compare and tmpfs reads until the duration ends, "
	"CMD exits or Ctrl-C, then print the histograms.\vWith CMD, only CMD "
	"and its descendants are traced. A first Ctrl-C (or SIGTERM) prints "
	"the final report and exits 0; a second one exits at once. With -i, "
	"-j FILE receives the totals of the whole run at the end. With --user, "
	"-j/-o are written as USER at the end, so their directory must be "
	"writable by USER.",
	children,
	NULL,
	NULL,
};

/* Fork CMD held at a pipe until the probes are attached. */
static pid_t cmd__spawn(char **cmd, int *go_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		err__print("trace", -errno, "cannot run '%s'", cmd[0]);
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * How long the main loop may sleep: until the duration ends or the next
 * interval is due, without limit when neither is asked for. Nothing else
 * needs a wake-up: events, signals and the command's exit end the sleep
 * themselves. A tracer left running must not wake on its own: on a
 * one-CPU guest, a wake-up every 20 ms adds about 1000 ns to each traced
 * FIDEDUPERANGE, more than `--lean`'s program costs it.
 */
static int trace__sleep_ms(const struct trace_args *a,
			   const struct timespec *t0,
			   const struct timespec *tick)
{
	/* An hour at most: a long -d still fits the int, and is re-checked. */
	double left = 3600;

	if (!a->c.duration && !a->interval)
		return -1;
	if (a->c.duration)
		left = fmin(left, a->c.duration - since(t0));
	if (a->interval)
		left = fmin(left, a->interval - since(tick));
	return left <= 0 ? 0 : (int)ceil(left * 1000);
}

/* Print r, headed by label in interval mode; JSON (-j) only when with_json. */
static int trace__print(const struct trace_args *a, const struct fs_report *r,
			const char *label, bool with_json)
{
	struct common_opts c = a->c;
	char ts[64];
	time_t now;

	if (a->timestamps) {
		now = time(NULL);
		strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&now));
		printf("%s\n", ts);
	}
	if (label)
		printf("== %s\n", label);
	if (!with_json)
		c.json = NULL;
	return common__output(&c, r);
}

static struct fs_report *trace__new_report(void)
{
	struct fs_report *r = malloc(sizeof(*r));

	if (r)
		model__init(r);
	return r;
}

static void trace__free_report(struct fs_report *r)
{
	if (!r)
		return;
	model__free(r);
	free(r);
}

/*
 * The intervals of -i, kept for the final report (JSON, pictures) when
 * it is written to a file: keep holds them (its totals stay empty),
 * last_ms is where the next interval starts.
 */
struct trace_keep {
	struct fs_report *keep;
	struct timespec t0;
	__u64 last_ms;
	/* --serve's page reads keep on the server's thread. */
	pthread_mutex_t lock;
	struct session *s;
	/* Intervals kept at most (the oldest go first); 0: all, which a
	 * file needs to add up. */
	int max;
};

/* --serve alone keeps the last 600 intervals (about 5 MiB; ten minutes
 * at -i 1): a live page must not grow for as long as the trace runs. */
#define LIVE_INTERVALS 600

static __u64 ms_since(const struct timespec *t0)
{
	struct timespec now;

	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(now.tv_sec - t0->tv_sec) * 1000 +
	     (now.tv_nsec - t0->tv_nsec) / 1000000;
	return ms < 0 ? 0 : (__u64)ms;
}

/* Keep delta as the interval ending now. */
static int trace__keep(struct trace_keep *k, const struct fs_report *delta)
{
	__u64 now = ms_since(&k->t0);
	int err;

	if (!k->keep)
		return 0;
	if (now < k->last_ms)
		now = k->last_ms;
	pthread_mutex_lock(&k->lock);
	if (k->max && k->keep->nintervals >= k->max) {
		memmove(k->keep->intervals, k->keep->intervals + 1,
			(k->keep->nintervals - 1) *
				sizeof(*k->keep->intervals));
		k->keep->nintervals--;
	}
	err = model__interval_add(k->keep, k->last_ms, now, delta);
	pthread_mutex_unlock(&k->lock);
	k->last_ms = now;
	return err;
}

/*
 * One report: totals, or with delta the events since the previous one.
 * label heads it in interval mode; JSON (-j) only when with_json.
 */
static int trace__report(struct session *s, const struct trace_args *a,
			 struct trace_keep *k, bool delta, const char *label,
			 bool with_json)
{
	struct fs_report *r = trace__new_report();
	int err;

	if (!r)
		return -ENOMEM;
	err = session__collect(s, r, delta);
	if (!err && delta)
		err = trace__keep(k, r);
	if (!err)
		err = trace__print(a, r, label, with_json);
	trace__free_report(r);
	return err;
}

/*
 * -i at the end: the last partial interval and the run's totals, from
 * one read of the maps, so the intervals add up to the totals even while
 * the traced processes keep going.
 */
static int trace__last(struct session *s, const struct trace_args *a,
		       struct trace_keep *k, int n)
{
	struct fs_report *d = trace__new_report();
	struct fs_report *t = trace__new_report();
	char label[32];
	int err = -ENOMEM;

	if (!d || !t)
		goto cleanup;
	err = session__collect_both(s, d, t) ?: trace__keep(k, d);
	if (err)
		goto cleanup;
	if (k->keep) {
		pthread_mutex_lock(&k->lock);
		model__intervals_move(t, k->keep);
		pthread_mutex_unlock(&k->lock);
	}
	snprintf(label, sizeof(label), "interval %d", n);
	err = trace__print(a, d, label, false)
		      ?: trace__print(a, t, "totals", true);
cleanup:
	trace__free_report(d);
	trace__free_report(t);
	return err;
}

/*
 * A scrape of --serve: totals since the start, on the server's thread.
 * Cumulative collects only read the session, so they may run beside the
 * main loop's interval collects.
 */
static int trace__fill(void *ctx, struct fs_report *r)
{
	const struct trace_keep *k = ctx;

	return session__collect(k->s, r, false);
}

/*
 * --serve's page with -i: the intervals closed so far, and their sum as
 * the totals, so the page (and /report.json) adds up like the final
 * report; attach plans and what is not measured from a collect.
 */
static int trace__page(void *ctx, struct fs_report *r)
{
	struct trace_keep *k = ctx;
	struct fs_interval *copy = NULL;
	int err, n;

	err = session__collect(k->s, r, false);
	if (err || !k->keep)
		return err;
	free(r->parts);
	r->parts = NULL;
	r->nparts = 0;
	pthread_mutex_lock(&k->lock);
	n = k->keep->nintervals;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (copy)
			memcpy(copy, k->keep->intervals, n * sizeof(*copy));
	}
	pthread_mutex_unlock(&k->lock);
	if (n && !copy)
		return -ENOMEM;
	r->intervals = copy;
	r->nintervals = n;
	model__totals_from_intervals(r);
	return 0;
}

/*
 * --user: nothing privileged is left to do, so become USER, then read
 * the maps once as USER: a kernel that refused bpf() on the descriptors
 * we hold (some restrict it while kernel.unprivileged_bpf_disabled is
 * set; Debian's 6.1 does not) is better found now than at the end.
 */
static int trace__drop(struct session *s, const struct user_ids *u)
{
	struct fs_report *r = malloc(sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	model__init(r);
	err = user__become("trace", u);
	if (err)
		goto cleanup;
	err = session__collect(s, r, false);
	if (err)
		err__print("trace", 0,
			   "--user %s: cannot read the BPF maps as that user: "
			   "%s (kernel.unprivileged_bpf_disabled?)",
			   u->name, strerror(-err));
cleanup:
	model__free(r);
	free(r);
	return err;
}

/* What the report says the trace looked at: the options as given. */
static void trace__filters(const struct trace_args *a, struct fs_filters *f)
{
	size_t len = 0;

	*f = a->f;
	f->npids = (int)a->p.npids;
	memcpy(f->pids, a->p.pids, sizeof(f->pids));
	snprintf(f->comm, sizeof(f->comm), "%s", a->p.comm);
	for (char **w = a->cmd; w && *w && len + 1 < sizeof(f->command); w++) {
		int r = snprintf(f->command + len, sizeof(f->command) - len,
				 "%s%s", len ? " " : "", *w);

		len += r > 0 ? (size_t)r : 0;
	}
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = { .c = { .mode = PLAN_AUTO } };
	struct session s = {};
	struct serve *srv = NULL;
	struct trace_keep keep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct evout *ev = NULL;
	struct timespec t0, tick;
	sigset_t wake, open;
	bool blocked = false;
	pid_t child = 0;
	int go = -1, err, status = 0, n = 0;

	cli__argp_parse(&trace_argp, argc, argv, 0, NULL, &a);
	if (session__check_root("trace"))
		return 1;
	session__parse_targets(a.c.targets ? a.c.targets : "all", s.want);
	if (a.cmd && a.cmd[0]) {
		child = cmd__spawn(a.cmd, &go);
		if (child < 0) {
			err__print("trace", child, "cannot fork");
			return 1;
		}
		a.p.filter_tree = (__u32)child;
	}
	trace__filters(&a, &s.filters);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	a.p.btf_path = a.c.btf;
	a.p.debuginfo = a.c.debuginfo;
	a.p.ev = a.ev.sel;
	err = session__start(&s, a.c.mode, &a.p);
	if (err)
		goto cleanup;
	if (probe_events__on(&a.p.ev)) {
		err = evout__open(&ev, a.ev.json, &s, stdout, a.quiet);
		if (err)
			goto cleanup;
	}
	keep.s = &s;
	/* Only a file or the live page can hold the intervals; stdout gets
	 * each as it ends. */
	if (a.interval && !a.cumulative &&
	    (a.c.json || a.serve.addr ||
	     (a.c.output && strcmp(a.c.output, "-")))) {
		keep.keep = trace__new_report();
		if (!keep.keep) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (!a.c.json && (!a.c.output || !strcmp(a.c.output, "-")))
			keep.max = LIVE_INTERVALS;
	}
	/* The signals that end the main loop's sleep are blocked from here
	 * on, and open only in that sleep: one that comes while the loop
	 * checks its flags waits for it and ends it at once. The live page's
	 * threads, started below, keep them blocked, so none is caught
	 * where it would not end the sleep. */
	if (child)
		sigaction(SIGCHLD,
			  &(struct sigaction){ .sa_handler = on_child }, NULL);
	sigemptyset(&wake);
	sigaddset(&wake, SIGINT);
	sigaddset(&wake, SIGTERM);
	sigaddset(&wake, SIGCHLD);
	blocked = !pthread_sigmask(SIG_BLOCK, &wake, &open);
	if (a.serve.addr) {
		struct serve_opts so = {
			.allow_remote = a.serve.any,
			.page_fill = keep.keep ? trace__page : NULL,
			.refresh = a.interval ? (int)ceil(a.interval) : 0,
		};

		err = serve__start(&srv, a.serve.addr, &so, trace__fill, &keep);
		if (err)
			goto cleanup;
		/* Even with -q: a scraper needs the (maybe chosen) port. */
		err__print(NULL, 0, "serving %s", serve__url(srv));
	}
	if (a.drop) {
		err = trace__drop(&s, &a.user);
		if (err)
			goto cleanup;
	}
	if (go >= 0) {
		if (write(go, "g", 1) != 1)
			err = -errno;
		close(go);
		go = -1;
	}
	if (!a.quiet) {
		if (child)
			err__print(NULL, 0, "tracing '%s'...", a.cmd[0]);
		else if (!a.c.duration)
			err__print(NULL, 0, "tracing... Ctrl-C to stop");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tick = t0;
	keep.t0 = t0;
	while (!exiting && !err) {
		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
		if (a.c.duration && since(&t0) >= a.c.duration)
			break;
		if (a.interval && since(&tick) >= a.interval) {
			char label[32];

			clock_gettime(CLOCK_MONOTONIC, &tick);
			snprintf(label, sizeof(label), "interval %d", ++n);
			err = trace__report(&s, &a, &keep, !a.cumulative, label,
					    false);
		}
		/* Events as they come, or a plain wait without them. */
		if (session__wait(&s, trace__sleep_ms(&a, &t0, &tick), &open) ==
		    -EINTR)
			continue;
	}
	/* A second signal during the report leaves at once. */
	pthread_sigmask(SIG_SETMASK, &open, NULL);
	blocked = false;
	if (err)
		goto cleanup;
	err = evout__close(ev, &s);
	ev = NULL;
	if (err)
		goto cleanup;
	/* With -i: the last partial interval, then the run's totals. */
	if (a.interval && !a.cumulative)
		err = trace__last(&s, &a, &keep, ++n);
	else
		err = trace__report(&s, &a, &keep, false,
				    a.interval ? "totals" : NULL, true);
cleanup:
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &open, NULL);
	/* The server's page reads keep: stop it first. */
	serve__stop(srv);
	evout__close(ev, &s);
	trace__free_report(keep.keep);
	if (go >= 0)
		close(go); /* child sees EOF and exits without running */
	if (child > 0) {
		if (err || exiting)
			kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	session__stop(&s);
	return err ? 1 : 0;
}
