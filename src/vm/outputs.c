// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Files the guest command writes and the host gets back. The guest has no
 * access to the host's file system, so output file arguments are pointed
 * at /out/N before boot; /init sends each /out/N back over the control
 * serial port as base64 between "FILE N SIZE" and "END N" lines. The host
 * decodes as the lines arrive into a temp file beside the real path and
 * renames it into place once the guest has ended, so a reader never sees
 * half a file and a failed run never clobbers an old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "report/report.h"
#include "util/fs.h"
#include "vm_internal.h"

#define OUT_SKIP (-2) /* outs->cur while ignoring an unknown file's data */

/* Options of folioscope's subcommands that name a file to write. */
static const char *const file_opts[] = {
	"-j",	   "--json",	    "-o",	 "--output", "--ktap",
	"--junit", "--events-json", "--schedule"
};

static bool is_file_opt(const char *a)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(file_opts); i++)
		if (!strcmp(a, file_opts[i]))
			return true;
	return false;
}

/* "--json=F" / "--output=F" / "--ktap=F" / "--events-json=F" -> length
 * of the "--json=" part, else 0. */
static size_t long_eq_opt(const char *a)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(file_opts); i++) {
		n = strlen(file_opts[i]);
		if (file_opts[i][1] == '-' && !strncmp(a, file_opts[i], n) &&
		    a[n] == '=')
			return n + 1;
	}
	return 0;
}

/* Fails before boot rather than after a long run for an unwritable path. */
static int output__check(const char *path)
{
	char *copy, *dir;
	struct stat st;
	int err = 0;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK))
		err = -errno;
	free(copy);
	return err;
}

/* Registers host path; returns the guest path "/out/N[.ext]" (malloc'd). */
static char *vm_outputs__add(struct vm_outputs *outs, const char *host,
			     int *err)
{
	struct vm_output *nv, *o;
	const char *ext;
	char *guest;

	*err = output__check(host);
	if (*err) {
		err__print("vm", 0, "cannot write output '%s': %s", host,
			   strerror(-*err));
		return NULL;
	}
	nv = realloc(outs->v, (outs->n + 1) * sizeof(*nv));
	if (!nv)
		goto nomem;
	outs->v = nv;
	o = &outs->v[outs->n];
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->host_path = strdup(host);
	/* The guest path keeps the host's extension, so a format guessed
	 * from it (-o x.csv) is the same inside the guest. */
	ext = strrchr(host, '.');
	if (!ext || strchr(ext, '/') || strlen(ext) > 8)
		ext = "";
	if (!o->host_path || asprintf(&guest, "/out/%d%s", outs->n, ext) < 0) {
		free(o->host_path);
		goto nomem;
	}
	outs->n++;
	return guest;
nomem:
	*err = -ENOMEM;
	err__print("vm", 0, "out of memory");
	return NULL;
}

int vm_outputs__rewrite(struct vm_outputs *outs, int argc, char **argv,
			char ***gargv)
{
	bool rest = false; /* after "--": the workload's own arguments */
	char **g;
	size_t eq;
	int i, err = 0;

	outs->v = NULL;
	outs->n = 0;
	outs->cur = -1;
	g = calloc(argc + 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *guest;

		if (rest || !strcmp(a, "--")) {
			rest = true;
			g[i] = strdup(a);
		} else if (is_file_opt(a) && i + 1 < argc &&
			   strcmp(argv[i + 1], "-")) {
			g[i] = strdup(a);
			if (!g[i])
				break;
			i++;
			g[i] = vm_outputs__add(outs, argv[i], &err);
			if (err)
				goto cleanup;
		} else if ((eq = long_eq_opt(a)) && strcmp(a + eq, "-")) {
			guest = vm_outputs__add(outs, a + eq, &err);
			if (err)
				goto cleanup;
			if (asprintf(&g[i], "%.*s%s", (int)eq, a, guest) < 0)
				g[i] = NULL;
			free(guest);
		} else if (a[0] == '-' && (a[1] == 'j' || a[1] == 'o') &&
			   a[2] && strcmp(a + 2, "-")) {
			/* "-jFILE": the short option with its value attached.
			 */
			guest = vm_outputs__add(outs, a + 2, &err);
			if (err)
				goto cleanup;
			if (asprintf(&g[i], "-%c%s", a[1], guest) < 0)
				g[i] = NULL;
			free(guest);
		} else {
			g[i] = strdup(a);
		}
		if (!g[i])
			break;
	}
	if (i < argc) {
		err = -ENOMEM;
		err__print("vm", 0, "out of memory");
	}
cleanup:
	if (err) {
		vm_outputs__free_argv(argc, g);
		vm_outputs__free(outs);
		return err;
	}
	*gargv = g;
	return 0;
}

