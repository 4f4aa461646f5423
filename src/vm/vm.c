// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vm__run: boot a kernel in qemu, run one folioscope command inside, and
 * behave like that command ran here: its stdout/stderr stream live, its
 * exit status is ours, its output files appear at the paths given.
 *
 * Each guest serial port is a channel of its own (see enum vm_chan_id),
 * wired to a pair of fifos through "-chardev pipe": qemu writes what the
 * guest sends into <name>.out and reads <name>.in. We open the .out fifos
 * O_RDWR so that opening never blocks and a fifo never reports EOF; the
 * end of the run is qemu's exit, seen through SIGCHLD on a self-pipe.
 * The control port's .in carries one line to the guest: ACK, once its
 * EXIT line is here (the guest's /init waits for it before powering
 * off, so that nothing it sent is lost with the guest).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "vm.h"
#include "vm_internal.h"

/*
 * quiet and loglevel=1 keep the console to what matters when the guest
 * dies. With earlyprintk the kernel prints "Memory KASLR using RDRAND
 * RDTSC..." (early_printk, which loglevel does not filter) within a
 * second of starting on an idle host, long before /init: the sign that
 * the guest runs at all (see VM_KVM_STALL_S). loglevel=1 comes first so that
 * the early console does not replay the boot log up to it.
 * no_timer_check: under TCG on a loaded host the timer interrupt can
 * arrive late enough that the kernel's IO-APIC timer check fails and it
 * panics ("IO-APIC + timer doesn't work!") before /init; the check
 * tests the emulator, not the kernel under test.
 * TCG_CLOCK (TCG only): single-threaded TCG runs one vCPU at a time, so
 * the kernel's TSC sync check sees the vCPUs' counters drift apart and
 * falls back to the HPET, although TCG's TSC is one host counter for all
 * vCPUs. An HPET read is emulated MMIO: under TCG a clock_gettime cost
 * 900 ns on the HPET and 57 ns on the TSC, so every clock read in the
 * guest, a tracer's latency stamps among them, cost 15x what it costs on
 * hardware, where the TSC is the clocksource.
 * The kernel hands NAME=value words it does not know to init as its
 * environment: FOLIOSCOPE_VM_ACCEL and FOLIOSCOPE_VM_BOOT (1, or more
 * when the guest was booted again) reach the guest's reports that way
 * (vm.accel, vm.reboots).
 */
#define CMDLINE                                                                \
	"console=ttyS0 quiet loglevel=1 earlyprintk=serial,ttyS0,115200 "      \
	"panic=-1 8250.nr_uarts=4 no_timer_check %sFOLIOSCOPE_VM_ACCEL=%s "    \
	"FOLIOSCOPE_VM_BOOT=%u"
#define TCG_CLOCK "tsc=reliable "
/* SeaBIOS's last line before it starts the kernel ("Booting from
 * ROM..."): console text after it is the kernel's. */
#define FW_HANDOVER "Booting from "
/* What the guest's kernel prints as it powers off (loglevel 0). */
#define POWER_DOWN "reboot: Power down"
#define TAIL_SIZE 16384	  /* console bytes kept for crash reports */
#define TAIL_LINES 25	  /* console lines shown when the guest dies */
#define LINE_MAX_LEN 4096 /* control lines are short; longer is junk */
/* The answer to the guest's EXIT line (see the top of this file). */
#define EXIT_ACK "ACK\n"
/* After EXIT, poweroff should end qemu at once; don't wait forever. */
#define POWEROFF_GRACE_S 30

static const char *const chan_names[VM_CHAN_NR] = {
	[VM_CHAN_CONSOLE] = "ttyS0",
	[VM_CHAN_STDOUT] = "ttyS1",
	[VM_CHAN_STDERR] = "ttyS2",
	[VM_CHAN_CONTROL] = "ttyS3",
};

