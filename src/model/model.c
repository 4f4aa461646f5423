// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The histogram model: buckets, units, "not measured". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "model.h"
#include "version.h"

static const struct fs_hist_spec dedupe_hists[FS_DD_NHIST] = {
	[FS_DD_BYTES] = { "bytes", "bytes", FS_KIND_LOG2,
			  "length compared per call" },
	[FS_DD_SRC_ALIGN] = { "src_align", "bytes", FS_KIND_ALIGN,
			      "alignment of the source file offset" },
	[FS_DD_DST_ALIGN] = { "dst_align", "bytes", FS_KIND_ALIGN,
			      "alignment of the destination file offset" },
	[FS_DD_FOLIO_SIZE] = { "folio_size", "bytes", FS_KIND_LOG2,
			       "size of each folio read by the compare, "
			       "once per call" },
	[FS_DD_LATENCY] = { "latency_ns", "ns", FS_KIND_LOG2, "time per call" },
	[FS_DD_CALLER_LAT] = { "caller_latency_ns", "ns", FS_KIND_LOG2,
			       "time per call of the caller holding the "
			       "inlined compare, for the same calls",
			       true },
};

static const struct fs_counter_spec dedupe_counters[FS_DD_NCOUNTERS] = {
	[FS_DD_CALLS] = { "calls" },
	[FS_DD_SAME] = { "same" },
	[FS_DD_DIFFERS] = { "differs" },
	[FS_DD_ERRORS] = { "errors" },
	[FS_DD_DROPPED] = { "dropped" },
	[FS_DD_MISSED] = { "missed" },
	[FS_DD_COMPAT] = { "compat_skipped", true },
	[FS_DD_EVENTS] = { "events", true },
	[FS_DD_EV_LOST] = { "events_lost", true },
};

static const struct fs_hist_spec shmem_hists[FS_SH_NHIST] = {
	[FS_SH_BYTES] = { "bytes", "bytes", FS_KIND_LOG2,
			  "bytes returned per read call" },
	[FS_SH_REQ_BYTES] = { "req_bytes", "bytes", FS_KIND_LOG2,
			      "bytes asked for per read call" },
	[FS_SH_POS_ALIGN] = { "pos_align", "bytes", FS_KIND_ALIGN,
			      "alignment of the file position" },
	[FS_SH_BUF_ALIGN] = { "buf_align", "bytes", FS_KIND_ALIGN,
			      "alignment of the user buffer address" },
	[FS_SH_FOLIO_SIZE] = { "folio_size", "bytes", FS_KIND_LOG2,
			       "size of each folio the read copied from" },
	[FS_SH_COPY_BYTES] = { "copy_bytes", "bytes", FS_KIND_LOG2,
			       "bytes copied to user space per folio lookup of "
			       "the read loop" },
	[FS_SH_LATENCY] = { "latency_ns", "ns", FS_KIND_LOG2,
			    "time per read call" },
	[FS_SH_LOOKUPS] = { "lookups_per_call", "lookups", FS_KIND_LOG2,
			    "page-cache lookups per read call: one per folio "
			    "looked up alone, one per batch of them",
			    true },
};

static const struct fs_counter_spec shmem_counters[FS_SH_NCOUNTERS] = {
	[FS_SH_CALLS] = { "calls" },
	[FS_SH_ERRORS] = { "errors" },
	[FS_SH_DROPPED] = { "dropped" },
	[FS_SH_MISSED] = { "missed" },
	[FS_SH_IOV_BEYOND] = { "iov_beyond", true },
	[FS_SH_COMPAT] = { "compat_skipped", true },
	[FS_SH_EVENTS] = { "events", true },
	[FS_SH_EV_LOST] = { "events_lost", true },
	[FS_SH_BATCHES] = { "batch_lookups", true },
	[FS_SH_BATCH_FOLIOS] = { "batch_folios", true },
	[FS_SH_BATCH_COPY_BYTES] = { "batch_copy_bytes", true },
};

