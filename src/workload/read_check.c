// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A read's buffer and the verdict on one call, the same for every way
 * and every workload: the answer (the return value, or an error the
 * truth allows), the bytes back whole from where the way put them, the
 * file's bytes in [0, ret) (checked in place against the truth), the
 * call's poison from ret to the end of every iovec, and the canary in the
 * gaps between iovecs and the guards around them. The texts are built
 * only when something is wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "workload/pattern.h"
#include "workload/read.h"

#define CANARY 0xa5

__u64 wl_rbuf__iov_len(__u64 len, __u32 n, __u32 j)
{
	return len / n + (j == n - 1 ? len % n : 0);
}

__u64 wl_rbuf__span(__u64 len, __u32 n)
{
	return len + (__u64)(n - 1) * WL_RBUF_GAP + WL_RBUF_GUARD;
}

void wl_rbuf__layout(struct wl_rbuf *b, unsigned char *base, __u64 len, __u32 n)
{
	unsigned char *p = base;

	b->base = base;
	b->n = n;
	for (__u32 j = 0; j < n; j++) {
		b->iov[j].iov_base = p;
		b->iov[j].iov_len = wl_rbuf__iov_len(len, n, j);
		p += b->iov[j].iov_len + WL_RBUF_GAP;
	}
}

unsigned char *wl_rbuf__at(const struct wl_rbuf *b, __u64 i)
{
	__u32 j = 0;

	while (j + 1 < b->n && i >= b->iov[j].iov_len)
		i -= b->iov[j++].iov_len;
	return (unsigned char *)b->iov[j].iov_base + i;
}

void wl_rbuf__poison(struct wl_rbuf *b, __u64 seed)
{
	__u64 s = seed;

	b->seed = seed;
	for (__u32 j = 0; j < b->n; j++) {
		wl_poison__fill(b->iov[j].iov_base, s, b->iov[j].iov_len);
		s += b->iov[j].iov_len;
	}
	memset(b->base - WL_RBUF_GUARD, CANARY, WL_RBUF_GUARD);
	for (__u32 j = 0; j < b->n; j++)
		memset((unsigned char *)b->iov[j].iov_base + b->iov[j].iov_len,
		       CANARY, j + 1 < b->n ? WL_RBUF_GAP : WL_RBUF_GUARD);
}

/* Did a gap or guard byte change? *at: the first one's offset from
 * base (the byte just before base is -1). */
static bool guards_hit(const struct wl_rbuf *b, long *at)
{
	const unsigned char *g;

	for (int i = 0; i < WL_RBUF_GUARD; i++)
		if (b->base[i - WL_RBUF_GUARD] != CANARY) {
			*at = i - WL_RBUF_GUARD;
			return true;
		}
	for (__u32 j = 0; j < b->n; j++) {
		size_t len = j + 1 < b->n ? WL_RBUF_GAP : WL_RBUF_GUARD;

		g = (unsigned char *)b->iov[j].iov_base + b->iov[j].iov_len;
		for (size_t i = 0; i < len; i++)
			if (g[i] != CANARY) {
				*at = g + i - b->base;
				return true;
			}
	}
	return false;
}

bool wl_read__answer_ok(const struct wl_read_truth *t,
			const struct wl_read_res *res)
{
	if (!res->made)
		return false;
	if (res->ret < 0)
		return (t->nowait &&
			(res->err == EAGAIN || res->err == EOPNOTSUPP)) ||
		       (t->err_ok && t->err_ok(t, res->err));
	if (t->ret_ok)
		return t->ret_ok(t, res->ret);
	if ((__u64)res->ret == t->want)
		return true;
	return (t->short_ok || t->nowait) && res->ret > 0 &&
	       (__u64)res->ret < t->want;
}

bool wl_read__kind_is_data(const char *kind)
{
	static const char *const data[] = { WL_KIND_DATA, WL_KIND_UNWRITTEN,
					    WL_KIND_STALE, WL_KIND_NO_VERSION };

	for (size_t i = 0; kind && i < sizeof(data) / sizeof(data[0]); i++)
		if (!strcmp(kind, data[i]))
			return true;
	return false;
}

const char *wl_read__errno_text(int err)
{
	return err ? strerror(err) : "no errno set";
}

static bool fail(struct wl_read_verdict *v, const char *kind,
		 const struct wl_read_truth *t)
{
	v->kind = kind;
	if (t->want_text) {
		snprintf(v->want, sizeof(v->want), "%s", t->want_text);
		return false;
	}
	snprintf(v->want, sizeof(v->want),
		 "ret=%llu%s, data as written, rest of the buffer and guards "
		 "untouched",
		 (unsigned long long)t->want,
		 t->nowait     ? " or fewer, EAGAIN or EOPNOTSUPP"
		 : t->short_ok ? " or fewer"
			       : "");
	return false;
}

/* [0, ret): the file's bytes; a byte still holding the poison was never
 * written (a hole the kernel did not zero, say). */
