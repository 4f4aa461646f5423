// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fake kernel bugs for the validators, as an LD_PRELOAD shim.
 *
 * FS_FAKE_DEDUPE=clone: before each FIDEDUPERANGE, every destination
 * whose in-page offset differs from the source's gets the source range
 * cloned onto it (FICLONERANGE), so the kernel then honestly answers
 * SAME where the data differed: a false SAME, with the destination's
 * bytes replaced, as a compare that reads the wrong place would cause.
 * FS_FAKE_DEDUPE=hang: the FIDEDUPERANGE never returns (it waits in the
 * kernel on an empty pipe instead).
 *
 * The shmem-read bugs: a shim of
 * read(2) and pread(2) on the workload's tmpfs files (paths with
 * "/folioscope-shmem-" in them; every other file reads as usual). Each
 * call makes exactly one real read, so the probes see what they would see
 * without the shim. FS_FAKE_READ picks the bug:
 *
 *   hole   bytes that read as zero are not copied: the buffer keeps what
 *          it held there (a kernel that skips zero-filling holes)
 *   stale  words of the file that read as zero come back as stale
 *          memory, the workloads' "STALE!!!" (a kernel that hands out a
 *          page it did not zero, fallocated and never written); on
 *          --ops' files too
 *   past   a short read also writes a zero byte at buf[ret]
 *   pos    after an odd-length read the file position goes back one byte
 *          (read(2) only: pread has no file position)
 *   short  every read asks the kernel for half of what it was asked
 *   warn   the first read also writes a WARNING to the kernel log (as a
 *          record of user space: run with --kmsg-user)
 *   hang   the read never returns: it waits in the kernel on an empty
 *          pipe instead
 *   crash  the read kills its process (SIGKILL), as an oops in it would:
 *          the run ends without a report; on --ops' files too
 *
 * FS_FAKE_TRUNC=tail, on the --ops workload's files ("/folioscope-ops-"):
 * a truncate down to a size inside a page leaves the rest of that page
 * as it was, where a kernel must zero it: once the file grows over it
 * again, reads return the old bytes there, but for those written since
 * (by write or pwrite) or cut off by a later truncate. Reads by read,
 * pread and preadv.
 *
 * FS_FAKE_RACE, on the --ops workload's files, bugs only racing readers
 * (--jobs) show:
 *
 *   reuse  a read by read or pread that a truncate of the same file
 *          overlapped copies a page that was freed and reused meanwhile
 *          ("REUSED!!" over what it read), as a read that dropped its
 *          folio reference before copying would: only a truncate that
 *          runs while the read does shows it, so a sequence run alone
 *          never does; a racing reader's copy lasts 5 ms (or until a
 *          truncate of its file begins), so that a replay meets the
 *          truncates its schedule's run met
 *   hang   the first read or pread of a thread other than the process's
 *          first (a racing reader's) never returns: it waits in the
 *          kernel on an empty pipe, as a read deadlocked by a race would
 *   lose   a FIDEDUPERANGE whose source and destination are equal
 *          compares them, waits 5 ms and then writes the bytes it
 *          compared back over the destination before the real call: a
 *          store that lands in those 5 ms is lost, as one between a
 *          compare and a remap that does not keep stores out would be;
 *          with nothing racing it every answer and byte is right
 *
 * FS_FAKE_COUNT=FILE: at exit, the number of reads by read, pread and
 * preadv of the --ops workload's files goes into FILE (by the process
 * that made any). FS_FAKE_HANG_AT=N:
 * the N-th such read (from 1) never returns: with the count of a run
 * before, one past it hangs the first shrink trial after that run.
 *
 * FS_FAKE_ZERO=refuse, on the --ops workload's files: fallocate's
 * ZERO_RANGE fails with EOPNOTSUPP (what tmpfs answers), so that btrfs and
 * xfs look like filesystems without it.
 *
 * FS_FAKE_PIPE=shift: splice, sendfile and copy_file_range from the
 * shmem-read workload's files, at an offset inside a page, move the
 * bytes from one before it (the return and the offset after it as the
 * kernel would give them): a kernel whose reads into a pipe copy from
 * the wrong place.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

/* Does the path fd is open on hold part? */
static int fd_path_has(int fd, const char *part)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	return strstr(path, part) != NULL;
}