int model__hist_index(enum fs_target t, const char *name)
{
	const struct fs_hist_spec *spec = t == FS_TGT_DEDUPE  ? dedupe_hists
					  : t == FS_TGT_SHMEM ? shmem_hists
							      : NULL;
	int n = t == FS_TGT_DEDUPE ? FS_DD_NHIST : FS_SH_NHIST;

	for (int i = 0; spec && i < n; i++)
		if (!strcmp(spec[i].name, name))
			return i;
	return -1;
}

static const char *const target_names[FS_TGT_NR] = {
	[FS_TGT_DEDUPE] = "dedupe",
	[FS_TGT_SHMEM] = "shmem",
};

const char *model__target_name(enum fs_target t)
{
	return t < FS_TGT_NR ? target_names[t] : "?";
}

int model__target_from_name(const char *name)
{
	for (int t = 0; t < FS_TGT_NR; t++)
		if (!strcmp(name, target_names[t]))
			return t;
	return -1;
}

static void target_init(struct fs_target_report *tr, enum fs_target t,
			const struct fs_hist_spec *hs, int nh,
			const struct fs_counter_spec *cs, int nc)
{
	tr->name = target_names[t];
	tr->nhists = nh;
	for (int i = 0; i < nh; i++) {
		tr->hist[i].spec = &hs[i];
		tr->hist[i].measured = true;
	}
	tr->ncounters = nc;
	tr->counter_spec = cs;
	snprintf(tr->attach.mechanism, sizeof(tr->attach.mechanism), "none");
}

/* What `folioscope vm` put on the guest kernel's command line, which
 * the kernel hands to init as environment variables. */
static void vm_facts(struct fs_vm_facts *vm)
{
	const char *accel = getenv("FOLIOSCOPE_VM_ACCEL");
	const char *boot = getenv("FOLIOSCOPE_VM_BOOT");
	unsigned long long n;
	char *end;

	if (!accel || !*accel)
		return;
	snprintf(vm->accel, sizeof(vm->accel), "%s", accel);
	if (!boot)
		return;
	n = strtoull(boot, &end, 10);
	if (!*end && n > 1)
		vm->reboots = n - 1;
}

void model__init(struct fs_report *r)
{
	struct utsname u;

	memset(r, 0, sizeof(*r));
	snprintf(r->tool_version, sizeof(r->tool_version), "%s",
		 FOLIOSCOPE_VERSION);
	if (!uname(&u)) {
		/* utsname fields are 65 bytes; an explicit precision keeps
		 * gcc -O2 -Wformat-truncation (with -Werror) quiet. */
		snprintf(r->kernel, sizeof(r->kernel), "%.*s",
			 (int)sizeof(r->kernel) - 1, u.release);
		snprintf(r->machine, sizeof(r->machine), "%.*s",
			 (int)sizeof(r->machine) - 1, u.machine);
	}
	r->page_size = (__u64)sysconf(_SC_PAGESIZE);
	vm_facts(&r->vm);
	target_init(&r->target[FS_TGT_DEDUPE], FS_TGT_DEDUPE, dedupe_hists,
		    FS_DD_NHIST, dedupe_counters, FS_DD_NCOUNTERS);
	target_init(&r->target[FS_TGT_SHMEM], FS_TGT_SHMEM, shmem_hists,
		    FS_SH_NHIST, shmem_counters, FS_SH_NCOUNTERS);
}

void model__free(struct fs_report *r)
{
	free(r->parts);
	r->parts = NULL;
	r->nparts = 0;
	free(r->intervals);
	r->intervals = NULL;
	r->nintervals = 0;
}

