// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Facts about the running kernel for the planner: kallsyms, BTF
 * prototypes, CONFIG_KPROBES, the kprobe blacklist and lockdown mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "plan.h"
#include "util/util.h"
#include "util/err.h"
#include "util/fs.h"

struct kfacts_priv {
	char **syms; /* sorted text symbol names */
	size_t nsyms;
	char *blacklist; /* "\nname\nname\n" */
	struct btf *btf;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool real_has_symbol(const struct kfacts *f, const char *name)
{
	const struct kfacts_priv *p = f->priv;

	return p->nsyms &&
	       bsearch(&name, p->syms, p->nsyms, sizeof(char *), cmp_str);
}

static bool is_clone_suffix(const char *s)
{
	static const char *const sfx[] = { ".constprop.", ".isra.", ".part.",
					   ".llvm.", ".cold" };

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++)
		if (!strncmp(s, sfx[i], strlen(sfx[i])))
			return true;
	return false;
}

static bool real_find_clone(const struct kfacts *f, const char *name, char *out,
			    size_t n)
{
	const struct kfacts_priv *p = f->priv;
	size_t len = strlen(name);

	for (size_t i = 0; i < p->nsyms; i++) {
		const char *s = p->syms[i];

		/* .cold parts are not entry points. */
		if (!strncmp(s, name, len) && s[len] == '.' &&
		    is_clone_suffix(s + len) && !strstr(s + len, ".cold")) {
			snprintf(out, n, "%s", s);
			return true;
		}
	}
	return false;
}

static bool real_blacklisted(const struct kfacts *f, const char *name)
{
	const struct kfacts_priv *p = f->priv;
	char key[160];

	if (!p->blacklist)
		return false;
	snprintf(key, sizeof(key), "\n%s\n", name);
	return strstr(p->blacklist, key);
}

/*
 * Reduce a BTF type to the kind strings plan.c compares: "s64", "u32",
 * "bool", "struct NAME", "void", and "ptr:" + the pointee's kind.
 */
static void btf_describe(const struct btf *btf, __u32 id, char *out, size_t n)
{
	const struct btf_type *t;
	int rid = id ? btf__resolve_type(btf, id) : 0;

	t = rid > 0 ? btf__type_by_id(btf, rid) : NULL;
	if (!t) {
		snprintf(out, n, "void");
	} else if (btf_is_int(t)) {
		__u8 enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL)
			snprintf(out, n, "bool");
		else
			snprintf(out, n, "%c%u",
				 enc & BTF_INT_SIGNED ? 's' : 'u', t->size * 8);
	} else if (btf_is_enum(t)) {
		snprintf(out, n, "u%u", t->size * 8);
	} else if (btf_is_composite(t)) {
		snprintf(out, n, "%s %s", btf_is_struct(t) ? "struct" : "union",
			 btf__name_by_offset(btf, t->name_off));
	} else if (btf_is_ptr(t) && n > 4) {
		snprintf(out, n, "ptr:");
		btf_describe(btf, t->type, out + 4, n - 4);
	} else {
		snprintf(out, n, "other");
	}
}

static int real_btf_proto(const struct kfacts *f, const char *name,
			  struct fn_proto *proto)
{
	const struct kfacts_priv *p = f->priv;
	const struct btf_type *fn, *fp;
	const struct btf_param *prm;
	int id;