/* Is fd one of the workloads' files (or an output file beside them)? */
static int wl_file(int fd)
{
	return fd_path_has(fd, "/folioscope-shmem-") ||
	       fd_path_has(fd, "/folioscope-ops-") ||
	       fd_path_has(fd, "memfd:folioscope-out");
}

/* FS_FAKE_BACK's value when it is how. */
static int back_is(const char *how)
{
	const char *b = getenv("FS_FAKE_BACK");

	return b && !strcmp(b, how);
}

/* FS_FAKE_BACK=error or noerrno: fail with err, or with errno as it
 * was (the engine clears it before each call). */
static int back_fails(int err)
{
	if (back_is("error")) {
		errno = err;
		return 1;
	}
	return back_is("noerrno");
}

/* FS_FAKE_BACK=over: the count to ask the kernel for. */
static size_t over_count(int in, size_t count)
{
	return back_is("over") && count > 1 && wl_file(in) ? count - 1 : count;
}

/* FS_FAKE_BACK=over: what to report of a call that moved ret of the
 * asked (count of it asked), advancing *off by the byte it claims. */
static ssize_t over_ret(size_t asked, size_t count, ssize_t ret, loff_t *off)
{
	if (count == asked || ret <= 0 || (size_t)ret != count)
		return ret;
	if (off)
		(*off)++;
	return ret + 1;
}

/* FS_FAKE_TRUNC=tail: the page tails truncates left, per fd. */
#define TAILS 16
static struct {
	int fd; /* -1: free */
	off_t start, end;
	char bytes[65536];
	char gone[65536]; /* written since, or truncated away again */
} tails[TAILS] = { [0 ... TAILS - 1] = { .fd = -1 } };

static int is_ops_file(int fd)
{
	return fd_path_has(fd, "/folioscope-ops-");
}

static int fake_tail(int fd)
{
	const char *b = getenv("FS_FAKE_TRUNC");

	return b && !strcmp(b, "tail") && is_ops_file(fd);
}

/* [off, end) of the file no longer holds what a tail kept. */
static void tails_wipe(int fd, off_t off, off_t end)
{
	for (int i = 0; i < TAILS; i++) {
		if (tails[i].fd != fd)
			continue;
		for (off_t x = off > tails[i].start ? off : tails[i].start;
		     x < end && x < tails[i].end; x++)
			tails[i].gone[x - tails[i].start] = 1;
	}
}

/* A read of [off, off + ret) into buf: the kept bytes where they fall,
 * while the file reaches over them. */
static void tails_apply(int fd, char *buf, off_t off, ssize_t ret)
{
	for (int i = 0; ret > 0 && i < TAILS; i++) {
		off_t a, e;

		if (tails[i].fd != fd)
			continue;
		a = off > tails[i].start ? off : tails[i].start;
		e = off + ret < tails[i].end ? off + ret : tails[i].end;
		for (off_t x = a; x < e; x++)
			if (!tails[i].gone[x - tails[i].start])
				buf[x - off] =
					tails[i].bytes[x - tails[i].start];
	}
}

/* FS_FAKE_RACE=reuse: truncates begun and ended per file (by device
 * and inode: each tmpfs numbers its own); race_begun tells a copy in
 * progress that one began. */
#define RACE_FILES 16
static struct {
	dev_t dev;
	ino_t ino;
	unsigned long begun, ended;
} race_files[RACE_FILES];
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t race_begun = PTHREAD_COND_INITIALIZER;

static int fake_race(int fd, const char *how)
{
	const char *b = getenv("FS_FAKE_RACE");

	/* The sequence's files, not the unnamed output files beside them. */
	return b && !strcmp(b, how) && is_ops_file(fd) &&
	       !fd_path_has(fd, " (deleted)");
}

/* FS_FAKE_COUNT and FS_FAKE_HANG_AT: the reads of --ops' files. */
static unsigned long ops_reads;

static void ops_read_count(int fd)
{
	const char *at = getenv("FS_FAKE_HANG_AT");
	unsigned long n;
	char c;
	int p[2];

	if (!is_ops_file(fd))
		return;
	n = __atomic_add_fetch(&ops_reads, 1, __ATOMIC_SEQ_CST);
	if (at && strtoul(at, NULL, 10) == n && !pipe(p))
		(void)!syscall(SYS_read, p[0], &c, 1);
}