int model__interval_add(struct fs_report *r, __u64 start_ms, __u64 end_ms,
			const struct fs_report *delta)
{
	struct fs_interval *n, *iv;

	n = realloc(r->intervals, (r->nintervals + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->intervals = n;
	iv = &n[r->nintervals++];
	memset(iv, 0, sizeof(*iv));
	iv->start_ms = start_ms;
	iv->end_ms = end_ms;
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &delta->target[t];
		struct fs_interval_target *it = &iv->target[t];

		if (!tr->enabled)
			continue;
		for (int h = 0; h < tr->nhists; h++) {
			memcpy(it->slot[h], tr->hist[h].slot,
			       sizeof(it->slot[h]));
			it->count[h] = tr->hist[h].count;
			it->sum[h] = tr->hist[h].sum;
		}
		memcpy(it->counter, tr->counter, sizeof(it->counter));
	}
	return 0;
}

void model__intervals_move(struct fs_report *dst, struct fs_report *src)
{
	free(dst->intervals);
	dst->intervals = src->intervals;
	dst->nintervals = src->nintervals;
	src->intervals = NULL;
	src->nintervals = 0;
}

void model__totals_from_intervals(struct fs_report *r)
{
	for (int t = 0; t < FS_TGT_NR; t++) {
		struct fs_target_report *tr = &r->target[t];

		if (!tr->enabled)
			continue;
		for (int h = 0; h < tr->nhists; h++) {
			struct fs_histogram *hg = &tr->hist[h];

			memset(hg->slot, 0, sizeof(hg->slot));
			hg->count = hg->sum = 0;
			for (int i = 0; i < r->nintervals && hg->measured;
			     i++) {
				const struct fs_interval_target *it =
					&r->intervals[i].target[t];

				for (int s = 0; s < FS_SLOTS; s++)
					hg->slot[s] += it->slot[h][s];
				hg->count += it->count[h];
				hg->sum += it->sum[h];
			}
		}
		for (int k = 0; k < tr->ncounters; k++) {
			tr->counter[k] = 0;
			for (int i = 0; i < r->nintervals; i++)
				tr->counter[k] +=
					r->intervals[i].target[t].counter[k];
		}
	}
}

bool model__intervals_add_up(const struct fs_report *r, char *why, size_t n)
{
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];
		__u64 slot[FS_SLOTS], sum, c;

		if (!tr->enabled || !r->nintervals)
			continue;
		for (int h = 0; h < tr->nhists; h++) {
			if (!tr->hist[h].measured)
				continue;
			memset(slot, 0, sizeof(slot));
			sum = 0;
			for (int i = 0; i < r->nintervals; i++) {
				const struct fs_interval_target *it =
					&r->intervals[i].target[t];

				for (int s = 0; s < FS_SLOTS; s++)
					slot[s] += it->slot[h][s];
				sum += it->sum[h];
			}
			for (int s = 0; s < FS_SLOTS; s++)
				if (slot[s] != tr->hist[h].slot[s]) {
					snprintf(why, n,
						 "%s.%s slot %d: intervals "
						 "%llu, "
						 "totals %llu",
						 tr->name,
						 tr->hist[h].spec->name, s,
						 (unsigned long long)slot[s],
						 (unsigned long long)tr->hist[h]
							 .slot[s]);
					return false;
				}
			if (sum != tr->hist[h].sum) {
				snprintf(why, n,
					 "%s.%s sum: intervals %llu, totals "
					 "%llu",
					 tr->name, tr->hist[h].spec->name,
					 (unsigned long long)sum,
					 (unsigned long long)tr->hist[h].sum);
				return false;
			}
		}
		for (int k = 0; k < tr->ncounters; k++) {
			c = 0;
			for (int i = 0; i < r->nintervals; i++)
				c += r->intervals[i].target[t].counter[k];
			if (c != tr->counter[k]) {
				snprintf(why, n,
					 "%s.%s: intervals %llu, totals %llu",
					 tr->name, tr->counter_spec[k].name,
					 (unsigned long long)c,
					 (unsigned long long)tr->counter[k]);
				return false;
			}
		}
	}
	return true;
}

