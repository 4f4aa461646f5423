// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --expect rules: "shmem.copy_bytes.p50>=64K", "dedupe.latency_ns.p50 <
 * base*0.9", "validation.failures==0". Names are checked against the
 * model's specs when parsing, so a typo is a usage error (exit 2) rather
 * than a rule that can never hold.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"
#include "util/util.h"

/* The specs (names of targets, histograms, counters) without a report. */
static const struct fs_report *specs(void)
{
	static struct fs_report r;
	static bool done;

	if (!done) {
		model__init(&r);
		done = true;
	}
	return &r;
}

struct scan {
	const char *s; /* next unread character */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct scan *sc,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sc->err, sc->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_space(struct scan *sc)
{
	while (*sc->s == ' ' || *sc->s == '\t')
		sc->s++;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* One name of [A-Za-z0-9_]; false if there is none here. */
static bool take_name(struct scan *sc, char *buf, size_t n)
{
	size_t len = 0;

	while (is_name_char(sc->s[len]))
		len++;
	if (!len || len >= n)
		return false;
	memcpy(buf, sc->s, len);
	buf[len] = '\0';
	sc->s += len;
	return true;
}

/* A number: decimal, optionally fractional; then an optional K/M/G/T
 * (binary, as everywhere else in folioscope). No inf/nan/hex. */
static int take_number(struct scan *sc, bool suffix, double *out)
{
	static const char units[] = "kmgt";
	const char *p = sc->s;
	char buf[64], *end;
	double v;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) &&
	    !(*p == '.' && isdigit((unsigned char)p[1])))
		return fail(sc, "expected a number at '%s'", sc->s);
	for (p++; isdigit((unsigned char)*p) || *p == '.'; p++)
		;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2]))))
		for (p += 2; isdigit((unsigned char)*p); p++)
			;
	if (p - sc->s >= (long)sizeof(buf))
		return fail(sc, "number too long at '%s'", sc->s);
	memcpy(buf, sc->s, p - sc->s);
	buf[p - sc->s] = '\0';
	/* Only the characters scanned above: strtod would also take hex. */
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v))
		return fail(sc, "bad number '%s'", buf);
	sc->s = p;
	if (suffix && *sc->s) {
		const char *u = strchr(units, tolower((unsigned char)*sc->s));

		if (u) {
			v *= exp2(10.0 * (double)(u - units + 1));
			sc->s++;
		}
	}
	if (is_name_char(*sc->s) || *sc->s == '.')
		return fail(sc, "unexpected '%c' after the number", *sc->s);
	*out = v;
	return 0;
}

/* STAT: count | sum | mean | min | max | pN with 0 < N < 100. */
static int parse_stat(struct scan *sc, const char *name, struct cmp_quantity *q)
{
	static const struct {
		const char *name;
		enum cmp_stat stat;
	} named[] = {
		{ "count", CMP_ST_COUNT }, { "sum", CMP_ST_SUM },
		{ "mean", CMP_ST_MEAN },   { "min", CMP_ST_MIN },
		{ "max", CMP_ST_MAX },
	};
	const char *p;
	char *end;
	double v;

	for (size_t i = 0; i < ARRAY_SIZE(named); i++) {
		if (!strcmp(name, named[i].name)) {
			q->stat = named[i].stat;
			return 0;
		}
	}
	if (name[0] == 'p' && isdigit((unsigned char)name[1])) {
		p = name + 1;
		errno = 0;
		v = strtod(p, &end);
		if (!errno && !*end && v > 0 && v < 100) {
			q->stat = CMP_ST_PCT;
			q->pct = v;
			return 0;
		}
	}
	return fail(sc,
		    "unknown statistic '%s' (count, sum, mean, min, max, "
		    "pN with 0 < N < 100)",
		    name);
}