static const int sigs_handled[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

static volatile sig_atomic_t vm_signal; /* first SIGINT/TERM/HUP seen */
static int vm_wake_fd = -1;		/* self-pipe write end */

struct vm_run {
	const struct vm_opts *o;
	char workdir[PATH_MAX];
	char bzimage[PATH_MAX];
	char moddir[PATH_MAX];
	char release[256];
	char debuginfo[PATH_MAX]; /* vm --debuginfo: the vmlinux to hand in */
	char cpio[64]; /* /proc/self/fd/N of cpio_fd, as qemu opens it */
	int cpio_fd;   /* the initramfs, a file with no name */
	char qemu_log[PATH_MAX];
	char qemu_bin[PATH_MAX];
	char kvm_record[PATH_MAX]; /* where KVM failures are remembered */
	struct vm_kvm_key kvm_key;
	bool kvm_key_ok;
	struct vm_outputs outs;
	char **gargv;
	int chan_fd[VM_CHAN_NR];
	int ack_fd; /* the control port's .in: EXIT_ACK goes there */
	char line[LINE_MAX_LEN]; /* partial control line */
	size_t line_len;
	char tail[TAIL_SIZE]; /* last console bytes */
	size_t tail_len;
	int wake[2];
	pid_t qemu;
	int qemu_status;
	int status;	       /* guest command's, or -1 until EXIT */
	int err;	       /* first host-side error while running */
	struct vm_lines lines; /* stdout, stderr, console (-v) to ours */
	int esc_state;	       /* console: 1 after ESC, 2 inside CSI */
	bool ready;	       /* the guest's init said READY */
	unsigned int reboots;  /* boots again after the kernel died */
	bool kvm;	       /* this boot runs under KVM */
	bool progress;	       /* a "booting..." line is on the terminal */
	bool exit_seen;	       /* EXIT arrived at t_exit */
	bool fw_done;	       /* the firmware handed over to the kernel */
	bool kernel_seen;      /* the kernel printed on the console */
	bool kvm_fault;	       /* KVM itself failed (see kvm__fault) */
	char kvm_why[256];     /* why a boot under KVM failed */
	char fw_line[32]; /* console line so far, until the kernel's turn */
	size_t fw_len;
	struct timespec t_start, t_exit;
	struct sigaction old_act[ARRAY_SIZE(sigs_handled)];
	struct sigaction old_pipe;
	bool sig_installed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double since(const struct timespec *t)
{
	return now_s() - (t->tv_sec + t->tv_nsec / 1e9);
}

static void vm__on_signal(int sig)
{
	int saved = errno;
	ssize_t r;

	if (sig != SIGCHLD && !vm_signal)
		vm_signal = sig;
	if (vm_wake_fd >= 0) {
		r = write(vm_wake_fd, "x", 1);
		(void)r; /* a full pipe already wakes poll() */
	}
	errno = saved;
}

/* Our handlers live only for the run; callers get theirs back. */
static int signals__install(struct vm_run *r)
{
	struct sigaction sa = { .sa_handler = vm__on_signal,
				.sa_flags = SA_RESTART | SA_NOCLDSTOP };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	size_t i;

	if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	vm_signal = 0;
	vm_wake_fd = r->wake[1];
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs_handled); i++)
		sigaction(sigs_handled[i], &sa, &r->old_act[i]);
	/* A closed host stdout (| head) must not kill us with qemu alive. */
	sigaction(SIGPIPE, &ign, &r->old_pipe);
	r->sig_installed = true;
	return 0;
}

static void signals__restore(struct vm_run *r)
{
	size_t i;

	if (r->sig_installed) {
		for (i = 0; i < ARRAY_SIZE(sigs_handled); i++)
			sigaction(sigs_handled[i], &r->old_act[i], NULL);
		sigaction(SIGPIPE, &r->old_pipe, NULL);
	}
	vm_wake_fd = -1;
	if (r->wake[0] >= 0)
		close(r->wake[0]);
	if (r->wake[1] >= 0)
		close(r->wake[1]);
}

static int path_too_long(const char *path)
{
	err__print("vm", 0, "path too long: '%s'", path);
	return -ENAMETOOLONG;
}

static int interrupted(void)
{
	err__print("vm", 0, "interrupted by %s", strsignal(vm_signal));
	return -EINTR;
}

/*
 * The kernel release decides which lib/modules/<release>/ to ship. The
 * bzImage header is authoritative; a modules dir with a single release
 * is the fallback for images without a version string.
 */
static void release__find(struct vm_run *r)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (!vm_kernel__release(r->bzimage, r->release, sizeof(r->release)))
		return;
	r->release[0] = '\0';
	if (!r->moddir[0] ||
	    vm_fs__fmt(dir, sizeof(dir), "%s/lib/modules", r->moddir))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(r->release))
			continue;
		strcpy(r->release, de->d_name);
		found++;
	}
	closedir(d);
	if (found != 1)
		r->release[0] = '\0';
}

/*
 * --kernel must be something qemu can boot as "-kernel": a readable
 * regular file with the x86 boot protocol's "HdrS" at 0x202. Checked
 * here, since qemu given anything else starts, fails and prints its own
 * lines. Whether the kernel has BTF is not checked: .BTF is in the
 * compressed vmlinux inside the bzImage, and telling needs the whole
 * image decompressed (extract-vmlinux); the guest's doctor says so.
 */
static int kernel__check(const char *path)
{
	char magic[4];
	struct stat sb;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		err__print("vm", err, "cannot read kernel '%s'", path);
		return err;
	}
	if (fstat(fd, &sb)) {
		err = -errno;
		err__print("vm", err, "cannot read kernel '%s'", path);
		goto cleanup;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = -EINVAL;
		err__print("vm", 0,
			   "kernel '%s' is not a regular "
			   "file",
			   path);
		goto cleanup;
	}
	n = pread(fd, magic, sizeof(magic), 0x202);
	if (n < 0) {
		err = -errno;
		err__print("vm", err, "cannot read kernel '%s'", path);
		goto cleanup;
	}
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, "HdrS", 4)) {
		err = -ENOEXEC;
		err__print("vm", 0,
			   "kernel '%s' is not an x86 "
			   "bzImage (no \"HdrS\" boot header at 0x202)",
			   path);
	}
cleanup:
	close(fd);
	return err;
}