	if (!p->btf)
		return -ENOENT;
	id = btf__find_by_name_kind(p->btf, name, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	fn = btf__type_by_id(p->btf, id);
	fp = btf__type_by_id(p->btf, fn->type);
	if (!fp || !btf_is_func_proto(fp))
		return -ENOENT;
	memset(proto, 0, sizeof(*proto));
	proto->nargs = btf_vlen(fp);
	prm = btf_params(fp);
	for (int i = 0; i < proto->nargs && i < FN_MAX_ARGS; i++)
		btf_describe(p->btf, prm[i].type, proto->arg[i],
			     sizeof(proto->arg[i]));
	btf_describe(p->btf, fp->type, proto->ret, sizeof(proto->ret));
	return 0;
}

static int kallsyms_load(struct kfacts_priv *p)
{
	char line[512], name[256], type;
	size_t cap = 0;
	unsigned long long addr;
	FILE *fp;

	fp = fopen("/proc/kallsyms", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (p->nsyms == cap) {
			char **n;

			cap = cap ? cap * 2 : 65536;
			n = realloc(p->syms, cap * sizeof(*n));
			if (!n)
				break;
			p->syms = n;
		}
		p->syms[p->nsyms] = strdup(name);
		if (p->syms[p->nsyms])
			p->nsyms++;
	}
	fclose(fp);
	qsort(p->syms, p->nsyms, sizeof(char *), cmp_str);
	return 0;
}

/* The names of a blacklist file into a "\nname\n..." string, counted. */
static char *blacklist_read(FILE *fp, int *count)
{
	char line[512], name[256];
	unsigned long long a, b;
	size_t len = 1, cap = 4096;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	strcpy(buf, "\n");
	/* Lines are "0xstart-0xend\tname". */
	while (fgets(line, sizeof(line), fp)) {
		size_t l;

		if (sscanf(line, "0x%llx-0x%llx %255s", &a, &b, name) != 3)
			continue;
		l = strlen(name);
		if (len + l + 2 > cap) {
			char *nb;

			cap = (cap + l) * 2;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		memcpy(buf + len, name, l);
		len += l;
		buf[len++] = '\n';
		buf[len] = '\0';
		(*count)++;
	}
	return buf;
}

/*
 * The kprobe blacklist, from $FOLIOSCOPE_KPROBE_BLACKLIST (a file in the
 * same format, for tests), else debugfs: where it is not mounted, a
 * mount attached nowhere just to read it (nothing to unmount if we are
 * killed). Unreadable: assumed empty, and the kernel refuses a
 * listed function when the kprobe is attached.
 */
static void blacklist_load(struct kfacts *f, struct kfacts_priv *p)
{
	static const char deflt[] = "/sys/kernel/debug/kprobes/blacklist";
	const char *env = getenv("FOLIOSCOPE_KPROBE_BLACKLIST");
	const char *src = env && *env ? env : deflt;
	bool privately = false;
	char *data = NULL;
	size_t len = 0;
	FILE *fp;

	fp = fopen(src, "re");
	if (!fp && src == deflt) {
		int mfd = fs__mount_detached("debugfs", true);

		if (mfd >= 0 &&
		    !file__read_at(mfd, "kprobes/blacklist", &data, NULL)) {
			privately = true;
			len = strlen(data);
			/* An empty list: nothing to read. */
			fp = len ? fmemopen(data, len, "r") : NULL;
		}
		if (mfd >= 0)
			close(mfd);
	}
	if (fp) {
		p->blacklist = blacklist_read(fp, &f->blacklist_len);
		fclose(fp);
	}
	if (fp || privately)
		snprintf(f->blacklist_src, sizeof(f->blacklist_src), "%s%s",
			 src,
			 privately ? " (debugfs mounted privately to read "
				     "it)"
				   : "");
	else
		snprintf(f->blacklist_src, sizeof(f->blacklist_src),
			 "%s unreadable: assumed empty", src);
	free(data);
}

/* CONFIG_KPROBES from /proc/config.gz or /boot/config-*, else the PMU. */
static void kprobes_config(struct kfacts *f)
{
	char path[256], line[256];
	gzFile gz;
	int found = -1;

	gz = gzopen("/proc/config.gz", "rb");
	if (!gz) {
		snprintf(path, sizeof(path), "/boot/config-%s", f->release);
		gz = gzopen(path, "rb");
	}
	if (gz) {
		while (gzgets(gz, line, sizeof(line))) {
			if (!strcmp(line, "CONFIG_KPROBES=y\n"))
				found = 1;
			else if (!strcmp(line, "# CONFIG_KPROBES is not set\n"))
				found = 0;
		}
		gzclose(gz);
	}
	if (found < 0 &&
	    !access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		found = 1;
	f->kprobes = found;
	if (found == 0)
		snprintf(f->kprobes_why, sizeof(f->kprobes_why),
			 "CONFIG_KPROBES is not set in this kernel");
	else if (found < 0)
		snprintf(f->kprobes_why, sizeof(f->kprobes_why),
			 "kernel config unreadable and no kprobe PMU in "
			 "/sys/bus/event_source/devices");
}

/* "none [integrity] confidentiality": the bracketed one is active. */
static int parse_lockdown(const char *text, char *out, size_t n)
{
	const char *l = strchr(text, '['), *r = l ? strchr(l, ']') : NULL;

	if (!l || !r || memchr(text, '\n', l - text))
		return -EINVAL;
	snprintf(out, n, "%.*s", (int)(r - l - 1), l + 1);
	return 0;
}

static int read_lockdown_file(const char *path, char *out, size_t n)
{
	char buf[128];
	FILE *fp = fopen(path, "re");

	if (!fp)
		return -errno;
	if (!fgets(buf, sizeof(buf), fp)) {
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	return parse_lockdown(buf, out, n);
}

/* securityfs may not be mounted: then a mount of it attached nowhere,
 * just to read the file. */
static void lockdown_load(struct kfacts *f)
{
	static const char path[] = "/sys/kernel/security/lockdown";
	char *data = NULL;
	int mfd, err;

	snprintf(f->lockdown, sizeof(f->lockdown), "?");
	if (!read_lockdown_file(path, f->lockdown, sizeof(f->lockdown)))
		return;
	mfd = fs__mount_detached("securityfs", true);
	if (mfd < 0)
		return; /* no securityfs at all: no lockdown LSM to ask */
	err = file__read_at(mfd, "lockdown", &data, NULL);
	close(mfd);
	if (err) {
		snprintf(f->lockdown, sizeof(f->lockdown),
			 "none (no lockdown LSM)");
		return;
	}
	if (parse_lockdown(data, f->lockdown, sizeof(f->lockdown)))
		snprintf(f->lockdown, sizeof(f->lockdown),
			 "none (no lockdown LSM)");
	free(data);
}

int kfacts__check_btf(const char *path, char *why, size_t n)
{
	struct stat st;
	struct btf *btf;
	int err;

	/* btf__parse's own errors do not say a file is missing. */
	if (access(path, R_OK) || stat(path, &st)) {
		err = -errno;
		snprintf(why, n, "%s", strerror(-err));
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, n, "%s", strerror(EISDIR));
		return -EISDIR;
	}
	btf = btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	if (err == -ENOENT) {
		/* libbpf's answer for an ELF file without .BTF */
		snprintf(why, n, "an ELF file without a .BTF section");
	} else if (err) {
		char msg[128];

		/* libbpf's own codes (4000+) have no strerror() text */
		libbpf_strerror(err, msg, sizeof(msg));
		snprintf(why, n,
			 "not a BTF file (raw BTF, or ELF with a .BTF "
			 "section): %s",
			 msg);
	}
	if (err)
		return err;
	btf__free(btf);
	return 0;
}

/* The BTF to plan with, and whether libbpf has the kernel's own. */
static int btf_load(struct kfacts *f, struct kfacts_priv *p,
		    const char *btf_file)
{
	struct btf *own;
	int err;

	own = btf__load_vmlinux_btf();
	f->kernel_btf = !libbpf_get_error(own);
	if (!btf_file) {
		p->btf = f->kernel_btf ? own : NULL;
		f->has_btf = f->kernel_btf;
		return 0;
	}
	if (f->kernel_btf)
		btf__free(own);
	snprintf(f->btf_file, sizeof(f->btf_file), "%s", btf_file);
	p->btf = btf__parse(btf_file, NULL);
	err = libbpf_get_error(p->btf);
	if (err) {
		p->btf = NULL;
		err__print(NULL, err, "--btf '%s': not a BTF file", btf_file);
		return err;
	}
	f->has_btf = true;
	return 0;
}

int kfacts__load(struct kfacts *f, const char *btf_file)
{
	struct kfacts_priv *p;
	const char *exclude;
	struct utsname u;
	int err;

	memset(f, 0, sizeof(*f));
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->priv = p;
	f->has_symbol = real_has_symbol;
	f->find_clone = real_find_clone;
	f->btf_proto = real_btf_proto;
	f->kprobe_blacklisted = real_blacklisted;
	if (!uname(&u))
		snprintf(f->release, sizeof(f->release), "%s", u.release);
	err = btf_load(f, p, btf_file);
	if (err)
		goto fail;
	err = kallsyms_load(p);
	if (err) {
		err__print(NULL, err, "cannot read '/proc/kallsyms'");
		goto fail;
	}
	exclude = getenv("FOLIOSCOPE_EXCLUDE");
	if (exclude)
		snprintf(f->exclude, sizeof(f->exclude), "%s", exclude);
	kprobes_config(f);
	/* No kprobes, no blacklist to read (and no debugfs mount for it). */
	if (f->kprobes != 0)
		blacklist_load(f, p);
	else
		snprintf(f->blacklist_src, sizeof(f->blacklist_src),
			 "not read: no kprobes in this kernel");
	lockdown_load(f);
	return 0;
fail:
	kfacts__free(f);
	return err;
}

/* Does BTF have enumerator name in enum ename? */
static bool btf_has_enumerator(const struct btf *btf, const char *ename,
			       const char *name)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
			return true;
	return false;
}

int kfacts__large_folios(const struct kfacts *f, const char *fs, char *why,
			 size_t n)
{
	static const char *const flags[] = { "AS_FOLIO_ORDER_MAX",
					     "AS_LARGE_FOLIO_SUPPORT" };
	const struct kfacts_priv *p = f ? f->priv : NULL;
	const char *flag = NULL;

	if (!strcmp(fs, "tmpfs")) {
		snprintf(why, n, "not judged: tmpfs huge= decides");
		return -1;
	}
	if (!p || !p->btf) {
		snprintf(why, n,
			 "not judged: no BTF to read the page cache's "
			 "mapping flags from");
		return -1;
	}
	for (size_t i = 0; !flag && i < sizeof(flags) / sizeof(flags[0]); i++)
		if (btf_has_enumerator(p->btf, "mapping_flags", flags[i]))
			flag = flags[i];
	if (!flag) {
		snprintf(why, n,
			 "no: enum mapping_flags has neither "
			 "AS_LARGE_FOLIO_SUPPORT nor AS_FOLIO_ORDER_MAX");
		return 0;
	}
	if (!strcmp(fs, "xfs")) {
		snprintf(why, n,
			 "yes: enum mapping_flags has %s, which xfs sets on "
			 "every inode",
			 flag);
		return 1;
	}
	snprintf(why, n,
		 "not judged: enum mapping_flags has %s, but %s asks for "
		 "large folios only in some builds",
		 flag, fs);
	return -1;
}

void kfacts__free(struct kfacts *f)
{
	struct kfacts_priv *p = f->priv;

	if (!p)
		return;
	for (size_t i = 0; i < p->nsyms; i++)
		free(p->syms[i]);
	free(p->syms);
	free(p->blacklist);
	btf__free(p->btf);
	free(p);
	f->priv = NULL;
}