/* pN's N may hold one '.', which take_name stops at: p99.9. */
static bool take_stat_name(struct scan *sc, char *buf, size_t n)
{
	size_t len;

	if (!take_name(sc, buf, n))
		return false;
	len = strlen(buf);
	if (buf[0] == 'p' && sc->s[0] == '.' &&
	    isdigit((unsigned char)sc->s[1])) {
		/* Room for the '.', a digit and the NUL: a name of n - 1
		 * characters wrote its NUL past buf (found by fuzzing). */
		if (len + 3 > n)
			return false;
		buf[len++] = '.';
		sc->s++;
		while (isdigit((unsigned char)*sc->s) && len + 1 < n)
			buf[len++] = *sc->s++;
		buf[len] = '\0';
		if (isdigit((unsigned char)*sc->s))
			return false;
	}
	return true;
}

static int parse_lhs(struct scan *sc, struct cmp_quantity *q)
{
	const struct fs_report *sp = specs();
	const struct fs_target_report *tr;
	char first[48], second[48], third[48];
	int t;

	if (!take_name(sc, first, sizeof(first)))
		return fail(
			sc,
			"expected a name (target.histogram.stat, "
			"target.counter, validation.failures, workload.KEY)");
	if (*sc->s != '.')
		return fail(
			sc,
			"'%s' needs a '.': target.histogram.stat, "
			"target.counter, validation.failures or workload.KEY",
			first);
	sc->s++;
	if (!take_name(sc, second, sizeof(second)))
		return fail(sc, "expected a name after '%s.'", first);

	if (!strcmp(first, "validation")) {
		if (strcmp(second, "failures") && strcmp(second, "checks"))
			return fail(sc,
				    "unknown 'validation.%s' (failures, "
				    "checks)",
				    second);
		q->kind = CMP_Q_VALIDATION;
		snprintf(q->key, sizeof(q->key), "%s", second);
		return *sc->s == '.'
			       ? fail(sc, "validation.%s takes no statistic",
				      second)
			       : 0;
	}
	if (!strcmp(first, "workload")) {
		q->kind = CMP_Q_WORKLOAD;
		snprintf(q->key, sizeof(q->key), "%s", second);
		return *sc->s == '.'
			       ? fail(sc, "workload.%s takes no statistic",
				      second)
			       : 0;
	}
	t = model__target_from_name(first);
	if (t < 0)
		return fail(sc,
			    "unknown target '%s' (dedupe, shmem, "
			    "validation, workload)",
			    first);
	tr = &sp->target[t];
	q->target = t;
	if (*sc->s != '.') {
		q->index = model__counter_of(tr, second);
		if (q->index >= 0) {
			q->kind = CMP_Q_COUNTER;
			return 0;
		}
		if (model__hist_of(tr, second) >= 0)
			return fail(sc,
				    "%s.%s is a histogram: add a statistic "
				    "(.count .sum .mean .min .max .pN)",
				    first, second);
		return fail(sc, "%s has no counter or histogram '%s'", first,
			    second);
	}
	sc->s++;
	q->kind = CMP_Q_HIST;
	q->index = model__hist_of(tr, second);
	if (q->index < 0)
		return fail(sc, "%s has no histogram '%s'", first, second);
	if (!take_stat_name(sc, third, sizeof(third)))
		return fail(sc, "expected a statistic after '%s.%s.'", first,
			    second);
	if (*sc->s == '.')
		return fail(sc, "unexpected '.' after '%s.%s.%s'", first,
			    second, third);
	return parse_stat(sc, third, q);
}

static int parse_op(struct scan *sc, enum cmp_op *op)
{
	const char *s = sc->s;

	if (s[0] == '<' && s[1] == '=') {
		*op = CMP_LE;
		sc->s += 2;
	} else if (s[0] == '>' && s[1] == '=') {
		*op = CMP_GE;
		sc->s += 2;
	} else if (s[0] == '=' && s[1] == '=') {
		*op = CMP_EQ;
		sc->s += 2;
	} else if (s[0] == '!' && s[1] == '=') {
		*op = CMP_NE;
		sc->s += 2;
	} else if (s[0] == '<') {
		*op = CMP_LT;
		sc->s++;
	} else if (s[0] == '>') {
		*op = CMP_GT;
		sc->s++;
	} else if (s[0] == '=') {
		return fail(sc,
			    "'=' is not an operator: use == (or < <= > >= !=)");
	} else if (!*s) {
		return fail(sc, "missing operator (< <= > >= == !=) and value");
	} else {
		return fail(sc,
			    "expected an operator (< <= > >= == !=) at '%s'",
			    s);
	}
	if (*sc->s == '=' || *sc->s == '<' || *sc->s == '>')
		return fail(sc, "unknown operator '%.3s'", s);
	return 0;
}