static int kernel__pick(struct vm_run *r)
{
	const struct vm_opts *o = r->o;
	const char *bin = o->binary ? o->binary : "/proc/self/exe";
	int fd, err, i;

	/* Files for the guest first: a typo fails before any download. */
	if (o->exec && access(o->exec, R_OK)) {
		err = -errno;
		err__print("vm", err, "cannot read script '%s'", o->exec);
		return err;
	}
	for (i = 0; i < o->nwith; i++) {
		if (access(o->with[i], R_OK)) {
			err = -errno;
			err__print("vm", err, "cannot read '%s'", o->with[i]);
			return err;
		}
	}
	if (o->kernel) {
		err = kernel__check(o->kernel);
		if (err)
			return err;
		if (vm_fs__fmt(r->bzimage, sizeof(r->bzimage), "%s", o->kernel))
			return path_too_long(o->kernel);
	} else {
		err = vm__default_kernel(o->cache_dir, o->debian, r->bzimage,
					 sizeof(r->bzimage), r->moddir,
					 sizeof(r->moddir));
		if (err)
			return err;
	}
	if (o->modules) {
		if (!vm_fs__is_dir(o->modules)) {
			err = access(o->modules, R_OK) ? -errno : -ENOTDIR;
			err__print("vm", err, "cannot read modules dir '%s'",
				   o->modules);
			return err;
		}
		if (vm_fs__fmt(r->moddir, sizeof(r->moddir), "%s", o->modules))
			return path_too_long(o->modules);
	}
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		err__print("vm", err, "cannot read binary '%s'", bin);
		return err;
	}
	close(fd);
	release__find(r);
	if (r->o->verbose)
		err__print("vm", 0, "kernel %s (release %s)", r->bzimage,
			   r->release[0] ? r->release : "unknown");
	return 0;
}

static int chan__open(struct vm_run *r, enum vm_chan_id c)
{
	char in[PATH_MAX], out[PATH_MAX];
	int err;

	if (vm_fs__fmt(in, sizeof(in), "%s/%s.in", r->workdir, chan_names[c]) ||
	    vm_fs__fmt(out, sizeof(out), "%s/%s.out", r->workdir,
		       chan_names[c]))
		return path_too_long(r->workdir);
	if (mkfifo(in, 0600) || mkfifo(out, 0600)) {
		err = -errno;
		err__print("vm", err, "cannot create fifo in '%s'", r->workdir);
		return err;
	}
	r->chan_fd[c] = open(out, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r->chan_fd[c] < 0) {
		err = -errno;
		err__print("vm", err, "cannot open fifo '%s'", out);
		return err;
	}
	if (c != VM_CHAN_CONTROL)
		return 0;
	/* O_RDWR: the ACK never blocks or fails for want of a reader. */
	r->ack_fd = open(in, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r->ack_fd < 0) {
		err = -errno;
		err__print("vm", err, "cannot open fifo '%s'", in);
		return err;
	}
	return 0;
}

/* qemu parses "-chardev a=b,c=d": a comma in a value is written ",,". */
static int chardev__arg(char *buf, size_t n, const char *workdir,
			enum vm_chan_id c)
{
	size_t len;
	const char *p;

	if (vm_fs__fmt(buf, n, "pipe,id=%s,path=", chan_names[c]))
		return -ENAMETOOLONG;
	len = strlen(buf);
	for (p = workdir; *p; p++) {
		if (len + 3 >= n)
			return -ENAMETOOLONG;
		buf[len++] = *p;
		if (*p == ',')
			buf[len++] = ',';
	}
	buf[len] = '\0';
	return vm_fs__fmt(buf + len, n - len, "/%s", chan_names[c]);
}

/* Erase the "booting..." line before anything else is said. */
static void progress__end(struct vm_run *r)
{
	if (r->progress)
		tty__erase_line();
	r->progress = false;
}

static int qemu__start(struct vm_run *r)
{
	char mem[32], smp[32], chardev[VM_CHAN_NR][PATH_MAX + 64];
	char serial[VM_CHAN_NR][32],
		cmdline[sizeof(CMDLINE) + sizeof(TCG_CLOCK) + 32];
	struct proc_io io = { .in_fd = -1,
			      .own_pgrp = true,
			      .pdeathsig = true };
	bool kvm;
	char *argv[64];
	int n = 0, fd, err;
	int c;

	/* Progress for a person watching; redirected output stays clean. */
	if (!r->o->verbose && tty__stderr()) {
		fprintf(stderr, "folioscope: vm: booting %s...",
			r->release[0] ? r->release : r->bzimage);
		r->progress = true;
	}

	kvm = r->kvm;
	r->fw_len = 0;
	r->fw_done = false;
	r->kernel_seen = false;
	r->esc_state = 0;
	r->line_len = 0;
	snprintf(mem, sizeof(mem), "%u", r->o->mem_mb);
	snprintf(smp, sizeof(smp), "%u", r->o->cpus);
	argv[n++] = r->qemu_bin;
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-user-config";
	argv[n++] = "-machine";
	argv[n++] = "q35";
	argv[n++] = "-accel";
	argv[n++] = (char *)vm_accel__qemu(r->o->accel, kvm);
	argv[n++] = "-cpu";
	argv[n++] = kvm ? "host" : "max";
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = smp;
	if (!kvm && vm_accel__info(r->o->accel)->icount) {
		argv[n++] = "-icount";
		argv[n++] = (char *)vm_accel__info(r->o->accel)->icount;
	}
	argv[n++] = "-nographic";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-monitor";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-kernel";
	argv[n++] = r->bzimage;
	argv[n++] = "-initrd";
	argv[n++] = r->cpio;
	argv[n++] = "-append";
	snprintf(cmdline, sizeof(cmdline), CMDLINE, kvm ? "" : TCG_CLOCK,
		 vm_accel__report(r->o->accel, kvm), r->reboots + 1);
	argv[n++] = cmdline;
	for (c = 0; c < VM_CHAN_NR; c++) {
		err = chardev__arg(chardev[c], sizeof(chardev[c]), r->workdir,
				   c);
		if (err)
			return path_too_long(r->workdir);
		snprintf(serial[c], sizeof(serial[c]), "chardev:%s",
			 chan_names[c]);
		argv[n++] = "-chardev";
		argv[n++] = chardev[c];
		argv[n++] = "-serial";
		argv[n++] = serial[c];
	}
	argv[n] = NULL;

	if (r->o->verbose) {
		fputs(VM_ERR_PREFIX, stderr);
		vm_proc__print_argv(stderr, argv);
	}
	/* qemu's own chatter (TCG feature warnings) is only for errors. */
	fd = open(r->qemu_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		err__print("vm", err, "cannot create '%s'", r->qemu_log);
		return err;
	}
	io.out_fd = fd;
	io.err_fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &r->t_start);
	/* qemu alone inherits the initramfs's fd, at the same number. */
	fcntl(r->cpio_fd, F_SETFD, 0);
	r->qemu = proc__spawn(argv, &io);
	fcntl(r->cpio_fd, F_SETFD, FD_CLOEXEC);
	close(fd);
	if (r->qemu < 0) {
		err = r->qemu;
		r->qemu = -1;
		err__print("vm", err, "cannot run %s", r->qemu_bin);
		return err;
	}
	return 0;
}

