// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * benchtool: the benchmark harness's helpers, one static binary for the
 * host and the guest (whose busybox has no nanosecond clock or JSON).
 *
 *   benchtool agg [-j RESULTS.json] [-m] [-s] RAW...
 *           statistics, table (-m Markdown, -s summary), JSON
 *   benchtool bpfstat PID                      BPF programs and maps PID holds
 *   benchtool now                              monotonic seconds
 *   benchtool waitfor FILE TEXT SECONDS [PID]  until FILE contains TEXT
 *   benchtool iowatch [-o F] BYTES -- CMD...   CMD's read throughput
 *   benchtool rusage [-o F] -- CMD...          CMD's wall/user/sys time
 *   benchtool sigdfl CMD...
 *           exec CMD with SIGINT and SIGQUIT at their default (a shell's
 *           background job ignores them)
 *   benchtool btf [-f BTF] off TYPE MEMBER[.MEMBER...]
 *           byte offset of a member
 *   benchtool btf [-f BTF] enum NAME           value of an enumerator
 *   benchtool btf [-f BTF] arg FUNC PARAM
 *           PARAM's index (0-based) in FUNC's prototype
 *   (btf: the running kernel's /sys/kernel/btf/vmlinux unless -f; used by
 *   bench/ftrace.sh for its kprobe events' fetch arguments, and by
 *   bench/measure.sh for the bpftrace scripts' argument numbers)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "stats.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: benchtool agg [-j RESULTS.json] [-m] [-s] RAW...\n"
		"       benchtool bpfstat PID\n"
		"       benchtool now\n"
		"       benchtool waitfor FILE TEXT SECONDS [PID]\n"
		"       benchtool iowatch [-o FILE] BYTES -- CMD...\n"
		"       benchtool rusage [-o FILE] -- CMD...\n"
		"       benchtool sigdfl CMD...\n"
		"       benchtool btf [-f BTF] off TYPE MEMBER[.MEMBER...]\n"
		"       benchtool btf [-f BTF] enum NAME\n"
		"       benchtool btf [-f BTF] arg FUNC PARAM\n");
	return 2;
}

static int cmd_agg(int argc, char **argv)
{
	const char *json = NULL;
	struct bench_result r;
	struct bench_set s;
	bool md = false, summary = false;
	int c, err = 0;

	while ((c = getopt(argc, argv, "j:ms")) != -1) {
		if (c == 'j')
			json = optarg;
		else if (c == 'm')
			md = true;
		else if (c == 's')
			summary = true;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();
	bench__init(&s);
	for (int i = optind; i < argc && !err; i++) {
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "benchtool: cannot read '%s': %s\n",
				argv[i], strerror(errno));
			err = -errno;
			break;
		}
		err = bench__parse_file(&s, f, argv[i]);
		fclose(f);
	}
	if (!err)
		err = bench__aggregate(&s, &r);
	if (!err && json) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", json);
		f = fopen(tmp, "w");
		err = f ? bench__write_json(&s, &r, f) : -errno;
		if (f && fclose(f) && !err)
			err = -errno;
		if (!err && rename(tmp, json))
			err = -errno;
		if (err)
			fprintf(stderr, "benchtool: cannot write '%s': %s\n",
				json, strerror(-err));
	}
	if (!err)
		bench__print_table(&s, &r, stdout, md, summary);
	if (!err)
		bench__result_free(&r);
	bench__free(&s);
	return err ? 1 : 0;
}

/*
 * BPF objects a process holds, from /proc/PID/fdinfo: programs (with the
 * kernel's run_cnt/run_time_ns, counted while kernel.bpf_stats_enabled
 * is 1) and maps, each once however many fds or links refer to it.
 */
#define MAX_IDS 1024

static bool seen(unsigned int *ids, int *n, unsigned int id)
{
	for (int i = 0; i < *n; i++)
		if (ids[i] == id)
			return true;
	if (*n < MAX_IDS)
		ids[(*n)++] = id;
	return false;
}