static bool data_ok(const struct wl_rbuf *b, __u64 pos, ssize_t ret,
		    const struct wl_read_truth *t, struct wl_read_verdict *v)
{
	__u64 done = 0;

	for (__u32 j = 0; j < b->n && done < (__u64)ret; j++) {
		const unsigned char *p = b->iov[j].iov_base;
		size_t len = b->iov[j].iov_len, x;
		unsigned char wb;

		if (len > ret - done)
			len = ret - done;
		x = t->inject && !j ? 0 : t->diff(t->ctx, pos + done, p, len);
		if (x < len) {
			/* Unwritten when the bytes from there on still hold
			 * the poison: four of them where there are (one could
			 * be the file's byte by chance). */
			size_t k = len - x < 4 ? len - x : 4;

			const char *kind = WL_KIND_DATA, *why = "";

			if (wl_poison__diff(p + x, b->seed + done + x, k) ==
			    k) {
				kind = WL_KIND_UNWRITTEN;
				why = " (not written)";
			} else if (wl_stale__at(p + x, pos + done + x,
						len - x)) {
				kind = WL_KIND_STALE;
				why = " (stale memory)";
			}
			/* What no version held, unless its bytes say more. */
			if (t->mismatch_kind && !strcmp(kind, WL_KIND_DATA))
				kind = t->mismatch_kind;
			v->has_at = true;
			v->at = pos + done + x;
			wb = t->byte(t->ctx, pos + done + x);
			if (t->inject && !j) {
				wb ^= 0xff;
				kind = WL_KIND_DATA;
			}
			snprintf(v->got, sizeof(v->got),
				 "ret=%lld, file offset %llu: want 0x%02x, "
				 "got 0x%02x%s",
				 (long long)ret,
				 (unsigned long long)(pos + done + x), wb, p[x],
				 why);
			return fail(v, kind, t);
		}
		done += len;
	}
	return true;
}

/* [ret, iov_len) of every iovec: still this call's poison. */
static bool past_ok(const struct wl_rbuf *b, ssize_t ret,
		    const struct wl_read_truth *t, struct wl_read_verdict *v)
{
	__u64 done = 0;

	for (__u32 j = 0; j < b->n; j++) {
		const unsigned char *p = b->iov[j].iov_base;
		size_t len = b->iov[j].iov_len, from = 0, x;

		if (done < (__u64)ret)
			from = (__u64)ret - done < len ? (size_t)(ret - done)
						       : len;
		x = from + wl_poison__diff(p + from, b->seed + done + from,
					   len - from);
		if (x < len) {
			snprintf(v->got, sizeof(v->got),
				 "ret=%lld, wrote iovec %u byte %zu (buffer "
				 "byte %llu) past ret",
				 (long long)ret, j, x,
				 (unsigned long long)(done + x));
			return fail(v, WL_KIND_PAST, t);
		}
		done += len;
	}
	return true;
}

bool wl_read__check(const struct wl_rbuf *b, __u64 pos,
		    const struct wl_read_res *res,
		    const struct wl_read_truth *t, struct wl_read_verdict *v)
{
	ssize_t ret = res->ret;
	long hit;

	v->kind = NULL;
	v->has_at = false;
	v->want[0] = v->got[0] = '\0';
	if (!res->made) {
		snprintf(v->got, sizeof(v->got), "%s failed: %s",
			 res->back_failed ? res->back_failed : "a step",
			 wl_read__errno_text(res->back_err));
		return fail(v, WL_KIND_READ_BACK, t);
	}
	if (!wl_read__answer_ok(t, res)) {
		if (ret < 0)
			snprintf(v->got, sizeof(v->got), "error %d (%s)",
				 -res->err, wl_read__errno_text(res->err));
		else
			snprintf(v->got, sizeof(v->got), "ret=%lld",
				 (long long)ret);
		return fail(v, FS_CASE_ANSWER, t);
	}
	/* An error the truth allows: nothing to look at. */
	if (ret < 0)
		return true;
	if (res->back < 0) {
		snprintf(v->got, sizeof(v->got), "ret=%lld, %s failed: %s",
			 (long long)ret,
			 res->back_failed ? res->back_failed : "the read-back",
			 wl_read__errno_text(res->back_err));
		return fail(v, WL_KIND_READ_BACK, t);
	}
	if (res->back < ret) {
		snprintf(v->got, sizeof(v->got),
			 "ret=%lld, %lld of its bytes came back from %s",
			 (long long)ret, (long long)res->back,
			 res->back_from ? res->back_from : "its output");
		return fail(v, WL_KIND_READ_BACK, t);
	}
	if (!data_ok(b, pos, ret, t, v) || !past_ok(b, ret, t, v))
		return false;
	if (guards_hit(b, &hit)) {
		snprintf(v->got, sizeof(v->got),
			 "ret=%lld, wrote outside the buffer at base%+ld",
			 (long long)ret, hit);
		return fail(v, WL_KIND_GUARD, t);
	}
	return true;
}