/* The guest's output channels among r->lines. */
enum { VM_LINES_STDOUT, VM_LINES_STDERR, VM_LINES_CONSOLE };

static void lines__add(struct vm_run *r, int ci, const char *buf, size_t n)
{
	if (vm_lines__add(&r->lines, ci, buf, n, now_s()) && !r->err) {
		err__print("vm", -ENOMEM, "cannot keep the guest's output");
		r->err = -ENOMEM;
	}
}

/* Everything the guest said so far goes out; an unfinished line ends
 * before a line of our own follows. */
static void lines__end(struct vm_run *r)
{
	vm_lines__flush(&r->lines, true, now_s());
}

static void tail__add(struct vm_run *r, const char *buf, size_t n)
{
	if (n >= TAIL_SIZE) {
		buf += n - TAIL_SIZE;
		n = TAIL_SIZE;
	}
	if (r->tail_len + n > TAIL_SIZE) {
		size_t drop = r->tail_len + n - TAIL_SIZE;

		memmove(r->tail, r->tail + drop, r->tail_len - drop);
		r->tail_len -= drop;
	}
	memcpy(r->tail + r->tail_len, buf, n);
	r->tail_len += n;
}

static void accel__booted(struct vm_run *r);

static void control__line(struct vm_run *r, char *line)
{
	int err;

	if (!strcmp(line, "READY")) {
		r->ready = true;
		accel__booted(r);
		if (r->o->verbose) {
			lines__end(r);
			err__print("vm", 0, "guest booted in %.1f s",
				   since(&r->t_start));
		}
		progress__end(r);
		return;
	}
	err = vm_outputs__control_line(&r->outs, line, &r->status);
	if (err && !r->err)
		r->err = err;
	if (r->status >= 0 && !r->exit_seen) {
		r->exit_seen = true;
		clock_gettime(CLOCK_MONOTONIC, &r->t_exit);
		/* Best effort: without it the guest powers off after its
		 * 30 s wait. */
		if (write(r->ack_fd, EXIT_ACK, strlen(EXIT_ACK)) < 0 &&
		    r->o->verbose)
			err__print("vm", -errno, "cannot answer the guest");
	}
}

/*
 * The console carries SeaBIOS's terminal resets and screen clears; shown
 * raw in verbose mode they would wipe the user's terminal. Drop escape
 * sequences and control characters other than \n and \t.
 */
static size_t console__filter(struct vm_run *r, char *buf, size_t n)
{
	size_t i, j;

	for (i = j = 0; i < n; i++) {
		unsigned char ch = buf[i];

		if (r->esc_state == 1) {
			r->esc_state = ch == '[' ? 2 : 0;
			continue;
		}
		if (r->esc_state == 2) {
			if (ch >= 0x40 && ch <= 0x7e)
				r->esc_state = 0;
			continue;
		}
		if (ch == 0x1b) {
			r->esc_state = 1;
			continue;
		}
		if (ch < 0x20 && ch != '\n' && ch != '\t')
			continue;
		buf[j++] = ch;
	}
	return j;
}

/*
 * Whether the kernel has printed yet: any console text after the
 * firmware's hand-over line. A KVM that stalls shows SeaBIOS's lines and
 * then nothing.
 */
static void console__progress(struct vm_run *r, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n && !r->kernel_seen; i++) {
		char ch = buf[i];

		if (r->fw_done) {
			r->kernel_seen = ch != '\n' && ch != ' ' && ch != '\t';
			continue;
		}
		if (ch != '\n') {
			if (r->fw_len < sizeof(r->fw_line) - 1)
				r->fw_line[r->fw_len++] = ch;
			continue;
		}
		r->fw_line[r->fw_len] = '\0';
		r->fw_done =
			!strncmp(r->fw_line, FW_HANDOVER, strlen(FW_HANDOVER));
		r->fw_len = 0;
	}
}