__attribute__((destructor)) static void ops_reads_tell(void)
{
	const char *path = getenv("FS_FAKE_COUNT");
	/* Only the process that read them: others (helpers it runs) exit
	 * too. */
	FILE *f = path && ops_reads ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "%lu\n", ops_reads);
		fclose(f);
	}
}

/* FS_FAKE_RACE=hang: a racing reader's first read waits forever. */
static void race_hang(int fd)
{
	static int hung;
	char c;
	int p[2];

	if (!fake_race(fd, "hang") || gettid() == getpid() ||
	    __atomic_exchange_n(&hung, 1, __ATOMIC_SEQ_CST) || pipe(p))
		return;
	(void)!syscall(SYS_read, p[0], &c, 1);
}

/* The slot of the file of st, entered when add; -1 if none. Locked. */
static int race_slot(const struct stat *st, int add)
{
	static unsigned int next;
	int i;

	for (i = 0; i < RACE_FILES; i++)
		if (race_files[i].ino == st->st_ino &&
		    race_files[i].dev == st->st_dev)
			return i;
	if (!add)
		return -1;
	i = (int)(next++ % RACE_FILES);
	memset(&race_files[i], 0, sizeof(race_files[i]));
	race_files[i].dev = st->st_dev;
	race_files[i].ino = st->st_ino;
	return i;
}

/* fd's file's truncates, begun (which 0) or ended (1), after adding
 * add to that count. Files enter the table by their truncates (add),
 * the oldest making room; a read only looks. */
static unsigned long race_count(int fd, int which, int add)
{
	struct stat st;
	unsigned long n = 0;
	int i;

	if (fstat(fd, &st))
		return 0;
	pthread_mutex_lock(&race_lock);
	i = race_slot(&st, add);
	if (i >= 0 && which)
		n = race_files[i].ended += (unsigned long)add;
	else if (i >= 0)
		n = race_files[i].begun += (unsigned long)add;
	if (add && !which)
		pthread_cond_broadcast(&race_begun);
	pthread_mutex_unlock(&race_lock);
	return n;
}

/* A racing reader's copy takes RACE_COPY_MS, or until a truncate of its
 * file begins: long enough that the operation after the one it began at
 * starts while it copies, however late the mutating thread is woken on a
 * busy machine, so a replay that begins the read at the same point of
 * the sequence meets the same truncate. The process's first thread (the
 * sequence's own reads) copies at once: nothing races it. */
#define RACE_COPY_MS 5

/* Whether a truncate of fd's file began since ended truncates of it had
 * ended (when the read began), after the copy's time. */
static int race_met(int fd, unsigned long ended)
{
	struct timespec until;
	struct stat st;
	int i, met, timed_out = 0;

	if (fstat(fd, &st))
		return 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += RACE_COPY_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&race_lock);
	for (;;) {
		i = race_slot(&st, 0);
		met = i >= 0 && race_files[i].begun != ended;
		if (met || timed_out || gettid() == getpid())
			break;
		timed_out = pthread_cond_timedwait(&race_begun, &race_lock,
						   &until) != 0;
	}
	pthread_mutex_unlock(&race_lock);
	return met;
}

/* A read of fd that returned ret into buf, begun when ended truncates
 * had ended: one ran meanwhile, and the page it copied was reused. */
static void race_apply(int fd, char *buf, ssize_t ret, unsigned long ended)
{
	if (ret <= 0 || !race_met(fd, ended))
		return;
	for (ssize_t i = 0; i < ret; i++)
		buf[i] = "REUSED!!"[i % 8];
}

