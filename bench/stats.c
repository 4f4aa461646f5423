// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark aggregation (see stats.h): parsing raw records, statistics
 * over rounds, derived figures, verdicts, results.json and the table.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "stats.h"
#include "util/util.h"

#define MAX_FIELDS 12
#define BENCH_LINE 8192

void bench__init(struct bench_set *s)
{
	memset(s, 0, sizeof(*s));
}

void bench__free(struct bench_set *s)
{
	free(s->samples);
	free(s->env);
	free(s->baselines);
	free(s->ratios);
	free(s->floors);
	free(s->targets);
	free(s->notes);
	bench__init(s);
}

/* Grows array *v of *n elements of size sz; returns the new slot. */
static void *grow(void **v, int *n, int *cap, size_t sz)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 16;
		void *nv = realloc(*v, nc * sz);

		if (!nv)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	memset((char *)*v + (size_t)*n * sz, 0, sz);
	return (char *)*v + (size_t)(*n)++ * sz;
}

#define GROW(s, arr, n, cap)                                                   \
	grow((void **)&(s)->arr, &(s)->n, &(s)->cap, sizeof(*(s)->arr))

static int fail(char *err, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (err && n) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Copies a field; a name longer than the buffer is an error. */
static int put(char *dst, size_t n, const char *src)
{
	if (strlen(src) >= n)
		return -1;
	strcpy(dst, src);
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) ? -1 : 0;
}

static int parse_round(const char *s, int *v)
{
	char *end;
	long r;

	errno = 0;
	r = strtol(s, &end, 10);
	if (errno || end == s || *end || r < 0 || r > 1000000)
		return -1;
	*v = (int)r;
	return 0;
}

/* Splits line into at most max whitespace-separated fields; *rest points
 * at the text after field number rest_after (for free text), if asked. */
static int split(char *line, char **f, int max, int rest_after,
		 const char *orig, const char **rest)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		f[n++] = p;
		if (rest && n == rest_after) {
			const char *r = orig + (p - line);

			r += strcspn(r, " \t");
			r += strspn(r, " \t");
			*rest = r;
		}
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static int key_set(struct bench_key *k, const char *scope, const char *bench,
		   const char *variant, const char *metric)
{
	if (put(k->scope, sizeof(k->scope), scope) ||
	    put(k->bench, sizeof(k->bench), bench) ||
	    put(k->variant, sizeof(k->variant), variant) ||
	    put(k->metric, sizeof(k->metric), metric))
		return -1;
	return 0;
}