/* Histograms only: a part's view has no attach info of its own. */
static void stats__add(struct fs_target_report *tr, const struct fs_stats *st)
{
	for (int i = 0; i < tr->nhists; i++) {
		for (int s = 0; s < FS_SLOTS; s++) {
			tr->hist[i].slot[s] += st->hist[i].slot[s];
			tr->hist[i].count += st->hist[i].slot[s];
		}
		tr->hist[i].sum += st->hist[i].sum;
	}
	for (int c = 0; c < tr->ncounters; c++)
		tr->counter[c] += st->counter[c];
}

const char *model__by_name(enum fs_by by)
{
	switch (by) {
	case FS_BY_PROCESS:
		return "process";
	case FS_BY_CGROUP:
		return "cgroup";
	case FS_BY_NONE:
		break;
	}
	return NULL;
}

static bool part__is(const struct fs_report *r, const struct fs_part *p,
		     const struct fs_part_key *k)
{
	if (p->other || k->other)
		return p->other == k->other;
	return r->by == FS_BY_CGROUP ? p->cgroup_id == k->cgroup_id
				     : p->pid == k->pid;
}

static struct fs_part *part__new(struct fs_report *r,
				 const struct fs_part_key *k)
{
	struct fs_part *p, *n;

	n = realloc(r->parts, (r->nparts + 1) * sizeof(*n));
	if (!n)
		return NULL;
	r->parts = n;
	p = &r->parts[r->nparts++];
	memset(p, 0, sizeof(*p));
	p->other = k->other;
	if (!k->other) {
		p->pid = k->pid;
		p->cgroup_id = k->cgroup_id;
		snprintf(p->comm, sizeof(p->comm), "%s",
			 k->comm ? k->comm : "");
		snprintf(p->cgroup, sizeof(p->cgroup), "%s",
			 k->cgroup ? k->cgroup : "");
	} else {
		snprintf(p->comm, sizeof(p->comm), "other");
		snprintf(p->cgroup, sizeof(p->cgroup), "other");
	}
	target_init(&p->target[FS_TGT_DEDUPE], FS_TGT_DEDUPE, dedupe_hists,
		    FS_DD_NHIST, dedupe_counters, FS_DD_NCOUNTERS);
	target_init(&p->target[FS_TGT_SHMEM], FS_TGT_SHMEM, shmem_hists,
		    FS_SH_NHIST, shmem_counters, FS_SH_NCOUNTERS);
	return p;
}

int model__part_add(struct fs_report *r, const struct fs_part_key *k,
		    enum fs_target t, const struct fs_stats *st)
{
	struct fs_part *p = NULL;

	for (int i = 0; i < r->nparts && !p; i++)
		if (part__is(r, &r->parts[i], k))
			p = &r->parts[i];
	if (!p)
		p = part__new(r, k);
	if (!p)
		return -ENOMEM;
	if (k->other) {
		p->nother[t] = k->nother;
		p->nother_more[t] = k->nother_more;
	}
	p->target[t].enabled = true;
	/* What the whole target cannot measure, no part of it can. */
	for (int i = 0; i < p->target[t].nhists; i++) {
		p->target[t].hist[i].measured = r->target[t].hist[i].measured;
		memcpy(p->target[t].hist[i].why, r->target[t].hist[i].why,
		       sizeof(p->target[t].hist[i].why));
	}
	stats__add(&p->target[t], st);
	return 0;
}

void model__enable(struct fs_report *r, enum fs_target t, bool on)
{
	r->target[t].enabled = on;
}

void model__not_measured(struct fs_report *r, enum fs_target t, int hist,
			 const char *why)
{
	struct fs_histogram *h = &r->target[t].hist[hist];

	h->measured = false;
	snprintf(h->why, sizeof(h->why), "%s", why);
}