/* Reads what a channel has now; returns false once it would block. */
static bool chan__read(struct vm_run *r, enum vm_chan_id c)
{
	char buf[65536];
	ssize_t n;
	size_t len, i;

	n = read(r->chan_fd[c], buf, sizeof(buf));
	if (n <= 0)
		return false;
	len = (size_t)n;
	switch (c) {
	case VM_CHAN_STDOUT:
	case VM_CHAN_STDERR:
		lines__add(r,
			   c == VM_CHAN_STDOUT ? VM_LINES_STDOUT
					       : VM_LINES_STDERR,
			   buf, len);
		break;
	case VM_CHAN_CONSOLE:
		len = console__filter(r, buf, len);
		console__progress(r, buf, len);
		tail__add(r, buf, len);
		lines__add(r, VM_LINES_CONSOLE, buf, len);
		break;
	case VM_CHAN_CONTROL:
		for (i = 0; i < len; i++) {
			if (buf[i] == '\r')
				continue;
			if (buf[i] != '\n') {
				if (r->line_len < sizeof(r->line) - 1)
					r->line[r->line_len++] = buf[i];
				continue;
			}
			r->line[r->line_len] = '\0';
			control__line(r, r->line);
			r->line_len = 0;
		}
		break;
	default:
		break;
	}
	return true;
}

static void chans__drain(struct vm_run *r)
{
	int c;

	for (c = 0; c < VM_CHAN_NR; c++)
		while (chan__read(r, c))
			;
}

/* Prints the last lines of a text buffer, indented, for crash reports. */
static void print_tail(const char *what, const char *buf, size_t len)
{
	size_t start = len;
	int lines = 0;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (!len)
		return;
	start = len;
	while (start && lines < TAIL_LINES) {
		start--;
		if (buf[start] == '\n')
			lines++;
	}
	if (buf[start] == '\n')
		start++;
	fprintf(stderr, "  --- %s ---\n", what);
	while (start < len) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t l = nl ? (size_t)(nl - buf - start) : len - start;

		fprintf(stderr, "  %.*s\n", (int)l, buf + start);
		start += l + 1;
	}
}

/* The first line of a kernel oops or panic in the console's tail, without
 * its timestamp ("" if none). */
static void console__oops_line(const struct vm_run *r, char *buf, size_t n)
{
	static const char *const marks[] = {
		"BUG:", "Oops:", "general protection fault", "Kernel panic"
	};
	size_t i = 0;

	buf[0] = '\0';
	while (i < r->tail_len) {
		size_t end = i, len;
		const char *line = r->tail + i, *p;

		while (end < r->tail_len && r->tail[end] != '\n')
			end++;
		len = end - i;
		for (size_t m = 0; m < ARRAY_SIZE(marks); m++) {
			p = memmem(line, len, marks[m], strlen(marks[m]));
			if (!p)
				continue;
			len -= (size_t)(p - line);
			while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
				len--;
			snprintf(buf, n, "%.*s", (int)len, p);
			return;
		}
		i = end + 1;
	}
}

/*
 * A guest whose kernel died, for the test suites (tests/check.sh): they
 * set FOLIOSCOPE_VM_DEATH_LOG to a file, and every death a vm met, even
 * one it booted past, is a line there and a failed check.
 */
static void death__log(const struct vm_run *r, const char *why)
{
	const char *path = getenv("FOLIOSCOPE_VM_DEATH_LOG");
	char oops[160];
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ae");
	if (!f)
		return;
	console__oops_line(r, oops, sizeof(oops));
	if (strstr(why, oops))
		oops[0] = '\0'; /* why names it already */
	fprintf(f, "%s: %s%s%s\n", r->release[0] ? r->release : r->bzimage, why,
		oops[0] ? ": " : "", oops);
	fclose(f);
}

static void report__died(struct vm_run *r, const char *why)
{
	char *log = NULL;
	size_t len = 0;

	progress__end(r);
	lines__end(r);
	death__log(r, why);
	err__print("vm", 0, "%s; last console lines follow", why);
	print_tail("console", r->tail, r->tail_len);
	if (!vm_fs__read_file(r->qemu_log, &log, &len))
		print_tail("qemu", log, len);
	free(log);
}

static void qemu__stop(struct vm_run *r)
{
	if (r->qemu <= 0)
		return;
	kill(r->qemu, SIGKILL);
	r->qemu_status = proc__wait(r->qemu);
	r->qemu = -1;
}

/* Seconds from qemu's start to the guest's READY before a retry; a
 * normal TCG boot takes 3-10 s, 40 s on a heavily loaded host. Under
 * KVM a boot takes ~1 s: one whose kernel runs but has not come up in a
 * minute goes on under TCG in auto. */
#define VM_BOOT_TIMEOUT_S 180
#define VM_KVM_BOOT_TIMEOUT_S 60

/* Under auto, a boot under KVM that fails is tried again under TCG. */
static bool kvm__may_fall_back(const struct vm_run *r)
{
	return r->kvm && r->o->accel == VM_ACCEL_AUTO;
}

static double boot_timeout_s(const struct vm_run *r)
{
	return kvm__may_fall_back(r) ? VM_KVM_BOOT_TIMEOUT_S
				     : VM_BOOT_TIMEOUT_S;
}

/*
 * KVM when we may use it; TCG is ~10x slower but always there. --accel
 * kvm insists (and fails with one line when /dev/kvm does not open).
 * auto takes TCG at once where KVM failed before with this qemu and
 * host kernel (see accel.c), and says so.
 */