static int parse_rhs(struct scan *sc, struct cmp_rule *rule)
{
	char stat[48];
	int err;

	if (!strncmp(sc->s, "base", 4) && !is_name_char(sc->s[4])) {
		sc->s += 4;
		rule->rhs_base = true;
		rule->rhs = rule->lhs;
		rule->factor = 1.0;
		if (*sc->s == '.') {
			sc->s++;
			if (rule->lhs.kind != CMP_Q_HIST)
				return fail(sc,
					    "base.STAT needs a histogram on "
					    "the left side");
			if (!take_stat_name(sc, stat, sizeof(stat)))
				return fail(sc, "expected a statistic after "
						"'base.'");
			err = parse_stat(sc, stat, &rule->rhs);
			if (err)
				return err;
		}
		skip_space(sc);
		if (*sc->s == '*') {
			sc->s++;
			skip_space(sc);
			err = take_number(sc, false, &rule->factor);
			if (err)
				return err;
		}
		return 0;
	}
	if (!*sc->s)
		return fail(sc, "missing value after the operator");
	if (isalpha((unsigned char)*sc->s))
		return fail(sc, "expected a number or 'base' at '%s'", sc->s);
	return take_number(sc, true, &rule->number);
}

int cmp__rule_parse(const char *text, struct cmp_rule *rule, char *err,
		    size_t errlen)
{
	struct scan sc = { .s = text, .err = err, .errlen = errlen };
	int ret;

	memset(rule, 0, sizeof(*rule));
	if (strlen(text) >= sizeof(rule->text))
		return fail(&sc, "longer than %zu characters",
			    sizeof(rule->text) - 1);
	snprintf(rule->text, sizeof(rule->text), "%s", text);
	skip_space(&sc);
	if (!*sc.s)
		return fail(&sc, "empty rule");
	ret = parse_lhs(&sc, &rule->lhs);
	if (ret)
		return ret;
	skip_space(&sc);
	ret = parse_op(&sc, &rule->op);
	if (ret)
		return ret;
	skip_space(&sc);
	ret = parse_rhs(&sc, rule);
	if (ret)
		return ret;
	skip_space(&sc);
	if (*sc.s)
		return fail(&sc, "unexpected '%s' at the end", sc.s);
	return 0;
}

const char *cmp__op_str(enum cmp_op op)
{
	static const char *const s[] = {
		[CMP_LT] = "<",	 [CMP_LE] = "<=", [CMP_GT] = ">",
		[CMP_GE] = ">=", [CMP_EQ] = "==", [CMP_NE] = "!=",
	};

	return s[op];
}

/* ---- values ---- */

static bool validation_value(const struct fs_report *r, const char *key,
			     double *out, char *why, size_t n)
{
	const struct fs_kv *kv;
	char name[64];

	/* The model's checks when the report carries them, else the
	 * workload's own validation_failures/validation_checks values. */
	if (r->validation.ran) {
		*out = (double)(strcmp(key, "checks") ? r->validation.failures
						      : r->validation.checks);
		return true;
	}
	snprintf(name, sizeof(name), "validation_%s", key);
	kv = model__kv_find(r, name);
	if (kv && kv->type == FS_KV_U64) {
		*out = (double)kv->u;
		return true;
	}
	snprintf(why, n, "no validation %s recorded (workload '%s')", key,
		 r->workload_name[0] ? r->workload_name : "none");
	return false;
}