void model__add_stats(struct fs_report *r, enum fs_target t,
		      const struct fs_stats *st)
{
	stats__add(&r->target[t], st);
}

int model__counter_index(const struct fs_report *r, enum fs_target t,
			 const char *name)
{
	return model__counter_of(&r->target[t], name);
}

int model__counter_of(const struct fs_target_report *tr, const char *name)
{
	for (int c = 0; c < tr->ncounters; c++)
		if (!strcmp(tr->counter_spec[c].name, name))
			return c;
	return -1;
}

int model__hist_of(const struct fs_target_report *tr, const char *name)
{
	for (int i = 0; i < tr->nhists; i++)
		if (!strcmp(tr->hist[i].spec->name, name))
			return i;
	return -1;
}

void model__bucket(const struct fs_histogram *h, int slot, struct fs_bucket *b)
{
	b->count = h->slot[slot];
	if (slot == 0) {
		b->lo = b->hi = 0;
	} else if (h->spec->kind == FS_KIND_ALIGN) {
		b->lo = b->hi = 1ULL << (slot - 1);
	} else {
		b->lo = 1ULL << (slot - 1);
		/* The last slot is open-ended. */
		b->hi = slot == FS_SLOTS - 1 ? ~0ULL : (1ULL << slot) - 1;
	}
}

bool model__range(const struct fs_histogram *h, int *first, int *last)
{
	*first = -1;
	*last = -1;
	for (int s = 0; s < FS_SLOTS; s++) {
		if (!h->slot[s])
			continue;
		if (*first < 0)
			*first = s;
		*last = s;
	}
	return *first >= 0;
}

static struct fs_kv *kv_slot(struct fs_report *r, const char *key)
{
	struct fs_kv *kv;

	for (int i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, key))
			return &r->kv[i];
	if (r->nkv >= FS_MAX_KV)
		return NULL;
	kv = &r->kv[r->nkv++];
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	return kv;
}

void model__kv_u64(struct fs_report *r, const char *key, __u64 v)
{
	struct fs_kv *kv = kv_slot(r, key);

	if (!kv)
		return;
	kv->type = FS_KV_U64;
	kv->u = v;
}

void model__kv_str(struct fs_report *r, const char *key, const char *s)
{
	struct fs_kv *kv = kv_slot(r, key);

	if (!kv)
		return;
	kv->type = FS_KV_STR;
	snprintf(kv->s, sizeof(kv->s), "%s", s);
}

const struct fs_kv *model__kv_find(const struct fs_report *r, const char *key)
{
	for (int i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, key))
			return &r->kv[i];
	return NULL;
}

void model__stats_add(struct fs_stats *a, const struct fs_stats *b)
{
	for (int h = 0; h < FS_MAX_HISTS; h++) {
		for (int s = 0; s < FS_SLOTS; s++)
			a->hist[h].slot[s] += b->hist[h].slot[s];
		a->hist[h].sum += b->hist[h].sum;
	}
	for (int c = 0; c < FS_MAX_COUNTERS; c++)
		a->counter[c] += b->counter[c];
}

void model__stats_sub(struct fs_stats *a, const struct fs_stats *b)
{
	for (int h = 0; h < FS_MAX_HISTS; h++) {
		for (int s = 0; s < FS_SLOTS; s++)
			a->hist[h].slot[s] -= b->hist[h].slot[s];
		a->hist[h].sum -= b->hist[h].sum;
	}
	for (int c = 0; c < FS_MAX_COUNTERS; c++)
		a->counter[c] -= b->counter[c];
}

bool model__filtered(const struct fs_filters *f)
{
	return f->npids || f->comm[0] || f->cgroup[0] || f->dev[0] ||
	       f->fs[0] || f->command[0];
}

__attribute__((format(printf, 4, 5))) static void
filters__add(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*len >= n)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	*len += r > 0 ? (size_t)r : 0;
}