static int cmd_bpfstat(int argc, char **argv)
{
	static unsigned int progs[MAX_IDS], maps[MAX_IDS];
	unsigned long long cnt = 0, ns = 0, map_mem = 0, prog_mem = 0;
	int np = 0, nm = 0;
	char path[512], line[256];
	struct dirent *de;
	DIR *d;

	if (argc != 2)
		return usage();
	snprintf(path, sizeof(path), "/proc/%s/fdinfo", argv[1]);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "benchtool: cannot read '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		unsigned long long v_cnt = 0, v_ns = 0, v_mem = 0;
		unsigned int prog_id = 0, map_id = 0;
		bool is_prog = false, is_map = false;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", argv[1],
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "run_cnt: %llu", &v_cnt);
			sscanf(line, "run_time_ns: %llu", &v_ns);
			sscanf(line, "memlock: %llu", &v_mem);
			sscanf(line, "prog_id: %u", &prog_id);
			sscanf(line, "map_id: %u", &map_id);
			is_prog |= !strncmp(line, "prog_type:", 10);
			is_map |= !strncmp(line, "map_type:", 9);
		}
		fclose(f);
		/* A link's fdinfo names its program too: programs are counted
		 * from their own fds, which carry prog_type and the stats. */
		if (is_prog && prog_id && !seen(progs, &np, prog_id)) {
			cnt += v_cnt;
			ns += v_ns;
			prog_mem += v_mem;
		}
		if (is_map && map_id && !seen(maps, &nm, map_id))
			map_mem += v_mem;
	}
	closedir(d);
	printf("progs=%d run_cnt=%llu run_time_ns=%llu prog_memlock=%llu "
	       "maps=%d map_memlock=%llu\n",
	       np, cnt, ns, prog_mem, nm, map_mem);
	return 0;
}

/* Has process pid ended (gone, or a zombie waiting for its parent)? */
static bool ended(const char *pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

/* waitfor FILE TEXT SECONDS [PID]: 0 once FILE holds TEXT; 1 on time-out
 * or as soon as PID (the process that should write it) has ended. */
static int cmd_waitfor(int argc, char **argv)
{
	double end;
	char buf[65536];

	if (argc != 4 && argc != 5)
		return usage();
	end = now_s() + strtod(argv[3], NULL);
	do {
		FILE *f = fopen(argv[1], "r");
		size_t n = 0;

		if (f) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
		}
		buf[n] = '\0';
		if (strstr(buf, argv[2]))
			return 0;
		if (argc == 5 && ended(argv[4]))
			return 1;
		usleep(2000);
	} while (now_s() < end);
	return 1;
}

static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "benchtool: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

static FILE *open_out(const char *path)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f)
		fprintf(stderr, "benchtool: cannot write '%s': %s\n", path,
			strerror(errno));
	return f;
}