static bool hist_value(const struct fs_target_report *tr,
		       const struct cmp_quantity *q, double nruns, double *out,
		       char *why, size_t n)
{
	const struct fs_histogram *h = &tr->hist[q->index];
	bool ok = false;

	if (!h->measured) {
		snprintf(why, n, "%s.%s not measured: %s", tr->name,
			 h->spec->name, h->why);
		return false;
	}
	switch (q->stat) {
	case CMP_ST_COUNT:
		*out = (double)h->count / nruns;
		return true;
	case CMP_ST_SUM:
		*out = (double)h->sum / nruns;
		return true;
	case CMP_ST_MEAN:
		ok = cmp__mean(h, out);
		break;
	case CMP_ST_PCT:
		ok = cmp__quantile(h, q->pct / 100.0, out);
		break;
	case CMP_ST_MIN:
		ok = cmp__min(h, out);
		break;
	case CMP_ST_MAX:
		ok = cmp__max(h, out);
		break;
	}
	if (!ok)
		snprintf(why, n, "%s.%s is empty", tr->name, h->spec->name);
	return ok;
}

/* q on report r; additive quantities divided by nruns. */
static bool value_of(const struct fs_report *r, const struct cmp_quantity *q,
		     double nruns, double *out, char *why, size_t n)
{
	const struct fs_target_report *tr;
	const struct fs_kv *kv;

	switch (q->kind) {
	case CMP_Q_VALIDATION:
		if (!validation_value(r, q->key, out, why, n))
			return false;
		*out /= nruns;
		return true;
	case CMP_Q_WORKLOAD:
		kv = model__kv_find(r, q->key);
		if (!kv) {
			snprintf(why, n, "workload '%s' has no value '%s'",
				 r->workload_name, q->key);
			return false;
		}
		if (kv->type != FS_KV_U64) {
			snprintf(why, n, "workload.%s is '%s', not a number",
				 q->key, kv->s);
			return false;
		}
		*out = (double)kv->u / nruns;
		return true;
	case CMP_Q_COUNTER:
	case CMP_Q_HIST:
		break;
	}
	tr = &r->target[q->target];
	if (!tr->enabled) {
		snprintf(why, n, "target %s not traced",
			 model__target_name(q->target));
		return false;
	}
	if (q->kind == CMP_Q_COUNTER) {
		*out = (double)tr->counter[q->index] / nruns;
		return true;
	}
	return hist_value(tr, q, nruns, out, why, n);
}

bool cmp__value(const struct cmp_side *side, const struct cmp_quantity *q,
		double *out, char *why, size_t n)
{
	return value_of(&side->pooled, q, side->nruns, out, why, n);
}

bool cmp__run_value(const struct fs_report *r, const struct cmp_quantity *q,
		    double *out, char *why, size_t n)
{
	return value_of(r, q, 1, out, why, n);
}

void cmp__rule_eval(const struct cmp_rule *rule, const struct cmp_side *base,
		    const struct cmp_side *new, struct cmp_verdict *v)
{
	char why[256];
	double l, r;

	memset(v, 0, sizeof(*v));
	if (!cmp__value(new, &rule->lhs, &l, why, sizeof(why))) {
		snprintf(v->why, sizeof(v->why), "new: %s", why);
		return;
	}
	if (rule->rhs_base) {
		if (!cmp__value(base, &rule->rhs, &r, why, sizeof(why))) {
			snprintf(v->why, sizeof(v->why), "base: %s", why);
			return;
		}
		r *= rule->factor;
	} else {
		r = rule->number;
	}
	v->evaluated = true;
	v->lhs = l;
	v->rhs = r;
	switch (rule->op) {
	case CMP_LT:
		v->pass = l < r;
		break;
	case CMP_LE:
		v->pass = l <= r;
		break;
	case CMP_GT:
		v->pass = l > r;
		break;
	case CMP_GE:
		v->pass = l >= r;
		break;
	case CMP_EQ:
		v->pass = l == r;
		break;
	case CMP_NE:
		v->pass = l != r;
		break;
	}
}