static int accel__pick(struct vm_run *r)
{
	char why[256];
	int fd, err;

	vm_qemu__find(r->qemu_bin, sizeof(r->qemu_bin));
	if (vm_accel__info(r->o->accel)->tcg_only)
		return 0;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (r->o->accel == VM_ACCEL_AUTO)
			return 0;
		err__print("vm", err, "--accel kvm: cannot open /dev/kvm");
		return err;
	}
	close(fd);
	r->kvm = true;
	/* No key (no such qemu: starting it says so), nothing remembered. */
	r->kvm_key_ok = !vm_kvm__key(r->qemu_bin, &r->kvm_key) &&
			!vm_kvm__record_path(r->o->cache_dir, r->kvm_record,
					     sizeof(r->kvm_record));
	if (r->o->accel != VM_ACCEL_AUTO || !r->kvm_key_ok ||
	    !vm_kvm__recorded(r->kvm_record, &r->kvm_key, why, sizeof(why)))
		return 0;
	err__print("vm", 0,
		   "KVM failed here before (qemu %s, kernel %s%s%s; "
		   "recorded in %s): using TCG; --accel kvm "
		   "retries",
		   r->kvm_key.qemu, r->kvm_key.kernel, why[0] ? ": " : "", why,
		   r->kvm_record);
	r->kvm = false;
	return 0;
}

/*
 * The guest came up. Under KVM, KVM works here: a failure recorded
 * before is forgotten. Under TCG after KVM failed (auto), the failure was
 * KVM's and not the guest's or qemu's: it is recorded, and the next auto
 * run goes straight to TCG.
 */
static void accel__booted(struct vm_run *r)
{
	int err;

	if (!r->kvm_key_ok || (!r->kvm && !r->kvm_fault))
		return;
	if (r->kvm)
		err = vm_kvm__forget(r->kvm_record);
	else
		err = vm_kvm__record(r->kvm_record, &r->kvm_key, r->kvm_why);
	if (err)
		err__print("vm", err, "cannot %s '%s' (KVM failures seen here)",
			   r->kvm ? "remove" : "write", r->kvm_record);
}

/* First line of qemu's own output, without its "qemu-system-x86_64: ". */
static void qemu__first_line(struct vm_run *r, char *buf, size_t n)
{
	const char *base = strrchr(r->qemu_bin, '/');
	char *log = NULL, *p, *nl;
	size_t len = 0, blen;

	base = base ? base + 1 : r->qemu_bin;
	blen = strlen(base);
	snprintf(buf, n, "no message from qemu");
	if (vm_fs__read_file(r->qemu_log, &log, &len) || !log)
		return;
	p = log;
	while (*p == '\n')
		p++;
	if (!strncmp(p, base, blen) && !strncmp(p + blen, ": ", 2))
		p += blen + 2;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	if (*p)
		snprintf(buf, n, "%s", p);
	free(log);
}

/* KVM failed before the kernel printed a thing: qemu refused or died
 * (the MSR assertion of nested KVM), or the guest stalled. */
static void kvm__fault(struct vm_run *r, bool stalled)
{
	r->kvm_fault = true;
	if (stalled)
		snprintf(r->kvm_why, sizeof(r->kvm_why),
			 "no output from the guest's kernel in %d s",
			 VM_KVM_STALL_S);
	else
		qemu__first_line(r, r->kvm_why, sizeof(r->kvm_why));
}