static int finish(FILE *out, const char *path, int st)
{
	if (out != stdout)
		fclose(out);
	(void)path;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * iowatch [-o FILE] BYTES -- CMD...: runs CMD and polls its
 * /proc/PID/io every 0.2 ms. CMD's read phase is taken to be its last
 * BYTES of rchar; the middle 80% of it (from BYTES*0.9 to BYTES*0.1
 * before the last value seen) gives its read throughput, free of set-up,
 * BPF loading and reporting time, whatever else CMD does.
 */
#define IOW_MAX 2000000

static int cmd_iowatch(int argc, char **argv)
{
	static double ts[IOW_MAX];
	static unsigned long long rc[IOW_MAX];
	unsigned long long bytes, last = 0, v, lo, hi;
	const char *path = NULL;
	double t1 = -1, t2 = -1;
	char io[64], line[128];
	int n = 0, st = 0, i = 1;
	FILE *out;
	pid_t pid;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		path = argv[i + 1];
		i += 2;
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--"))
		return usage();
	bytes = strtoull(argv[i], NULL, 0);
	out = open_out(path);
	if (!out)
		return 1;
	pid = spawn(argv + i + 2);
	if (pid < 0)
		return 1;
	snprintf(io, sizeof(io), "/proc/%d/io", (int)pid);
	for (;;) {
		FILE *f = fopen(io, "r");

		if (f) {
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "rchar: %llu", &v) == 1 &&
				    v != last && n < IOW_MAX) {
					ts[n] = now_s();
					rc[n++] = last = v;
				}
			fclose(f);
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(200);
	}
	lo = last > bytes * 9 / 10 ? last - bytes * 9 / 10 : 0;
	hi = last > bytes / 10 ? last - bytes / 10 : 0;
	for (int k = 0; k < n; k++) {
		if (t1 < 0 && rc[k] >= lo)
			t1 = ts[k];
		if (t2 < 0 && rc[k] >= hi)
			t2 = ts[k];
	}
	if (t1 >= 0 && t2 > t1)
		fprintf(out, "bytes_per_s=%.0f window_s=%.6f samples=%d\n",
			bytes * 0.8 / (t2 - t1), t2 - t1, n);
	else
		fprintf(out, "bytes_per_s=nan window_s=0 samples=%d\n", n);
	return finish(out, path, st);
}

/* rusage [-o FILE] -- CMD...: CMD's wall, user and system time (with
 * its children's). */
static int cmd_rusage(int argc, char **argv)
{
	const char *path = NULL;
	struct rusage ru;
	double t0;
	int st = 0, i = 1;
	FILE *out;
	pid_t pid;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		path = argv[i + 1];
		i += 2;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--"))
		return usage();
	out = open_out(path);
	if (!out)
		return 1;
	t0 = now_s();
	pid = spawn(argv + i + 1);
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
		return 1;
	fprintf(out, "wall_s=%.6f user_s=%.6f sys_s=%.6f\n", now_s() - t0,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return finish(out, path, st);
}

/*
 * Member NAME of the struct or union type ID, also inside its anonymous
 * struct/union members: its byte offset from the start of ID (added to
 * *off) and its type in *type. -1 if there is none, -2 if it is a
 * bitfield or not on a byte boundary (no fetch argument can take it).
 */
static int btf_member(const struct btf *btf, __u32 id, const char *name,
		      long *off, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);
		long sub = 0;
		int err;

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			if (btf_member_bitfield_size(t, i) || bits % 8)
				return -2;
			*off += bits / 8;
			*type = m->type;
			return 0;
		}
		/* Anonymous member: look inside it. */
		err = btf_member(btf, btf__resolve_type(btf, m->type), name,
				 &sub, type);
		if (err == -1)
			continue;
		if (err)
			return err;
		if (bits % 8)
			return -2;
		*off += bits / 8 + sub;
		return 0;
	}
	return -1;
}

static int btf_offset(const struct btf *btf, const char *tname, char *path)
{
	long off = 0;
	__u32 id;
	int err;

	/* A struct first, else a union of that name. */
	err = btf__find_by_name_kind(btf, tname, BTF_KIND_STRUCT);
	if (err < 0)
		err = btf__find_by_name_kind(btf, tname, BTF_KIND_UNION);
	if (err < 0) {
		fprintf(stderr, "benchtool: btf: no struct or union '%s'\n",
			tname);
		return 1;
	}
	id = err;
	for (char *name = strtok(path, "."); name; name = strtok(NULL, ".")) {
		__u32 mt = 0;

		err = btf_member(btf, btf__resolve_type(btf, id), name, &off,
				 &mt);
		if (err) {
			fprintf(stderr, "benchtool: btf: %s: %s'%s'\n", tname,
				err == -2 ? "not byte-aligned: " : "no member ",
				name);
			return 1;
		}
		id = mt;
	}
	printf("%ld\n", off);
	return 0;
}

/* Whether string NAME_OFF of BTF is NAME. */
static bool btf_named(const struct btf *btf, __u32 name_off, const char *name)
{
	return !strcmp(btf__name_by_offset(btf, name_off), name);
}

