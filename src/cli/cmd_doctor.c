// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope doctor: for each target, every attach step with whether it
 * is possible and why, the one auto (or -m) would use, plus kernel facts.
 * As root each possible step is really loaded and attached (then
 * detached), so the reasons are the kernel's own answers.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "commands.h"
#include "common.h"
#include "doctor_inline.h"
#include "plan/plan.h"
#include "probe/probe.h"
#include "session/session.h"
#include "probe/target.h"
#include "util/err.h"
#include "util/jsonb.h"

struct doctor_args {
	bool json;
	struct common_opts c; /* -m, --btf, --debuginfo (-v: fs_verbose) */
};

static const struct argp_option options[] = {
	{ "json", 'J', NULL, 0, "print JSON", 0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct doctor_args *a = st->input;

	switch (key) {
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		break;
	case 'J':
		a->json = true;
		break;
	case ARGP_KEY_ARG:
		cli__usage_error(st, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_plan_argp, 0, NULL, 0 },
	{},
};

static const struct argp doctor_argp = {
	options,
	parse,
	NULL,
	"Explain which attach mechanism each target would use on this "
	"kernel, and why the others cannot be used.",
	children,
	NULL,
	NULL,
};

static const char *step__status(const struct plan_step *s)
{
	if (!s->available)
		return s->why;
	return s->tried ? s->err_msg : s->why;
}

static bool step__usable(const struct plan_step *s)
{
	return s->available && (!s->tried || !s->err);
}

/* The sub-probe's lookup inlined into target t's function, or NULL. */
static const struct plan_inline *sub__inl(const struct kfacts *f, int t)
{
	const struct plan_inline *in = f->sub_inl[t];

	return in && in->function[0] ? in : NULL;
}

/* Why the inlined lookup's result is not read at its exits ("": it is). */
static const char *sub__result_why(const struct kfacts *f, int t)
{
	const struct plan_inline *in = sub__inl(f, t);

	return in ? plan_inline__out_why(in) : "";
}

static void doctor__text(const struct kfacts *f, const struct plan *plans,
			 bool tried, struct dwarf_kernel *k,
			 const struct doctor_inline *di,
			 const struct doctor_inline *sdi)
{
	printf("kernel:   %s\n", f->release);
	if (f->btf_file[0])
		printf("BTF:      %s (--btf); the kernel's own: %s\n",
		       f->btf_file, f->kernel_btf ? "yes" : "no");
	else
		printf("BTF:      %s\n",
		       f->has_btf ? "yes (the kernel's own)"
				  : "no (no /sys/kernel/btf/vmlinux; give "
				    "--btf FILE)");
	printf("lockdown: %s\n", f->lockdown);
	printf("kprobes:  %s\n",
	       f->kprobes == 1 ? "CONFIG_KPROBES=y" : f->kprobes_why);
	if (f->kprobes == 0)
		printf("kprobe blacklist: %s\n", f->blacklist_src);
	else
		printf("kprobe blacklist: %d functions, from %s\n",
		       f->blacklist_len, f->blacklist_src);
	if (!tried)
		printf("note:     not root, so steps were only checked, not "
		       "tried\n");
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct plan *p = &plans[t];

		printf("\n%s: %s%s\n", model__target_name(t), p->function,
		       p->inlined ? " (inlined: no symbol of its own)" : "");
		if (p->clone[0])
			printf("  renamed clone in kallsyms: %s\n", p->clone);
		for (int i = 0; i < p->nsteps; i++) {
			const struct plan_step *s = &p->step[i];

			printf("  %s %-7s %-32s %s\n",
			       i == p->chosen	 ? "=>"
			       : step__usable(s) ? "ok"
						 : "--",
			       plan__mech_name(s->mech), s->symbol,
			       step__status(s));
		}
		if (p->chosen >= 0) {
			const struct plan_step *c = &p->step[p->chosen];

			char why[1024];

			printf("  would use: %s on %s\n",
			       plan__mech_name(c->mech), c->symbol);
			plan__reason(p, why, sizeof(why));
			printf("  because: %s\n", why);
			printf("  in-flight calls: %s\n",
			       c->inflight[0] ? c->inflight
					      : "not tried (not root)");
			if (c->reads[0])
				printf("  kernel reads: %s\n", c->reads);
			if (c->covers[0])
				printf("  covers: %s\n", c->covers);
		} else
			printf("  would use: nothing (no step can attach)\n");
		if (p->inlined)
			doctor_inline__text(k, &di[t]);
		if (sub__inl(f, t)) {
			const struct plan_inline *in = sub__inl(f, t);

			printf("  sub-probe: %s is inlined into %s: %d usable "
			       "inline site%s there%s%s\n",
			       in->function, p->function, in->nsites,
			       in->nsites == 1 ? "" : "s",
			       in->why[0] ? ": " : "", in->why);
			if (in->nsites)
				printf("  sub-probe result: %s\n",
				       in->out_at_exit
					       ? "the folio read at the exits"
					       : sub__result_why(f, t));
			doctor_inline__text(k, &sdi[t]);
		}
	}
}

/* The report as JSON on stdout; -ENOMEM if it could not be built. */
static int doctor__json(const struct kfacts *f, const struct plan *plans,
			bool tried, struct dwarf_kernel *k,
			const struct doctor_inline *di,
			const struct doctor_inline *sdi)
{
	struct jsonb b = { .oom = false };
	struct json_object *root, *targets;
	const char *text;

	root = json_object_new_object();
	if (!root)
		return -ENOMEM;
	jsonb__put(&b, root, "kernel", json_object_new_string(f->release));
	jsonb__put(&b, root, "btf", json_object_new_boolean(f->has_btf));
	jsonb__put_str_or_null(&b, root, "btf_file", f->btf_file);
	jsonb__put(&b, root, "kernel_btf",
		   json_object_new_boolean(f->kernel_btf));
	jsonb__put(&b, root, "lockdown", json_object_new_string(f->lockdown));
	if (f->kprobes < 0)
		jsonb__put_null(&b, root, "kprobes_config");
	else
		jsonb__put(&b, root, "kprobes_config",
			   json_object_new_boolean(f->kprobes == 1));
	jsonb__put(&b, root, "tried", json_object_new_boolean(tried));
	jsonb__put(&b, root, "kprobe_blacklist_functions",
		   json_object_new_int(f->blacklist_len));
	jsonb__put(&b, root, "kprobe_blacklist_source",
		   json_object_new_string(f->blacklist_src));
	targets = jsonb__put(&b, root, "targets", json_object_new_object());
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct plan *p = &plans[t];
		const struct plan_step *c =
			p->chosen < 0 ? NULL : &p->step[p->chosen];
		struct json_object *jt, *steps;

		jt = jsonb__put(&b, targets, model__target_name(t),
				json_object_new_object());
		jsonb__put(&b, jt, "function",
			   json_object_new_string(p->function));
		jsonb__put(&b, jt, "inlined",
			   json_object_new_boolean(p->inlined));
		jsonb__put_str_or_null(&b, jt, "clone", p->clone);
		steps = jsonb__put(&b, jt, "steps", json_object_new_array());
		for (int i = 0; i < p->nsteps; i++) {
			const struct plan_step *s = &p->step[i];
			struct json_object *js;

			js = jsonb__push(&b, steps, json_object_new_object());
			jsonb__put(&b, js, "mechanism",
				   json_object_new_string(
					   plan__mech_name(s->mech)));
			jsonb__put(&b, js, "symbol",
				   json_object_new_string(s->symbol));
			jsonb__put(&b, js, "available",
				   json_object_new_boolean(step__usable(s)));
			jsonb__put(&b, js, "reason",
				   json_object_new_string(step__status(s)));
			jsonb__put_str_or_null(&b, js, "inflight", s->inflight);
			jsonb__put_str_or_null(&b, js, "reads", s->reads);
		}
		jsonb__put_str_or_null(&b, jt, "chosen", c ? c->symbol : NULL);
		jsonb__put_str_or_null(&b, jt, "mechanism",
				       c ? plan__mech_name(c->mech) : NULL);
		jsonb__put_str_or_null(&b, jt, "inflight",
				       c ? c->inflight : NULL);
		jsonb__put_str_or_null(&b, jt, "reads", c ? c->reads : NULL);
		jsonb__put_str_or_null(&b, jt, "covers",
				       c && c->covers[0] ? c->covers : NULL);
		if (p->inlined)
			doctor_inline__json(
				&b,
				jsonb__put(&b, jt, "inline",
					   json_object_new_object()),
				k, &di[t]);
		else
			jsonb__put_null(&b, jt, "inline");
		if (sub__inl(f, t)) {
			struct json_object *js = jsonb__put(
				&b, jt, "sub_inline", json_object_new_object());

			jsonb__put(&b, js, "function",
				   json_object_new_string(
					   sub__inl(f, t)->function));
			jsonb__put(&b, js, "usable_sites_in_function",
				   json_object_new_int(sub__inl(f, t)->nsites));
			jsonb__put(&b, js, "result_at_exits",
				   json_object_new_boolean(
					   sub__inl(f, t)->out_at_exit));
			jsonb__put_str_or_null(&b, js, "result_why",
					       sub__inl(f, t)->out_at_exit
						       ? ""
						       : sub__result_why(f, t));
			doctor_inline__json(&b, js, k, &sdi[t]);
		} else {
			jsonb__put_null(&b, jt, "sub_inline");
		}
	}
	text = b.oom ? NULL
		     : json_object_to_json_string_ext(
			       root, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		printf("%s\n", text);
	json_object_put(root);
	return text ? 0 : -ENOMEM;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a = { .c = { .mode = PLAN_AUTO } };
	struct probe_opts o = {};
	struct plan plans[FS_TGT_NR];
	struct doctor_inline di[FS_TGT_NR];
	struct dwarf_kernel k;
	struct plan_inline inl[FS_TGT_NR];
	struct plan_inline sub_inl[FS_TGT_NR];
	struct doctor_inline sdi[FS_TGT_NR];
	struct kfacts f;
	bool tried = geteuid() == 0;
	int err = 0;

	cli__argp_parse(&doctor_argp, argc, argv, 0, NULL, &a);
	o.btf_path = a.c.btf;
	if (kfacts__load(&f, a.c.btf))
		return 1;
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!plan__inline_target(t)->function)
			continue;
		if (session__inline("doctor", a.c.debuginfo, f.release, t,
				    &inl[t])) {
			kfacts__free(&f);
			return 1;
		}
		f.inl[t] = &inl[t];
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (session__sub_inline("doctor", a.c.debuginfo, &f, t,
					&sub_inl[t])) {
			kfacts__free(&f);
			return 1;
		}
		f.sub_inl[t] = &sub_inl[t];
	}
	o.debuginfo = a.c.debuginfo;
	for (int t = 0; t < FS_TGT_NR; t++) {
		plan__build(&f, t, a.c.mode, &plans[t]);
		if (tried)
			probe__try_all(&f, &plans[t], &o);
		else
			plans[t].chosen = plan__next(&plans[t], 0);
	}
	/* A DWARF file asked for by name that cannot be used is an error;
	 * one looked for is only reported. */
	dwarf_kernel__open(&k, a.c.debuginfo, f.release);
	if (a.c.debuginfo && !k.d) {
		err__print("doctor", 0, "--debuginfo: %s", k.why);
		kfacts__free(&f);
		return 1;
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		memset(&di[t], 0, sizeof(di[t]));
		if (plans[t].inlined)
			doctor_inline__find(&k, plans[t].function, &di[t]);
		memset(&sdi[t], 0, sizeof(sdi[t]));
		if (sub__inl(&f, t))
			doctor_inline__find(&k, sub__inl(&f, t)->function,
					    &sdi[t]);
	}
	if (a.json) {
		err = doctor__json(&f, plans, tried, &k, di, sdi);
		if (err)
			err__print("doctor", err,
				   "cannot build the JSON report");
	} else {
		doctor__text(&f, plans, tried, &k, di, sdi);
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		doctor_inline__free(&di[t]);
		doctor_inline__free(&sdi[t]);
	}
	dwarf_kernel__close(&k);
	kfacts__free(&f);
	return err ? 1 : 0;
}