void model__filters_text(const struct fs_filters *f, char *buf, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	buf[0] = '\0';
	if (!model__filtered(f)) {
		snprintf(buf, n, "none");
		return;
	}
	for (int i = 0; i < f->npids; i++)
		filters__add(buf, n, &len, "%s%u", i ? ", " : "pid ",
			     f->pids[i]);
	if (f->comm[0])
		filters__add(buf, n, &len, "%scomm %s", len ? "; " : "",
			     f->comm);
	if (f->cgroup[0])
		filters__add(buf, n, &len, "%scgroup %s", len ? "; " : "",
			     f->cgroup);
	if (f->dev[0])
		filters__add(buf, n, &len, "%sdev %s", len ? "; " : "", f->dev);
	if (f->fs[0])
		filters__add(buf, n, &len, "%sfs %s", len ? "; " : "", f->fs);
	if (f->command[0])
		filters__add(buf, n, &len, "%scommand %s", len ? "; " : "",
			     f->command);
}

const struct fs_histogram *model__folio_hist(const struct fs_report *r,
					     enum fs_target t)
{
	const struct fs_target_report *tr;

	if (t >= FS_TGT_NR)
		return NULL;
	tr = &r->target[t];
	for (int h = 0; h < tr->nhists; h++)
		if (tr->hist[h].spec &&
		    !strcmp(tr->hist[h].spec->name, "folio_size"))
			return &tr->hist[h];
	return NULL;
}

int model__coverage_add(struct fs_report *r, const char *name, int large,
			const char *why, const struct fs_report *delta)
{
	struct fs_cov_group *g = NULL;

	for (int i = 0; i < r->coverage.ngroups && !g; i++)
		if (!strcmp(r->coverage.g[i].name, name))
			g = &r->coverage.g[i];
	if (!g) {
		if (r->coverage.ngroups >= FS_MAX_COV)
			return -ENOSPC;
		g = &r->coverage.g[r->coverage.ngroups++];
		memset(g, 0, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", name);
		g->large = large;
		snprintf(g->large_why, sizeof(g->large_why), "%s",
			 why ? why : "");
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_histogram *h = model__folio_hist(delta, t);

		g->traced[t] |= delta->target[t].enabled;
		if (h && delta->target[t].enabled)
			for (int sl = 0; sl < FS_SLOTS; sl++)
				g->slot[t][sl] += h->slot[sl];
	}
	return 0;
}

int model__coverage_sizes(const struct fs_report *r, int g, enum fs_target t,
			  struct fs_cov_size *out, int max)
{
	const struct fs_histogram *h = model__folio_hist(r, t);
	struct fs_histogram one;
	struct fs_bucket b;
	int n = 0;

	if (g < 0 || g >= r->coverage.ngroups || !h || !h->measured ||
	    !r->target[t].enabled || !r->coverage.g[g].traced[t])
		return -1;
	/* The group's slots in the target's own bucket layout. */
	one = *h;
	memcpy(one.slot, r->coverage.g[g].slot[t], sizeof(one.slot));
	for (int s = 0; s < FS_SLOTS && n < max; s++) {
		if (!one.slot[s])
			continue;
		model__bucket(&one, s, &b);
		out[n].size = b.lo;
		out[n].count = b.count;
		n++;
	}
	return n;
}

bool model__coverage_gap(const struct fs_report *r, int g, enum fs_target t)
{
	struct fs_cov_size sz[FS_SLOTS];
	int n = model__coverage_sizes(r, g, t, sz, FS_SLOTS);

	if (n <= 0 || r->coverage.g[g].large != 1)
		return false;
	for (int i = 0; i < n; i++)
		if (sz[i].size > r->page_size)
			return false;
	return true;
}

bool model__coverage_warning(const struct fs_report *r, int g)
{
	if (!r->coverage.warn)
		return false;
	for (int t = 0; t < FS_TGT_NR; t++)
		if (model__coverage_gap(r, g, t))
			return true;
	return false;
}