static int btf_enumerator(const struct btf *btf, const char *name)
{
	for (__u32 id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);
			long long v;

			for (int i = 0; i < btf_vlen(t); i++, e++) {
				if (!btf_named(btf, e->name_off, name))
					continue;
				/* kflag: a signed enum. */
				v = btf_kflag(t) ? (long long)e->val
						 : (long long)(__u32)e->val;
				printf("%lld\n", v);
				return 0;
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (int i = 0; i < btf_vlen(t); i++, e++) {
				if (!btf_named(btf, e->name_off, name))
					continue;
				printf("%llu\n",
				       (unsigned long long)btf_enum64_value(e));
				return 0;
			}
		}
	}
	fprintf(stderr, "benchtool: btf: no enumerator '%s'\n", name);
	return 1;
}

static int btf_param(const struct btf *btf, const char *fn, const char *name)
{
	const struct btf_type *t, *proto;
	const struct btf_param *p;
	int id = btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC);

	if (id < 0) {
		fprintf(stderr, "benchtool: btf: no function '%s'\n", fn);
		return 1;
	}
	t = btf__type_by_id(btf, id);
	proto = btf__type_by_id(btf, t->type);
	if (!proto || !btf_is_func_proto(proto)) {
		fprintf(stderr, "benchtool: btf: '%s' has no prototype\n", fn);
		return 1;
	}
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto); i++, p++)
		if (!strcmp(btf__name_by_offset(btf, p->name_off), name)) {
			printf("%d\n", i);
			return 0;
		}
	fprintf(stderr, "benchtool: btf: %s has no parameter '%s'\n", fn, name);
	return 1;
}

/* btf [-f FILE] off TYPE MEMBER[.MEMBER...] | enum NAME | arg FUNC PARAM */
static int cmd_btf(int argc, char **argv)
{
	const char *file = NULL;
	struct btf *btf;
	int i = 1, err;

	if (i + 1 < argc && !strcmp(argv[i], "-f")) {
		file = argv[i + 1];
		i += 2;
	}
	if (!(i + 3 == argc && !strcmp(argv[i], "off")) &&
	    !(i + 3 == argc && !strcmp(argv[i], "arg")) &&
	    !(i + 2 == argc && !strcmp(argv[i], "enum")))
		return usage();
	libbpf_set_print(NULL); /* our own one-line errors only */
	btf = file ? btf__parse(file, NULL) : btf__load_vmlinux_btf();
	err = libbpf_get_error(btf);
	if (err) {
		fprintf(stderr, "benchtool: btf: cannot load %s: %s\n",
			file ? file : "the kernel's BTF", strerror(-err));
		return 1;
	}
	if (!strcmp(argv[i], "off"))
		err = btf_offset(btf, argv[i + 1], argv[i + 2]);
	else if (!strcmp(argv[i], "arg"))
		err = btf_param(btf, argv[i + 1], argv[i + 2]);
	else
		err = btf_enumerator(btf, argv[i + 1]);
	btf__free(btf);
	return err;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "agg"))
		return cmd_agg(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bpfstat"))
		return cmd_bpfstat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "btf"))
		return cmd_btf(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sigdfl") && argc > 2) {
		/* A non-interactive shell starts background jobs with SIGINT
		 * ignored, and a shell cannot trap a signal ignored on entry:
		 * bench/ftrace.sh must be able to, to tear down on SIGINT. */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "benchtool: cannot run '%s': %s\n", argv[2],
			strerror(errno));
		return 127;
	}
	if (!strcmp(argv[1], "now")) {
		printf("%.6f\n", now_s());
		return 0;
	}
	if (!strcmp(argv[1], "iowatch"))
		return cmd_iowatch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rusage"))
		return cmd_rusage(argc - 1, argv + 1);
	if (!strcmp(argv[1], "waitfor"))
		return cmd_waitfor(argc - 1, argv + 1);
	return usage();
}
