// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope doctor: for each target, every attach step with whether it
 * is possible and why, the one auto (or -m) would use, plus kernel facts.
 * As root each possible step is really loaded and attached (then
 * detached), so the reasons are the kernel's own answers.
 */
#include <argp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "commands.h"
#include "common.h"
#include "plan/plan.h"
#include "probe/probe.h"

struct doctor_args {
	bool json;
	enum plan_mode mode;
	const char *btf; /* --btf FILE */
};

enum { OPT_BTF = 0x100 };

static const struct argp_option options[] = {
	{ "json", 'J', NULL, 0, "print JSON", 0 },
	{ "mode", 'm', "MODE", 0,
	  "plan for auto (default), fentry, kprobe or syscall", 0 },
	{ "verbose", 'v', NULL, 0, "show libbpf messages", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "plan with this BTF (raw, or an ELF with .BTF) instead of "
	  "/sys/kernel/btf/vmlinux; also used for CO-RE when steps are tried",
	  0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct doctor_args *a = st->input;

	switch (key) {
	case 'J':
		a->json = true;
		break;
	case 'm':
		if (plan__parse_mode(arg, &a->mode))
			cli__usage_error(st,
					 "unknown mode '%s' (auto, fentry, "
					 "kprobe, syscall)",
					 arg);
		break;
	case 'v':
		fs_verbose = true;
		break;
	case OPT_BTF:
		cli__check_btf(st, arg);
		a->btf = arg;
		break;
	case ARGP_KEY_ARG:
		cli__usage_error(st, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp doctor_argp = {
	options,
	parse,
	NULL,
	"Explain which attach mechanism each target would use on this "
	"kernel, and why the others cannot be used.",
	NULL,
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

static void doctor__text(const struct kfacts *f, const struct plan *plans,
			 bool tried)
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
		} else
			printf("  would use: nothing (no step can attach)\n");
	}
}

static void doctor__json(const struct kfacts *f, const struct plan *plans,
			 bool tried)
{
	struct json_object *root = json_object_new_object();
	struct json_object *targets = json_object_new_object();

	json_object_object_add(root, "kernel",
			       json_object_new_string(f->release));
	json_object_object_add(root, "btf",
			       json_object_new_boolean(f->has_btf));
	json_object_object_add(
		root, "btf_file",
		f->btf_file[0] ? json_object_new_string(f->btf_file) : NULL);
	json_object_object_add(root, "kernel_btf",
			       json_object_new_boolean(f->kernel_btf));
	json_object_object_add(root, "lockdown",
			       json_object_new_string(f->lockdown));
	json_object_object_add(
		root, "kprobes_config",
		f->kprobes < 0 ? NULL
			       : json_object_new_boolean(f->kprobes == 1));
	json_object_object_add(root, "tried", json_object_new_boolean(tried));
	json_object_object_add(root, "kprobe_blacklist_functions",
			       json_object_new_int(f->blacklist_len));
	json_object_object_add(root, "kprobe_blacklist_source",
			       json_object_new_string(f->blacklist_src));
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct plan *p = &plans[t];
		struct json_object *jt = json_object_new_object();
		struct json_object *steps = json_object_new_array();

		json_object_object_add(jt, "function",
				       json_object_new_string(p->function));
		json_object_object_add(jt, "inlined",
				       json_object_new_boolean(p->inlined));
		json_object_object_add(
			jt, "clone",
			p->clone[0] ? json_object_new_string(p->clone) : NULL);
		for (int i = 0; i < p->nsteps; i++) {
			const struct plan_step *s = &p->step[i];
			struct json_object *js = json_object_new_object();

			json_object_object_add(
				js, "mechanism",
				json_object_new_string(
					plan__mech_name(s->mech)));
			json_object_object_add(
				js, "symbol",
				json_object_new_string(s->symbol));
			json_object_object_add(
				js, "available",
				json_object_new_boolean(step__usable(s)));
			json_object_object_add(
				js, "reason",
				json_object_new_string(step__status(s)));
			json_object_object_add(
				js, "inflight",
				s->inflight[0]
					? json_object_new_string(s->inflight)
					: NULL);
			json_object_array_add(steps, js);
		}
		json_object_object_add(jt, "steps", steps);
		json_object_object_add(
			jt, "chosen",
			p->chosen < 0 ? NULL
				      : json_object_new_string(
						p->step[p->chosen].symbol));
		json_object_object_add(
			jt, "mechanism",
			p->chosen < 0 ? NULL
				      : json_object_new_string(plan__mech_name(
						p->step[p->chosen].mech)));
		json_object_object_add(
			jt, "inflight",
			p->chosen < 0 || !p->step[p->chosen].inflight[0]
				? NULL
				: json_object_new_string(
					  p->step[p->chosen].inflight));
		json_object_object_add(targets, model__target_name(t), jt);
	}
	json_object_object_add(root, "targets", targets);
	printf("%s\n", json_object_to_json_string_ext(
			       root, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a = { .mode = PLAN_AUTO };
	struct probe_opts o = {};
	struct plan plans[FS_TGT_NR];
	struct kfacts f;
	bool tried = geteuid() == 0;

	argp_parse(&doctor_argp, argc, argv, 0, NULL, &a);
	o.btf_path = a.btf;
	if (kfacts__load(&f, a.btf))
		return 1;
	for (int t = 0; t < FS_TGT_NR; t++) {
		plan__build(&f, t, a.mode, &plans[t]);
		if (tried)
			probe__try_all(&f, &plans[t], &o);
		else
			plans[t].chosen = plan__next(&plans[t], 0);
	}
	if (a.json)
		doctor__json(&f, plans, tried);
	else
		doctor__text(&f, plans, tried);
	kfacts__free(&f);
	return 0;
}