/* Streams the channels until qemu exits, we time out or are signalled. */
static int vm__loop(struct vm_run *r)
{
	double deadline = now_s() + r->o->timeout_s;
	struct pollfd pfd[VM_CHAN_NR + 1];
	char junk[64], why[128];
	int c, st, timeout_ms;
	double due;
	pid_t done;

	for (;;) {
		double left = deadline - now_s();

		if (r->exit_seen && since(&r->t_exit) > POWEROFF_GRACE_S)
			qemu__stop(r); /* the command is done; qemu hangs */
		if (r->qemu <= 0)
			break;
		/* KVM that lets qemu start but runs no guest code. */
		if (r->kvm && !r->ready && !r->kernel_seen &&
		    since(&r->t_start) > VM_KVM_STALL_S) {
			qemu__stop(r);
			chans__drain(r);
			kvm__fault(r, true);
			return -EAGAIN;
		}
		/* A boot that stalls (seen rarely under TCG on a loaded
		 * host) is retried by the caller rather than waited out. */
		if (!r->ready && !r->exit_seen &&
		    since(&r->t_start) > boot_timeout_s(r)) {
			qemu__stop(r);
			chans__drain(r);
			snprintf(r->kvm_why, sizeof(r->kvm_why),
				 "the guest did not boot within %.0f s",
				 boot_timeout_s(r));
			return -EAGAIN;
		}
		if (left <= 0 && !r->exit_seen) {
			qemu__stop(r);
			chans__drain(r);
			snprintf(why, sizeof(why), "timed out after %u s",
				 r->o->timeout_s);
			report__died(r, why);
			return -EIO;
		}
		timeout_ms = left > 1 || r->exit_seen ? 1000
						      : (int)(left * 1000) + 1;
		due = vm_lines__due_in(&r->lines, now_s());
		if (due >= 0 && due * 1000 < timeout_ms)
			timeout_ms = (int)(due * 1000) + 1;
		for (c = 0; c < VM_CHAN_NR; c++)
			pfd[c] = (struct pollfd){ .fd = r->chan_fd[c],
						  .events = POLLIN };
		pfd[c] = (struct pollfd){ .fd = r->wake[0], .events = POLLIN };
		if (poll(pfd, VM_CHAN_NR + 1, timeout_ms) < 0 &&
		    errno != EINTR) {
			st = -errno;
			qemu__stop(r);
			err__print("vm", st, "poll");
			return st;
		}
		while (read(r->wake[0], junk, sizeof(junk)) > 0)
			;
		if (vm_signal) {
			qemu__stop(r);
			progress__end(r);
			lines__end(r);
			return interrupted();
		}
		for (c = 0; c < VM_CHAN_NR; c++)
			if (pfd[c].revents & POLLIN)
				chan__read(r, c);
		vm_lines__tick(&r->lines, now_s());
		done = waitpid(r->qemu, &st, WNOHANG);
		if (done == r->qemu) {
			r->qemu = -1;
			r->qemu_status = WIFEXITED(st) ? WEXITSTATUS(st)
						       : 128 + WTERMSIG(st);
		}
	}
	/* qemu wrote everything before it exited; pick up the rest. */
	chans__drain(r);
	vm_lines__flush(&r->lines, false, now_s());
	if (r->status < 0 && !r->ready && r->kvm && !r->kernel_seen) {
		kvm__fault(r, false);
		return -EAGAIN;
	}
	/* The kernel ran under KVM and died before the guest's init: auto
	 * boots again under TCG, which tells a KVM problem from the guest's. */
	if (r->status < 0 && !r->ready && kvm__may_fall_back(r)) {
		qemu__first_line(r, r->kvm_why, sizeof(r->kvm_why));
		return -EAGAIN;
	}
	/* A kernel that died under TCG before the guest's init started:
	 * Debian's kernels have crashed mid-boot under TCG once in a long
	 * while (a panic in the scheduler or the clock, no program of ours
	 * loaded yet). The caller boots once more and says so; a kernel that
	 * dies twice is reported as it died. */
	if (r->status < 0 && !r->ready && !r->kvm && !r->exit_seen) {
		char line[160];

		console__oops_line(r, line, sizeof(line));
		snprintf(r->kvm_why, sizeof(r->kvm_why),
			 "the guest's kernel died before its init started%s%s",
			 line[0] ? ": " : " (qemu exit ", line[0] ? line : "");
		if (!line[0])
			snprintf(r->kvm_why + strlen(r->kvm_why),
				 sizeof(r->kvm_why) - strlen(r->kvm_why), "%d)",
				 r->qemu_status);
		return -EAGAIN;
	}
	if (r->status < 0) {
		/* The kernel's last word before an orderly power-off: the
		 * guest's init got that far, and the status line was lost on
		 * the way out, not with the kernel. */
		if (memmem(r->tail, r->tail_len, POWER_DOWN,
			   strlen(POWER_DOWN)))
			snprintf(why, sizeof(why),
				 "the guest powered off, but its exit status "
				 "never arrived (qemu exit %d%s)",
				 r->qemu_status, r->kvm ? " under KVM" : "");
		else
			snprintf(why, sizeof(why),
				 "the guest ended without reporting an exit "
				 "status (qemu exit %d%s: kernel panic or "
				 "crash?)",
				 r->qemu_status, r->kvm ? " under KVM" : "");
		report__died(r, why);
		return -EIO;
	}
	if (r->o->verbose) {
		lines__end(r);
		err__print("vm", 0, "guest exited %d after %.1f s", r->status,
			   since(&r->t_start));
	}
	return 0;
}