int ftruncate(int fd, off_t len)
{
	static int (*real)(int, off_t);
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	int ret;

	if (!real)
		real = (int (*)(int, off_t))dlsym(RTLD_NEXT, "ftruncate");
	if (fake_race(fd, "reuse")) {
		race_count(fd, 0, 1);
		ret = real(fd, len);
		race_count(fd, 1, 1);
		return ret;
	}
	if (fake_tail(fd))
		tails_wipe(fd, len, (off_t)1 << 62);
	if (fake_tail(fd) && !fstat(fd, &st) && len < st.st_size &&
	    len % page) {
		off_t pg = len / page * page, end = pg + page;
		char *p;

		if (end > st.st_size)
			end = st.st_size;
		/* Kept through a mapping: no read the probes would count. */
		p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, pg);
		for (int i = 0; p != MAP_FAILED && i < TAILS; i++) {
			if (tails[i].fd >= 0)
				continue;
			memcpy(tails[i].bytes, p + (len - pg),
			       (size_t)(end - len));
			memset(tails[i].gone, 0, (size_t)(end - len));
			tails[i].fd = fd;
			tails[i].start = len;
			tails[i].end = end;
			break;
		}
		if (p != MAP_FAILED)
			munmap(p, (size_t)page);
	}
	return real(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

/* FS_FAKE_ZERO=refuse: fallocate's ZERO_RANGE on the --ops files fails
 * with EOPNOTSUPP, as on tmpfs: a filesystem that has it refusing it. */
int fallocate(int fd, int mode, off_t off, off_t len)
{
	static int (*real)(int, int, off_t, off_t);
	const char *b = getenv("FS_FAKE_ZERO");

	if (!real)
		real = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT,
							      "fallocate");
	if (b && !strcmp(b, "refuse") && (mode & FALLOC_FL_ZERO_RANGE) &&
	    is_ops_file(fd)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
	return fallocate(fd, mode, off, len);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t off)
{
	static pread_fn real;

	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pwrite");
	if (fake_tail(fd))
		tails_wipe(fd, off, off + (off_t)count);
	return real(fd, (void *)buf, count, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t off)
{
	return pwrite(fd, buf, count, off);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT,
								    "write");
	if (fd > 2 && fake_tail(fd)) {
		off_t at = lseek(fd, 0, SEEK_CUR);

		tails_wipe(fd, at, at + (off_t)count);
	}
	return real(fd, buf, count);
}

/* A closed fd's tails go with it (its number comes back for another
 * file). */
int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	for (int i = 0; i < TAILS; i++)
		if (tails[i].fd == fd)
			tails[i].fd = -1;
	return real(fd);
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	ssize_t ret, done = 0;

	if (!real)
		real = (ssize_t(*)(int, const struct iovec *, int, off_t))dlsym(
			RTLD_NEXT, "preadv");
	ops_read_count(fd);
	ret = real(fd, iov, n, off);
	if (!fake_tail(fd))
		return ret;
	for (int j = 0; j < n && done < ret; j++) {
		ssize_t l = (ssize_t)iov[j].iov_len < ret - done
				    ? (ssize_t)iov[j].iov_len
				    : ret - done;

		tails_apply(fd, iov[j].iov_base, off + done, l);
		done += l;
	}
	return ret;
}

ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	return preadv(fd, iov, n, off);
}

static const char *bug(int fd)
{
	const char *b = getenv("FS_FAKE_READ");

	/* stale on --ops' files too (their fallocated ranges), and crash. */
	if (b && (!strcmp(b, "stale") || !strcmp(b, "crash")) &&
	    fd_path_has(fd, "/folioscope-ops-"))
		return b;
	return b && fd_path_has(fd, "/folioscope-shmem-") ? b : NULL;
}

/* The bug, on a call that read ret bytes of count at file offset off
 * into buf (the real bytes in tmp for "hole"). */
static void apply(const char *b, int fd, char *buf, const char *tmp,
		  size_t count, ssize_t ret, int pos, off_t off)
{
	if (ret < 0)
		return;
	if (!strcmp(b, "stale")) {
		/* Whole zero words of the file: what no write leaves. */
		for (ssize_t i = (8 - (off & 7)) & 7; i + 8 <= ret; i += 8)
			if (!memcmp(buf + i, "\0\0\0\0\0\0\0\0", 8))
				memcpy(buf + i, "STALE!!!", 8);
	} else if (!strcmp(b, "hole")) {
		for (ssize_t i = 0; i < ret; i++)
			if (tmp[i])
				buf[i] = tmp[i];
	} else if (!strcmp(b, "past") && (size_t)ret < count) {
		buf[ret] = 0;
	} else if (!strcmp(b, "pos") && pos && (ret & 1)) {
		lseek(fd, -1, SEEK_CUR);
	}
}

