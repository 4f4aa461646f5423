// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The guest command's stdout and stderr (and with -v the kernel's
 * console), passed on to ours by whole lines. They arrive on serial
 * ports in chunks that split lines anywhere; written out as they come,
 * channels that end up in one host file (2>&1, a terminal) cut each
 * other's lines. So each channel writes only up to its last line end.
 * What is left of a line goes out when the channel has been quiet for
 * VM_LINES_QUIET_S (a prompt, a line that will never end), or when it
 * outgrows VM_LINES_MAX. A channel whose line was let out unfinished
 * that way is "open": the other channels' lines wait until it ends, for
 * VM_LINES_HOLD_S at most, so that even then no line is cut.
 *
 * A line ends at '\n', or at a '\r' that a byte other than '\n' follows
 * (a progress line rewritten in place on a terminal). "\r\n" becomes
 * "\n": a guest tty that was reset to add '\r' shows up as it would run
 * here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm_internal.h"

void vm_lines__init(struct vm_lines *l)
{
	memset(l, 0, sizeof(*l));
	for (int ci = 0; ci < VM_LINES_NR; ci++)
		l->ch[ci].fd = -1;
}

void vm_lines__set_fd(struct vm_lines *l, int ci, int fd)
{
	struct vm_lines_chan *c = &l->ch[ci];
	struct stat st;

	c->fd = fd;
	c->dev = c->ino = 0;
	if (!fstat(fd, &st)) {
		c->dev = st.st_dev;
		c->ino = st.st_ino;
	}
}

/* Whether two channels may end up in one file: the same file, or one
 * that could not be told. */
static bool chan__shares(const struct vm_lines_chan *a,
			 const struct vm_lines_chan *b)
{
	return !a->ino || !b->ino || (a->dev == b->dev && a->ino == b->ino);
}

/* Writes the first n bytes of c's buffer; c is open after it when they
 * do not end a line. */
static void chan__write(struct vm_lines_chan *c, size_t n, double now)
{
	const char *p = c->buf;
	size_t left = n;
	bool was_open = c->open;
	ssize_t w;

	while (left && !c->dead) {
		w = write(c->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			/* The reader is gone (| head): drop what comes,
			 * keep running so the guest finishes and its files
			 * still come back. */
			c->dead = true;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	c->open = c->buf[n - 1] != '\n' && c->buf[n - 1] != '\r';
	if (c->open && !was_open)
		c->t_open = now;
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

/* Bytes up to and including the last line end in c's buffer. */
static size_t chan__whole(const struct vm_lines_chan *c)
{
	size_t i = c->len;

	while (i--) {
		if (c->buf[i] == '\n')
			return i + 1;
		if (c->buf[i] == '\r' && i + 1 < c->len)
			return i + 1; /* followed by other than '\n' */
	}
	return 0;
}

/* The latest time until which ci must wait: another channel into the
 * same file let out a line unfinished, not long ago. 0 = none. */
static double chan__held_until(const struct vm_lines *l, int ci)
{
	double until = 0;

	for (int k = 0; k < VM_LINES_NR; k++)
		if (k != ci && l->ch[k].open &&
		    chan__shares(&l->ch[k], &l->ch[ci]) &&
		    l->ch[k].t_open + VM_LINES_HOLD_S > until)
			until = l->ch[k].t_open + VM_LINES_HOLD_S;
	return until;
}

/* Writes what of c may go now: its whole lines, and all of it when it
 * outgrew VM_LINES_MAX or (quiet) when it has been quiet long enough. */
static void chan__emit(struct vm_lines *l, int ci, double now, bool quiet)
{
	struct vm_lines_chan *c = &l->ch[ci];
	size_t n;

	if (!c->len || c->fd < 0 || chan__held_until(l, ci) > now)
		return;
	n = chan__whole(c);
	if (c->len >= VM_LINES_MAX ||
	    (quiet && now - c->t_last >= VM_LINES_QUIET_S))
		n = c->len;
	if (n)
		chan__write(c, n, now);
}

int vm_lines__add(struct vm_lines *l, int ci, const char *buf, size_t n,
		  double now)
{
	struct vm_lines_chan *c = &l->ch[ci];
	bool was_open = c->open;
	size_t i;

	if (c->fd < 0)
		return 0;
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		char *nb;

		while (cap < c->len + n)
			cap *= 2;
		nb = realloc(c->buf, cap);
		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = cap;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' && c->len && c->buf[c->len - 1] == '\r')
			c->len--;
		c->buf[c->len++] = buf[i];
	}
	if (n)
		c->t_last = now;
	chan__emit(l, ci, now, false);
	/* Its line ended: the others' held lines may go now. */
	if (was_open && !c->open)
		for (int k = 0; k < VM_LINES_NR; k++)
			if (k != ci)
				chan__emit(l, k, now, false);
	return 0;
}

double vm_lines__due_in(const struct vm_lines *l, double now)
{
	double due = -1;

	for (int ci = 0; ci < VM_LINES_NR; ci++) {
		const struct vm_lines_chan *c = &l->ch[ci];
		double t = c->t_last + VM_LINES_QUIET_S, held;

		if (!c->len || c->fd < 0)
			continue;
		held = chan__held_until(l, ci);
		if (held > t)
			t = held;
		t -= now;
		if (t < 0)
			t = 0;
		if (due < 0 || t < due)
			due = t;
	}
	return due;
}

void vm_lines__tick(struct vm_lines *l, double now)
{
	/* Twice round: a line one channel ends may free another's. */
	for (int round = 0; round < 2; round++)
		for (int ci = 0; ci < VM_LINES_NR; ci++)
			chan__emit(l, ci, now, true);
}

void vm_lines__flush(struct vm_lines *l, bool end_lines, double now)
{
	/* Open lines first: their ends are what is still to come. */
	for (int round = 0; round < 2; round++) {
		for (int ci = 0; ci < VM_LINES_NR; ci++) {
			struct vm_lines_chan *c = &l->ch[ci];

			if (c->open != !round || c->fd < 0)
				continue;
			if (c->len)
				chan__write(c, c->len, now);
			/* Our own line follows: it starts a line of its
			 * own. */
			if (end_lines && c->open) {
				c->buf[0] = '\n';
				c->len = 1;
				chan__write(c, 1, now);
			}
		}
	}
}

void vm_lines__free(struct vm_lines *l)
{
	for (int ci = 0; ci < VM_LINES_NR; ci++) {
		free(l->ch[ci].buf);
		l->ch[ci].buf = NULL;
	}
}