int bench__parse_line(struct bench_set *s, const char *line, char *err,
		      size_t errlen)
{
	char buf[BENCH_LINE], *f[MAX_FIELDS];
	const char *rest = NULL;
	size_t len;
	int n;

	len = strcspn(line, "\r\n");
	if (len >= sizeof(buf))
		return fail(err, errlen, "line too long");
	memcpy(buf, line, len);
	buf[len] = '\0';
	line = buf + strspn(buf, " \t");
	if (!*line || *line == '#')
		return 0;
	{
		char orig[BENCH_LINE];

		strcpy(orig, line);
		/* Free text follows field 2 (note), 3 (env) or 7 (target). */
		int after = 3;

		if (!strncmp(orig, "target", 6))
			after = 7;
		else if (!strncmp(orig, "note", 4))
			after = 2;

		n = split((char *)line, f, MAX_FIELDS, after, orig, &rest);
		if (!strcmp(f[0], "sample")) {
			struct bench_sample *x;

			if (n != 7)
				return fail(err, errlen,
					    "sample: want 6 fields, got %d",
					    n - 1);
			x = GROW(s, samples, nsamples, cap_samples);
			if (!x)
				return -ENOMEM;
			if (key_set(&x->k, f[1], f[2], f[3], f[5])) {
				s->nsamples--;
				return fail(err, errlen,
					    "sample: name too long");
			}
			if (parse_round(f[4], &x->round) ||
			    parse_double(f[6], &x->value)) {
				s->nsamples--;
				return fail(
					err, errlen,
					"sample: bad round '%s' or value '%s'",
					f[4], f[6]);
			}
			return 0;
		}
		if (!strcmp(f[0], "env") || !strcmp(f[0], "note")) {
			bool env = f[0][0] == 'e';

			if (n < (env ? 3 : 2))
				return fail(err, errlen, "%s: too few fields",
					    f[0]);
			if (env) {
				struct bench_env *e =
					GROW(s, env, nenv, cap_env);

				if (!e)
					return -ENOMEM;
				if (put(e->scope, sizeof(e->scope), f[1]) ||
				    put(e->key, sizeof(e->key), f[2]) ||
				    put(e->value, sizeof(e->value),
					n > 3 && rest ? rest : "")) {
					s->nenv--;
					return fail(err, errlen,
						    "env: too long");
				}
			} else {
				struct bench_note *t =
					GROW(s, notes, nnotes, cap_notes);

				if (!t)
					return -ENOMEM;
				if (put(t->scope, sizeof(t->scope), f[1]) ||
				    put(t->text, sizeof(t->text),
					rest ? rest : "")) {
					s->nnotes--;
					return fail(err, errlen,
						    "note: too long");
				}
			}
			return 0;
		}
		if (!strcmp(f[0], "baseline")) {
			struct bench_baseline *b;

			if (n != 5)
				return fail(err, errlen,
					    "baseline: want 4 fields, got %d",
					    n - 1);
			b = GROW(s, baselines, nbaselines, cap_baselines);
			if (!b)
				return -ENOMEM;
			if (key_set(&b->k, f[1], f[2], f[4], f[3])) {
				s->nbaselines--;
				return fail(err, errlen,
					    "baseline: name too long");
			}
			return 0;
		}
		if (!strcmp(f[0], "ratio") || !strcmp(f[0], "part")) {
			struct bench_ratio *r;

			if (n != 7)
				return fail(err, errlen,
					    "%s: want 6 fields, got %d", f[0],
					    n - 1);
			r = GROW(s, ratios, nratios, cap_ratios);
			if (!r)
				return -ENOMEM;
			r->diff = !strcmp(f[0], "part");
			if (key_set(&r->k, f[1], f[2], f[4], f[3]) ||
			    put(r->den, sizeof(r->den), f[5]) ||
			    put(r->name, sizeof(r->name), f[6])) {
				s->nratios--;
				return fail(err, errlen, "%s: name too long",
					    f[0]);
			}
			return 0;
		}
		if (!strcmp(f[0], "floor")) {
			struct bench_floor *q;

			if (n != 8)
				return fail(err, errlen,
					    "floor: want 7 fields, got %d",
					    n - 1);
			q = GROW(s, floors, nfloors, cap_floors);
			if (!q)
				return -ENOMEM;
			if (key_set(&q->k, f[1], f[2], f[4], f[3]) ||
			    put(q->base, sizeof(q->base), f[5]) ||
			    put(q->floor, sizeof(q->floor), f[6])) {
				s->nfloors--;
				return fail(err, errlen,
					    "floor: name too long");
			}
			if (parse_double(f[7], &q->factor) || q->factor <= 0) {
				s->nfloors--;
				return fail(err, errlen,
					    "floor: bad factor '%s'", f[7]);
			}
			return 0;
		}
		if (!strcmp(f[0], "target")) {
			struct bench_target *t;

			if (n < 8)
				return fail(
					err, errlen,
					"target: want 7 fields or more, got %d",
					n - 1);
			t = GROW(s, targets, ntargets, cap_targets);
			if (!t)
				return -ENOMEM;
			if (key_set(&t->k, f[1], f[2], f[3], f[4]) ||
			    put(t->name, sizeof(t->name), rest)) {
				s->ntargets--;
				return fail(err, errlen,
					    "target: name too long");
			}
			if (!strcmp(f[5], "le")) {
				t->op = BENCH_LE;
			} else if (!strcmp(f[5], "ge")) {
				t->op = BENCH_GE;
			} else {
				s->ntargets--;
				return fail(
					err, errlen,
					"target: operator '%s' is not le or ge",
					f[5]);
			}
			if (parse_double(f[6], &t->limit)) {
				s->ntargets--;
				return fail(err, errlen,
					    "target: bad limit '%s'", f[6]);
			}
			return 0;
		}
		return fail(err, errlen, "unknown record '%s'", f[0]);
	}
}