static ssize_t call(const char *b, int fd, void *buf, size_t count, off_t off,
		    int pos)
{
	static read_fn real_read;
	static pread_fn real_pread;
	char *tmp = buf;
	ssize_t ret;

	if (!real_read) {
		real_read = (read_fn)dlsym(RTLD_NEXT, "read");
		real_pread = (pread_fn)dlsym(RTLD_NEXT, "pread");
	}
	if (b && !strcmp(b, "crash"))
		raise(SIGKILL);
	if (b && !strcmp(b, "hang")) {
		int p[2];

		if (pipe(p))
			abort();
		return real_read(p[0], buf, count);
	}
	if (b && !strcmp(b, "hole")) {
		tmp = malloc(count ? count : 1);
		if (!tmp)
			abort();
	}
	if (b && !strcmp(b, "warn")) {
		static int warned;
		int k = warned++ ? -1 : open("/dev/kmsg", O_WRONLY);

		if (k >= 0) {
			char line[160];
			int n = snprintf(line, sizeof(line),
					 "<4>WARNING: CPU: 0 PID: %d at "
					 "mm/shmem.c:2700 shmem_file_read_iter "
					 "(folioscope fake)\n",
					 (int)getpid());

			if (write(k, line, (size_t)n) != n)
				abort();
			close(k);
		}
	}
	if (b && !strcmp(b, "short") && count > 1)
		count /= 2;
	if (pos && b && !strcmp(b, "stale"))
		off = lseek(fd, 0, SEEK_CUR);
	ret = pos ? real_read(fd, tmp, count) : real_pread(fd, tmp, count, off);
	if (b)
		apply(b, fd, buf, tmp, count, ret, pos, off);
	if (tmp != buf)
		free(tmp);
	return ret;
}

/* A pipe, for FS_FAKE_BACK's reads of one. */
static int is_fifo(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISFIFO(st.st_mode);
}

ssize_t read(int fd, void *buf, size_t count)
{
	off_t at = fd > 2 && fake_tail(fd) ? lseek(fd, 0, SEEK_CUR) : -1;
	int race = fd > 2 && fake_race(fd, "reuse");
	unsigned long ended = race ? race_count(fd, 1, 0) : 0;

	if (fd > 2) {
		race_hang(fd);
		ops_read_count(fd);
	}
	if (getenv("FS_FAKE_BACK") && is_fifo(fd) && back_fails(EIO))
		return -1;
	ssize_t ret = call(bug(fd), fd, buf, count, 0, 1);

	if (at >= 0)
		tails_apply(fd, buf, at, ret);
	if (race)
		race_apply(fd, buf, ret, ended);
	return ret;
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	int race = fake_race(fd, "reuse");
	unsigned long ended = race ? race_count(fd, 1, 0) : 0;
	ssize_t ret;

	race_hang(fd);
	ops_read_count(fd);
	ret = call(bug(fd), fd, buf, count, off, 0);

	if (fake_tail(fd))
		tails_apply(fd, buf, off, ret);
	if (race)
		race_apply(fd, buf, ret, ended);
	return ret;
}

ssize_t pread64(int fd, void *buf, size_t count, off_t off)
{
	return call(bug(fd), fd, buf, count, off, 0);
}

/* FS_FAKE_RACE=lose: the compare, a window, the destinations that were
 * equal written back as they were compared. */
static void dedupe_lose(int fd, const struct file_dedupe_range *r)
{
	const size_t n = r->src_length;
	unsigned char *a = malloc(n), *b[256] = { 0 };
	const struct timespec win = { .tv_nsec = 5000000 };

	if (!a || syscall(SYS_pread64, fd, a, n, r->src_offset) != (long)n)
		goto out;
	for (__u16 i = 0; i < r->dest_count && i < 256; i++) {
		b[i] = malloc(n);
		if (b[i] && (syscall(SYS_pread64, r->info[i].dest_fd, b[i], n,
				     r->info[i].dest_offset) != (long)n ||
			     memcmp(a, b[i], n))) {
			free(b[i]);
			b[i] = NULL;
		}
	}
	nanosleep(&win, NULL);
	for (__u16 i = 0; i < r->dest_count && i < 256; i++)
		if (b[i])
			(void)!syscall(SYS_pwrite64, r->info[i].dest_fd, b[i],
				       n, r->info[i].dest_offset);
out:
	for (int i = 0; i < 256; i++)
		free(b[i]);
	free(a);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	const char *b = getenv("FS_FAKE_DEDUPE");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
								     "ioctl");
	if (b && !strcmp(b, "hang") && req == FIDEDUPERANGE) {
		int p[2];
		char c;

		if (pipe(p))
			abort();
		return (int)read(p[0], &c, 1);
	}
	if (req == FIDEDUPERANGE && fake_race(fd, "lose"))
		dedupe_lose(fd, arg);
	if (b && !strcmp(b, "clone") && req == FIDEDUPERANGE) {
		struct file_dedupe_range *r = arg;

		for (__u16 i = 0; i < r->dest_count; i++) {
			struct file_clone_range c = {
				.src_fd = fd,
				.src_offset = r->src_offset,
				.src_length = r->src_length,
				.dest_offset = r->info[i].dest_offset,
			};

			if (r->src_offset % 4096 != c.dest_offset % 4096)
				real_ioctl(r->info[i].dest_fd, FICLONERANGE,
					   &c);
		}
	}
	return real_ioctl(fd, req, arg);
}