void vm_outputs__free_argv(int argc, char **gargv)
{
	int i;

	if (!gargv)
		return;
	for (i = 0; i < argc; i++)
		free(gargv[i]);
	free(gargv);
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int output__write(struct vm_output *o, const unsigned char *buf,
			 size_t n)
{
	ssize_t w;

	o->got += n;
	while (n) {
		w = write(o->fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		n -= w;
	}
	return 0;
}

/*
 * Streaming decoder: 6 bits in per character, a byte out per 8. Padding
 * carries no bits, so it is skipped; the bits left over at the end are
 * the padding's zeros.
 */
static int output__decode(struct vm_output *o, const char *line)
{
	unsigned char buf[256];
	size_t n = 0;
	int v, err;

	for (; *line; line++) {
		if (*line == '=' || *line == '\r' || *line == ' ')
			continue;
		v = b64_value(*line);
		if (v < 0)
			return -EILSEQ;
		o->b64_acc = (o->b64_acc << 6 | v) & 0xffff;
		o->b64_bits += 6;
		if (o->b64_bits < 8)
			continue;
		o->b64_bits -= 8;
		buf[n++] = o->b64_acc >> o->b64_bits & 0xff;
		if (n == sizeof(buf)) {
			err = output__write(o, buf, n);
			if (err)
				return err;
			n = 0;
		}
	}
	return output__write(o, buf, n);
}

static void output__fail(struct vm_output *o)
{
	o->failed = true;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	o->tmp_path = NULL;
}

/*
 * Temp file in the target's directory, so rename() is atomic, named as
 * the exports' (report__tmp_name): what a killed vm leaves there is
 * removed by the next export of the same file, this one first.
 */
static int output__open(struct vm_output *o)
{
	int err;

	/* A device or a FIFO is written as the bytes come, no temp. */
	if (path__write_in_place(o->host_path)) {
		o->fd = open(o->host_path, O_WRONLY | O_CLOEXEC);
		return o->fd < 0 ? -errno : 0;
	}
	report__tmp_clean(o->host_path);
	err = report__tmp_name(o->host_path, &o->tmp_path);
	if (err)
		return err;
	o->fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (o->fd < 0) {
		err = -errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
	}
	return err;
}

/*
 * Control words are followed by a space, which base64 never contains: a
 * final base64 line such as "END0" must not be read as "END 0" (sscanf
 * alone would, as its ' ' also matches no space at all).
 */
static bool ctl_word(const char *line, const char *word)
{
	return !strncmp(line, word, strlen(word));
}

int vm_outputs__control_line(struct vm_outputs *outs, const char *line,
			     int *status)
{
	unsigned long long size;
	struct vm_output *o;
	int idx, err, st;
	char extra;

	if (ctl_word(line, "EXIT ") &&
	    sscanf(line, "EXIT %d %c", &st, &extra) == 1) {
		*status = st & 0xff;
		return 0;
	}
	if (ctl_word(line, "FILE ") &&
	    sscanf(line, "FILE %d %llu %c", &idx, &size, &extra) == 2) {
		if (outs->cur >= 0)
			output__fail(&outs->v[outs->cur]);
		outs->cur = OUT_SKIP;
		if (idx < 0 || idx >= outs->n || outs->v[idx].fd >= 0 ||
		    outs->v[idx].complete)
			return 0;
		o = &outs->v[idx];
		o->size = size;
		err = output__open(o);
		if (err) {
			err__print("vm", err, "cannot write output '%s'",
				   o->host_path);
			output__fail(o);
			return err;
		}
		outs->cur = idx;
		return 0;
	}
	if (ctl_word(line, "END ") &&
	    sscanf(line, "END %d %c", &idx, &extra) == 1) {
		if (outs->cur < 0) {
			outs->cur = -1;
			return 0;
		}
		o = &outs->v[outs->cur];
		outs->cur = -1;
		if (o->got != o->size || o->b64_bits >= 6) {
			err__print("vm", 0,
				   "output '%s' arrived damaged "
				   "(%llu of %llu bytes)",
				   o->host_path, (unsigned long long)o->got,
				   (unsigned long long)o->size);
			output__fail(o);
			return -EIO;
		}
		if (close(o->fd)) {
			err = -errno;
			o->fd = -1;
			err__print("vm", err, "cannot write output '%s'",
				   o->host_path);
			output__fail(o);
			return err;
		}
		o->fd = -1;
		o->complete = true;
		return 0;
	}
	if (outs->cur < 0)
		return 0; /* stray line (e.g. READY): nothing to do */
	o = &outs->v[outs->cur];
	err = output__decode(o, line);
	if (err) {
		err__print("vm", err, "cannot receive output '%s'",
			   o->host_path);
		output__fail(o);
		outs->cur = OUT_SKIP;
	}
	return err;
}

int vm_outputs__deliver(struct vm_outputs *outs)
{
	mode_t mask = umask(0);
	int i, err = 0;

	umask(mask);
	for (i = 0; i < outs->n; i++) {
		struct vm_output *o = &outs->v[i];

		if (!o->complete || o->failed || !o->tmp_path)
			continue;
		/* mkstemp made it 0600; give it what open() would have. */
		if (chmod(o->tmp_path, 0666 & ~mask) ||
		    rename(o->tmp_path, o->host_path)) {
			if (!err) {
				err = -errno;
				err__print("vm", err,
					   "cannot write output '%s'",
					   o->host_path);
			}
			continue;
		}
		free(o->tmp_path);
		o->tmp_path = NULL;
	}
	return err;
}

void vm_outputs__free(struct vm_outputs *outs)
{
	int i;

	for (i = 0; i < outs->n; i++) {
		struct vm_output *o = &outs->v[i];

		if (o->fd >= 0)
			close(o->fd);
		if (o->tmp_path)
			unlink(o->tmp_path);
		free(o->tmp_path);
		free(o->host_path);
	}
	free(outs->v);
	outs->v = NULL;
	outs->n = 0;
	outs->cur = -1;
}