/* Where work dirs go: $TMPDIR, else /tmp. */
static const char *tmp_parent(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

static int workdir__create(struct vm_run *r)
{
	const char *tmp = tmp_parent();
	int err;

	if (vm_fs__fmt(r->workdir, sizeof(r->workdir),
		       "%s/" VM_WORKDIR_TAG "%ld.XXXXXX", tmp,
		       (long)getpid())) {
		r->workdir[0] = '\0';
		return path_too_long(tmp);
	}
	if (!mkdtemp(r->workdir)) {
		err = -errno;
		err__print("vm", err, "cannot create a temp dir in '%s'", tmp);
		r->workdir[0] = '\0';
		return err;
	}
	if (vm_fs__fmt(r->qemu_log, sizeof(r->qemu_log), "%s/qemu.log",
		       r->workdir))
		return path_too_long(r->workdir);
	return 0;
}

int vm__run(const struct vm_opts *opts, int argc, char **argv)
{
	struct vm_opts o = *opts;
	const struct vm_accel_info *acc;
	struct vm_run *r;
	bool retried;
	int c, err;

	if (!o.mem_mb)
		o.mem_mb =
			o.debuginfo ? VM_DEBUGINFO_MEM_MB : VM_DEFAULT_MEM_MB;
	acc = vm_accel__info(o.accel);
	if (!o.cpus)
		o.cpus = acc->max_cpus ? acc->max_cpus : VM_DEFAULT_CPUS;
	if (acc->max_cpus && o.cpus > acc->max_cpus) {
		err__print("vm", 0,
			   "--accel %s runs %u CPU%s, not %u (see --help)",
			   acc->name, acc->max_cpus,
			   acc->max_cpus == 1 ? "" : "s", o.cpus);
		return -EINVAL;
	}
	if (!o.timeout_s)
		o.timeout_s = VM_DEFAULT_TIMEOUT_S;
	if (argc < 1 && !o.exec) {
		err__print("vm", 0, "no folioscope command to run");
		return -EINVAL;
	}
	/* ~100 KB of buffers: keep them off the stack. */
	r = calloc(1, sizeof(*r));
	if (!r) {
		err__print("vm", 0, "out of memory");
		return -ENOMEM;
	}
	r->o = &o;
	r->qemu = -1;
	r->status = -1;
	r->outs.cur = -1;
	r->wake[0] = r->wake[1] = -1;
	r->cpio_fd = -1;
	for (c = 0; c < VM_CHAN_NR; c++)
		r->chan_fd[c] = -1;
	r->ack_fd = -1;
	vm_lines__init(&r->lines);
	vm_lines__set_fd(&r->lines, VM_LINES_STDOUT, STDOUT_FILENO);
	vm_lines__set_fd(&r->lines, VM_LINES_STDERR, STDERR_FILENO);
	if (o.verbose)
		vm_lines__set_fd(&r->lines, VM_LINES_CONSOLE, STDERR_FILENO);

	err = signals__install(r);
	if (err) {
		err__print("vm", err, "cannot create a pipe");
		goto cleanup;
	}
	/* First, as run does: even a vm that fails cleans up after one
	 * that was killed. */
	vm_stale__clean(tmp_parent());
	err = kernel__pick(r);
	if (err)
		goto cleanup;
	if (o.debuginfo && o.kernel) {
		err = vm__built_debuginfo(o.kernel, r->debuginfo,
					  sizeof(r->debuginfo));
		if (!err && !r->release[0]) {
			err__print("vm", 0,
				   "--debuginfo: '%s' names no kernel release, "
				   "so the guest would not look for its DWARF",
				   o.kernel);
			err = -EINVAL;
		}
		if (err)
			goto cleanup;
	} else if (o.debuginfo) {
		err = vm__debian_debuginfo(o.cache_dir, r->release,
					   r->debuginfo, sizeof(r->debuginfo));
		if (err)
			goto cleanup;
	}
	if (vm_signal) {
		err = interrupted();
		goto cleanup;
	}
	err = vm_outputs__rewrite(&r->outs, argc, argv, &r->gargv);
	if (err)
		goto cleanup;
	err = workdir__create(r);
	if (err)
		goto cleanup;
	{
		struct initramfs_spec spec = {
			.binary = o.binary,
			.moddir = r->moddir[0] ? r->moddir : NULL,
			.release = r->release[0] ? r->release : NULL,
			.argc = argc,
			.argv = r->gargv,
			.with = o.with,
			.nwith = o.nwith,
			.exec = o.exec,
			.debuginfo = r->debuginfo[0] ? r->debuginfo : NULL,
			.verbose = o.verbose,
		};

		err = vm_initramfs__build(&spec, r->workdir, &r->cpio_fd);
		if (err)
			goto cleanup;
		snprintf(r->cpio, sizeof(r->cpio), "/proc/self/fd/%d",
			 r->cpio_fd);
	}
	if (vm_signal) {
		err = interrupted();
		goto cleanup;
	}
	for (c = 0; c < VM_CHAN_NR; c++) {
		err = chan__open(r, c);
		if (err)
			goto cleanup;
	}
	err = accel__pick(r);
	if (err)
		goto cleanup;
	/* The fifos stay open across boots; each qemu reopens them. */
	for (retried = false;;) {
		err = qemu__start(r);
		if (err)
			goto cleanup;
		err = vm__loop(r);
		if (err != -EAGAIN)
			break;
		progress__end(r);
		lines__end(r);
		/* -EAGAIN under KVM in auto: qemu died or the boot stalled. */
		if (kvm__may_fall_back(r)) {
			err__print("vm", 0,
				   "qemu could not run the "
				   "guest under KVM (%s); booting it under TCG",
				   r->kvm_why);
			r->kvm = false;
			r->tail_len = 0;
			continue;
		}
		if (r->kvm && r->kvm_fault) {
			err__print("vm", 0,
				   "--accel kvm: qemu could not run "
				   "the guest under KVM (%s); try "
				   "--accel tcg",
				   r->kvm_why);
			err = -EIO;
			break;
		}
		if (retried) {
			report__died(r,
				     "the guest did not boot twice in a row");
			err = -EIO;
			break;
		}
		err__print("vm", 0, "%s; starting it once more", r->kvm_why);
		death__log(r, r->kvm_why);
		r->reboots++;
		r->tail_len = 0;
		retried = true;
	}
	if (err == -EINTR)
		goto cleanup;
	/* Files that arrived whole are delivered even if the guest then
	 * died: they are complete, and the error still says what happened. */
	c = vm_outputs__deliver(&r->outs);
	if (!err)
		err = r->err ? r->err : c; /* an output was lost */
	if (!err)
		err = r->status;
cleanup:
	qemu__stop(r);
	vm_lines__flush(&r->lines, false, now_s());
	vm_lines__free(&r->lines);
	for (c = 0; c < VM_CHAN_NR; c++)
		if (r->chan_fd[c] >= 0)
			close(r->chan_fd[c]);
	if (r->ack_fd >= 0)
		close(r->ack_fd);
	if (r->cpio_fd >= 0)
		close(r->cpio_fd);
	vm_outputs__free(&r->outs);
	vm_outputs__free_argv(argc, r->gargv);
	if (r->workdir[0])
		tree__remove(r->workdir, 0);
	signals__restore(r);
	free(r);
	return err;
}