/* The count that ends at in's EOF from *off, so that a call shifted
 * back by a byte returns what the unshifted one would. */
static size_t pipe_cap(int in, const loff_t *off, size_t count)
{
	struct stat st;

	if (fstat(in, &st) || *off >= st.st_size)
		return count;
	return (size_t)(st.st_size - *off) < count ? (size_t)(st.st_size - *off)
						   : count;
}

/* FS_FAKE_PIPE=shift on in's offset *off: the real call's offset, and
 * the one to report afterwards. */
static int pipe_shift(int in, const loff_t *off)
{
	const char *b = getenv("FS_FAKE_PIPE");

	if (!b || strcmp(b, "shift") || !off || *off % 4096 == 0)
		return 0;
	return fd_path_has(in, "/folioscope-shmem-");
}

typedef ssize_t (*splice_fn)(int, loff_t *, int, loff_t *, size_t,
			     unsigned int);
typedef ssize_t (*sendfile_fn)(int, int, off_t *, size_t);
typedef ssize_t (*cfr_fn)(int, loff_t *, int, loff_t *, size_t, unsigned int);

ssize_t splice(int in, loff_t *off_in, int out, loff_t *off_out, size_t len,
	       unsigned int flags)
{
	splice_fn real = (splice_fn)dlsym(RTLD_NEXT, "splice");
	size_t n = over_count(in, len);
	loff_t o;
	ssize_t ret;

	if (n != len)
		return over_ret(len, n,
				real(in, off_in, out, off_out, n, flags),
				off_in);
	if (!pipe_shift(in, off_in))
		return real(in, off_in, out, off_out, len, flags);
	o = *off_in - 1;
	ret = real(in, &o, out, off_out, pipe_cap(in, off_in, len), flags);
	if (ret > 0)
		*off_in += ret;
	return ret;
}

ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
	sendfile_fn real = (sendfile_fn)dlsym(RTLD_NEXT, "sendfile");
	size_t n = over_count(in, count);
	off_t o;
	ssize_t ret;

	if (n != count)
		return over_ret(count, n, real(out, in, off, n), (loff_t *)off);
	if (!pipe_shift(in, (const loff_t *)off))
		return real(out, in, off, count);
	o = *off - 1;
	ret = real(out, in, &o, pipe_cap(in, (const loff_t *)off, count));
	if (ret > 0)
		*off += ret;
	return ret;
}

ssize_t sendfile64(int out, int in, off_t *off, size_t count)
{
	return sendfile(out, in, off, count);
}

ssize_t copy_file_range(int in, loff_t *off_in, int out, loff_t *off_out,
			size_t len, unsigned int flags)
{
	cfr_fn real = (cfr_fn)dlsym(RTLD_NEXT, "copy_file_range");
	size_t n = over_count(in, len);
	loff_t o;
	ssize_t ret;

	if (n != len)
		return over_ret(len, n,
				real(in, off_in, out, off_out, n, flags),
				off_in);
	if (!pipe_shift(in, off_in))
		return real(in, off_in, out, off_out, len, flags);
	o = *off_in - 1;
	ret = real(in, &o, out, off_out, pipe_cap(in, off_in, len), flags);
	if (ret > 0)
		*off_in += ret;
	return ret;
}

/* FS_FAKE_BACK=error, noerrno: the read-backs fail. */
typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	recv_fn real = (recv_fn)dlsym(RTLD_NEXT, "recv");

	if (back_fails(ECONNRESET))
		return -1;
	return real(fd, buf, len, flags);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	mmap_fn real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");

	if (fd >= 0 && prot == PROT_READ && (flags & MAP_SHARED) &&
	    wl_file(fd) && back_fails(ENOMEM))
		return MAP_FAILED;
	return real(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}