int bench__parse_file(struct bench_set *s, FILE *f, const char *name)
{
	char line[BENCH_LINE], err[256];
	int no = 0, rc;

	while (fgets(line, sizeof(line), f)) {
		no++;
		err[0] = '\0';
		rc = bench__parse_line(s, line, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "benchtool: %s:%d: %s\n", name, no,
				rc == -ENOMEM ? "out of memory" : err);
			return rc;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench__median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

const char *bench__unit(const char *metric)
{
	if (!strncmp(metric, "ratio", 5))
		return "ratio";
	if (ends_with(metric, "bytes_per_s"))
		return "B/s";
	if (ends_with(metric, "_per_s"))
		return "1/s";
	if (ends_with(metric, "ns_per_call") || ends_with(metric, "_ns"))
		return "ns";
	if (ends_with(metric, "_kb"))
		return "KiB";
	if (ends_with(metric, "bytes"))
		return "B";
	if (ends_with(metric, "_s") || ends_with(metric, "_s_per_gib"))
		return "s";
	if (ends_with(metric, "_pct"))
		return "%";
	return "";
}

static bool key_eq(const struct bench_key *k, const char *scope,
		   const char *bench, const char *variant, const char *metric)
{
	return !strcmp(k->scope, scope) && !strcmp(k->bench, bench) &&
	       (!variant || !strcmp(k->variant, variant)) &&
	       !strcmp(k->metric, metric);
}

/* Value of (scope, bench, variant, metric) in round r, if measured. */
static bool value_at(const struct bench_set *s, const char *scope,
		     const char *bench, const char *variant, const char *metric,
		     int r, double *v)
{
	for (int i = 0; i < s->nsamples; i++) {
		const struct bench_sample *x = &s->samples[i];

		if (x->round == r &&
		    key_eq(&x->k, scope, bench, variant, metric)) {
			*v = x->value;
			return true;
		}
	}
	return false;
}

static int add_derived(struct bench_set *s, const struct bench_key *k,
		       const char *metric, int round, double v)
{
	struct bench_sample *x = GROW(s, samples, nsamples, cap_samples);

	if (!x)
		return -ENOMEM;
	x->k = *k;
	snprintf(x->k.metric, sizeof(x->k.metric), "%s", metric);
	x->round = round;
	x->value = v;
	x->derived = true;
	return 0;
}

static int derive_added(struct bench_set *s, const struct bench_baseline *b)
{
	char metric[BENCH_NAME], pre[BENCH_NAME], post[BENCH_NAME];
	int n = s->nsamples, err;

	snprintf(metric, sizeof(metric), "added_%s", b->k.metric);
	snprintf(pre, sizeof(pre), "pre_%s", b->k.metric);
	snprintf(post, sizeof(post), "post_%s", b->k.metric);
	for (int i = 0; i < n; i++) {
		struct bench_sample x = s->samples[i];
		double u0, u1, base;
		bool has0, has1;

		if (x.derived ||
		    !key_eq(&x.k, b->k.scope, b->k.bench, NULL, b->k.metric) ||
		    !strcmp(x.k.variant, b->k.variant))
			continue;
		/* Untraced runs just before and after this variant's own
		 * session, when the harness made them; else the baseline's
		 * runs of this round and the next. */
		has0 = value_at(s, b->k.scope, b->k.bench, x.k.variant, pre,
				x.round, &u0);
		has1 = value_at(s, b->k.scope, b->k.bench, x.k.variant, post,
				x.round, &u1);
		if (!has0 && !has1) {
			has0 = value_at(s, b->k.scope, b->k.bench, b->k.variant,
					b->k.metric, x.round, &u0);
			if (!has0)
				continue;
			has1 = value_at(s, b->k.scope, b->k.bench, b->k.variant,
					b->k.metric, x.round + 1, &u1);
		}
		base = has0 && has1 ? (u0 + u1) / 2 : has0 ? u0 : u1;
		err = add_derived(s, &x.k, metric, x.round, x.value - base);
		if (err)
			return err;
	}
	return 0;
}

static int derive_ratio(struct bench_set *s, const struct bench_ratio *q)
{
	int n = s->nsamples, err;

	for (int i = 0; i < n; i++) {
		struct bench_sample x = s->samples[i];
		double d;

		if (!key_eq(&x.k, q->k.scope, q->k.bench, q->k.variant,
			    q->k.metric))
			continue;
		if (!value_at(s, q->k.scope, q->k.bench, q->den, q->k.metric,
			      x.round, &d) ||
		    (d <= 0 && !q->diff))
			continue;
		err = add_derived(s, &x.k, q->name, x.round,
				  q->diff ? d - x.value : x.value / d);
		if (err)
			return err;
	}
	return 0;
}

static int derive_floor(struct bench_set *s, const struct bench_floor *q)
{
	int n = s->nsamples, err;

	for (int i = 0; i < n; i++) {
		struct bench_sample x = s->samples[i];
		double fl;

		if (!key_eq(&x.k, q->k.scope, q->k.bench, q->base,
			    q->k.metric) ||
		    !value_at(s, q->k.scope, q->k.bench, q->floor, q->k.metric,
			      x.round, &fl))
			continue;
		x.k = q->k;
		err = add_derived(s, &x.k, q->k.metric, x.round,
				  fl > q->factor * x.value ? fl : x.value);
		if (err)
			return err;
	}
	return 0;
}

static int stat_of(const struct bench_set *s, const struct bench_key *k,
		   struct bench_stat *st)
{
	double *sorted;
	int n = 0;

	memset(st, 0, sizeof(*st));
	st->k = *k;
	for (int i = 0; i < s->nsamples; i++)
		n += key_eq(&s->samples[i].k, k->scope, k->bench, k->variant,
			    k->metric);
	st->values = calloc(n, sizeof(double));
	st->rounds = calloc(n, sizeof(int));
	sorted = calloc(n, sizeof(double));
	if (!st->values || !st->rounds || !sorted) {
		free(sorted);
		return -ENOMEM;
	}
	/* Round order: samples are few, a selection pass per slot is fine. */
	for (int i = 0; i < s->nsamples; i++) {
		const struct bench_sample *x = &s->samples[i];
		int j;

		if (!key_eq(&x->k, k->scope, k->bench, k->variant, k->metric))
			continue;
		st->derived = x->derived;
		for (j = st->runs; j > 0 && st->rounds[j - 1] > x->round; j--) {
			st->rounds[j] = st->rounds[j - 1];
			st->values[j] = st->values[j - 1];
		}
		st->rounds[j] = x->round;
		st->values[j] = x->value;
		st->runs++;
	}
	memcpy(sorted, st->values, n * sizeof(double));
	st->median = bench__median(sorted, n);
	st->min = sorted[0];
	st->max = sorted[n - 1];
	free(sorted);
	return 0;
}

const struct bench_stat *bench__find(const struct bench_result *r,
				     const char *scope, const char *bench,
				     const char *variant, const char *metric)
{
	for (int i = 0; i < r->nstats; i++)
		if (key_eq(&r->stats[i].k, scope, bench, variant, metric))
			return &r->stats[i];
	return NULL;
}

int bench__aggregate(struct bench_set *s, struct bench_result *r)
{
	int err = 0, i, j;

	memset(r, 0, sizeof(*r));
	/* Derived samples from an earlier call are recomputed. */
	for (i = j = 0; i < s->nsamples; i++)
		if (!s->samples[i].derived)
			s->samples[j++] = s->samples[i];
	s->nsamples = j;
	for (i = 0; i < s->nbaselines && !err; i++)
		err = derive_added(s, &s->baselines[i]);
	for (i = 0; i < s->nfloors && !err; i++)
		err = derive_floor(s, &s->floors[i]);
	for (i = 0; i < s->nratios && !err; i++)
		err = derive_ratio(s, &s->ratios[i]);
	if (err)
		return err;
	/* One statistic per distinct key, in first-seen order. */
	r->stats = calloc(s->nsamples ? s->nsamples : 1, sizeof(*r->stats));
	if (!r->stats)
		return -ENOMEM;
	for (i = 0; i < s->nsamples; i++) {
		const struct bench_key *k = &s->samples[i].k;

		if (bench__find(r, k->scope, k->bench, k->variant, k->metric))
			continue;
		err = stat_of(s, k, &r->stats[r->nstats]);
		r->nstats++;
		if (err)
			return err;
	}
	r->verdicts =
		calloc(s->ntargets ? s->ntargets : 1, sizeof(*r->verdicts));
	if (!r->verdicts)
		return -ENOMEM;
	for (i = 0; i < s->ntargets; i++) {
		const struct bench_target *t = &s->targets[i];
		const struct bench_stat *st = bench__find(
			r, t->k.scope, t->k.bench, t->k.variant, t->k.metric);
		struct bench_verdict *v = &r->verdicts[r->nverdicts++];

		v->t = t;
		v->measured = st != NULL;
		if (st) {
			bool all = t->op == BENCH_LE ? st->max <= t->limit
						     : st->min >= t->limit;
			bool none = t->op == BENCH_LE ? st->min > t->limit
						      : st->max < t->limit;

			v->value = st->median;
			v->min = st->min;
			v->max = st->max;
			/* A figure that went below zero in a round (an added
			 * cost under the untraced runs' own spread) is noise
			 * there: not resolved, whatever side it falls on. */
			v->outcome = st->min < 0 ? BENCH_UNRESOLVED
				     : all	 ? BENCH_MET
				     : none	 ? BENCH_MISSED
						 : BENCH_UNRESOLVED;
			v->met = v->outcome == BENCH_MET;
		}
	}
	return 0;
}

const char *bench__outcome_name(enum bench_outcome o)
{
	return o == BENCH_MET	   ? "met"
	       : o == BENCH_MISSED ? "missed"
				   : "not resolved";
}

void bench__result_free(struct bench_result *r)
{
	for (int i = 0; i < r->nstats; i++) {
		free(r->stats[i].values);
		free(r->stats[i].rounds);
	}
	free(r->stats);
	free(r->verdicts);
	memset(r, 0, sizeof(*r));
}

/* Six significant digits: enough for timings, stable in the file. */
static struct json_object *num(double v)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_object_new_double_s(v, buf);
}

int bench__write_json(const struct bench_set *s, const struct bench_result *r,
		      FILE *f)
{
	struct json_object *root = json_object_new_object();
	struct json_object *envs = json_object_new_object();
	struct json_object *ms = json_object_new_array();
	struct json_object *ts = json_object_new_array();
	struct json_object *notes = json_object_new_array();
	const char *text;
	int i, err = 0;

	json_object_object_add(root, "schema",
			       json_object_new_string("folioscope-bench/1"));
	for (i = 0; i < s->nenv; i++) {
		const struct bench_env *e = &s->env[i];
		struct json_object *o;

		if (!json_object_object_get_ex(envs, e->scope, &o)) {
			o = json_object_new_object();
			json_object_object_add(envs, e->scope, o);
		}
		json_object_object_add(o, e->key,
				       json_object_new_string(e->value));
	}
	json_object_object_add(root, "environments", envs);
	for (i = 0; i < r->nstats; i++) {
		const struct bench_stat *st = &r->stats[i];
		struct json_object *o = json_object_new_object();
		struct json_object *vals = json_object_new_array();

		json_object_object_add(o, "scope",
				       json_object_new_string(st->k.scope));
		json_object_object_add(o, "bench",
				       json_object_new_string(st->k.bench));
		json_object_object_add(o, "variant",
				       json_object_new_string(st->k.variant));
		json_object_object_add(o, "metric",
				       json_object_new_string(st->k.metric));
		json_object_object_add(
			o, "unit",
			json_object_new_string(bench__unit(st->k.metric)));
		json_object_object_add(o, "derived",
				       json_object_new_boolean(st->derived));
		json_object_object_add(o, "median", num(st->median));
		json_object_object_add(o, "min", num(st->min));
		json_object_object_add(o, "max", num(st->max));
		json_object_object_add(o, "runs",
				       json_object_new_int(st->runs));
		for (int j = 0; j < st->runs; j++)
			json_object_array_add(vals, num(st->values[j]));
		json_object_object_add(o, "values", vals);
		json_object_array_add(ms, o);
	}
	json_object_object_add(root, "measurements", ms);
	for (i = 0; i < r->nverdicts; i++) {
		const struct bench_verdict *v = &r->verdicts[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       json_object_new_string(v->t->name));
		json_object_object_add(o, "scope",
				       json_object_new_string(v->t->k.scope));
		json_object_object_add(o, "bench",
				       json_object_new_string(v->t->k.bench));
		json_object_object_add(o, "variant",
				       json_object_new_string(v->t->k.variant));
		json_object_object_add(o, "metric",
				       json_object_new_string(v->t->k.metric));
		json_object_object_add(
			o, "op",
			json_object_new_string(v->t->op == BENCH_LE ? "le"
								    : "ge"));
		json_object_object_add(o, "limit", num(v->t->limit));
		json_object_object_add(o, "value",
				       v->measured ? num(v->value) : NULL);
		json_object_object_add(o, "min",
				       v->measured ? num(v->min) : NULL);
		json_object_object_add(o, "max",
				       v->measured ? num(v->max) : NULL);
		json_object_object_add(
			o, "met",
			v->measured ? json_object_new_boolean(v->met) : NULL);
		json_object_object_add(
			o, "verdict",
			v->measured ? json_object_new_string(
					      bench__outcome_name(v->outcome))
				    : NULL);
		json_object_array_add(ts, o);
	}
	json_object_object_add(root, "targets", ts);
	for (i = 0; i < s->nnotes; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(
			o, "scope", json_object_new_string(s->notes[i].scope));
		json_object_object_add(
			o, "text", json_object_new_string(s->notes[i].text));
		json_object_array_add(notes, o);
	}
	json_object_object_add(root, "notes", notes);
	text = json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (fputs(text, f) < 0 || fputc('\n', f) < 0)
		err = -EIO;
	json_object_put(root);
	return err;
}

/* A value with its unit, short: "1234 ns", "0.45x", "1.2 GB/s". */
static void fmt_value(char *buf, size_t n, double v, const char *unit)
{
	if (!strcmp(unit, "ratio"))
		snprintf(buf, n, "%.2fx", v);
	else if (!strcmp(unit, "B/s"))
		snprintf(buf, n, "%.3g GB/s", v / 1e9);
	else if (!strcmp(unit, "1/s"))
		snprintf(buf, n, "%.3g k/s", v / 1e3);
	else if (!strcmp(unit, "ns"))
		snprintf(buf, n, "%.0f ns", v);
	else if (!strcmp(unit, "s"))
		snprintf(buf, n, "%.3g s", v);
	else if (!strcmp(unit, "B") && fabs(v) >= 1 << 20)
		snprintf(buf, n, "%.3g MiB", v / (1 << 20));
	else if (!strcmp(unit, "B") && fabs(v) >= 1 << 10)
		snprintf(buf, n, "%.3g KiB", v / (1 << 10));
	else if (*unit)
		snprintf(buf, n, "%.4g %s", v, unit);
	else
		snprintf(buf, n, "%.4g", v);
}

bool bench__in_summary(const char *metric)
{
	static const char *const keep[] = {
		"added_ns_per_call",
		"ratio_to_bpftrace",
		"ratio_to_floor",
		"ratio_to_floor_all",
		"bpf_ratio_to_floor_all",
		"bpf_ns_per_call",
		"cost_bpf_ns",
		"cost_added_ns",
		"startup_s",
		"rss_kb",
		"map_memlock_bytes",
		"events_per_s",
		"count_mismatch",
		"read_bytes_per_s",
		"ratio_to_fio",
		"ratio_to_fio_traced",
		"ratio_to_memcpy",
		"sys_s_per_gib",
		"ratio_to_duperemove",
		"ratio_to_ftrace",
		"ratio_to_untraced",
		"ratio_to_oneliner",
	};

	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		if (!strcmp(metric, keep[i]))
			return true;
	return false;
}

void bench__print_table(const struct bench_set *s, const struct bench_result *r,
			FILE *f, bool markdown, bool summary)
{
	char med[48], lo[48], hi[48], lim[48];
	int i;

	for (i = 0; i < s->nenv && !summary; i++)
		fprintf(f, markdown ? "- %s %s: %s\n" : "%-5s %-10s %s\n",
			s->env[i].scope, s->env[i].key, s->env[i].value);
	if (!summary)
		fputc('\n', f);
	if (markdown)
		fprintf(f, "| where | bench | variant | metric | median | min "
			   "| max | runs |\n"
			   "|---|---|---|---|---:|---:|---:|---:|\n");
	else
		fprintf(f, "%-5s %-22s %-20s %-26s %12s %12s %12s %4s\n",
			"where", "bench", "variant", "metric", "median", "min",
			"max", "runs");
	for (i = 0; i < r->nstats; i++) {
		const struct bench_stat *st = &r->stats[i];
		const char *u = bench__unit(st->k.metric);

		/* Per-variant untraced runs: in the JSON, not the table. */
		if (!strncmp(st->k.metric, "pre_", 4) ||
		    !strncmp(st->k.metric, "post_", 5) ||
		    (summary && !bench__in_summary(st->k.metric)))
			continue;
		fmt_value(med, sizeof(med), st->median, u);
		fmt_value(lo, sizeof(lo), st->min, u);
		fmt_value(hi, sizeof(hi), st->max, u);
		fprintf(f,
			markdown
				? "| %s | %s | %s | %s | %s | %s | %s | %d |\n"
				: "%-5s %-22s %-20s %-26s %12s %12s %12s %4d\n",
			st->k.scope, st->k.bench, st->k.variant, st->k.metric,
			med, lo, hi, st->runs);
	}
	if (r->nverdicts) {
		fputc('\n', f);
		if (markdown)
			fprintf(f, "| target | where | measured: median [min, "
				   "max] | limit | verdict |\n"
				   "|---|---|---:|---:|---|\n");
		else
			fprintf(f, "targets:\n");
	}
	for (i = 0; i < r->nverdicts; i++) {
		const struct bench_verdict *v = &r->verdicts[i];
		const char *u = bench__unit(v->t->k.metric);
		char iv[96];

		fmt_value(lim, sizeof(lim), v->t->limit, u);
		if (v->measured) {
			fmt_value(med, sizeof(med), v->value, u);
			fmt_value(lo, sizeof(lo), v->min, u);
			fmt_value(hi, sizeof(hi), v->max, u);
			snprintf(iv, sizeof(iv), "%s [%s, %s]", med, lo, hi);
		} else {
			snprintf(iv, sizeof(iv), "not measured");
		}
		fprintf(f,
			markdown ? "| %s | %s | %s | %s %s | %s |\n"
				 : "  %-56s %-4s %28s  %s %-8s %s\n",
			v->t->name, v->t->k.scope, iv,
			v->t->op == BENCH_LE ? "<=" : ">=", lim,
			v->measured ? bench__outcome_name(v->outcome) : "-");
	}
	for (i = 0; i < s->nnotes; i++)
		fprintf(f, markdown ? "%s- %s: %s\n" : "%snote (%s): %s\n",
			i ? "" : "\n", s->notes[i].scope, s->notes[i].text);
}
