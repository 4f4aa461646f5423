// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which qemu boots the guest, and what KVM did here before.
 *
 * A KVM that opens but cannot run guests (nested KVM: qemu aborts on an
 * MSR, or the guest never runs an instruction past the firmware) fails
 * the same way on every boot, so --accel auto would pay the failed
 * attempt on every vm call. The failure is remembered in the cache as
 * "kvm-failed", for this qemu binary (path, size, mtime: an upgrade or
 * another build is tried afresh) on this host kernel (uname -r: KVM is
 * the host kernel's), and auto goes straight to TCG while both match.
 * --accel kvm still tries KVM; a boot that works under KVM removes the
 * record, whichever qemu and kernel it was for. The file is text a person
 * can read, and delete.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "vm_internal.h"

/*
 * The --accel values and what qemu gets for each. TCG by default runs the
 * guest's vCPUs round robin in one host thread: multi-threaded TCG (a
 * host thread per vCPU, qemu's default) crashed Debian's 6.1 and 6.12
 * guests in most runs that attach and detach probes under load
 * (tests/soak/run.sh: a jump to address 0 through a kretprobe's or
 * fentry's patched site, a vCPU spinning on a breakpoint the kernel had
 * removed), as when one vCPU keeps running code another vCPU just
 * rewrote; in one thread none died. tcg-multi keeps qemu's default for
 * a guest that patches no code while it runs.
 *
 * tcg-icount drives the guest's clock by the instructions it executes
 * (qemu -icount): every guest instruction moves it 2^3 = 8 ns, and an
 * idle guest's clock jumps to its next timer (sleep=off), so the same
 * code measures the same time on every run, whatever else the host is
 * doing; under plain TCG a guest's timings follow the host's load. 8 ns
 * keeps the guest's clock near the host's here (~190 million guest
 * instructions a second), so the guest's own timeouts mean about what
 * they say. It runs one vCPU: with two, the guest's kernel hangs while
 * bringing up the second ("Booting SMP configuration").
 */
static const struct vm_accel_info vm_accels[] = {
	{ .name = "auto",
	  .accel = VM_ACCEL_AUTO,
	  .tcg = "tcg,thread=single",
	  .report = "tcg" },
	{ .name = "kvm",
	  .accel = VM_ACCEL_KVM,
	  .tcg = "tcg,thread=single",
	  .report = "tcg" },
	{ .name = "tcg",
	  .accel = VM_ACCEL_TCG,
	  .tcg = "tcg,thread=single",
	  .report = "tcg",
	  .tcg_only = true },
	{ .name = "tcg-multi",
	  .accel = VM_ACCEL_TCG_MULTI,
	  .tcg = "tcg,thread=multi",
	  .report = "tcg-multi",
	  .tcg_only = true },
	{ .name = "tcg-icount",
	  .accel = VM_ACCEL_TCG_ICOUNT,
	  .tcg = "tcg,thread=single",
	  .report = "tcg-icount",
	  .icount = "shift=3,sleep=off",
	  .max_cpus = 1,
	  .tcg_only = true },
};

int vm__accel_parse(const char *name, char *names, size_t n)
{
	size_t used = 0;
	int found = -1;

	for (size_t i = 0; i < ARRAY_SIZE(vm_accels); i++) {
		if (!strcmp(name, vm_accels[i].name))
			found = (int)vm_accels[i].accel;
		if (used < n)
			used += (size_t)snprintf(names + used, n - used, "%s%s",
						 i ? ", " : "",
						 vm_accels[i].name);
	}
	return found;
}

const struct vm_accel_info *vm_accel__info(enum vm_accel a)
{
	for (size_t i = 0; i < ARRAY_SIZE(vm_accels); i++)
		if (vm_accels[i].accel == a)
			return &vm_accels[i];
	return &vm_accels[0];
}

const char *vm_accel__qemu(enum vm_accel a, bool kvm)
{
	return kvm ? "kvm" : vm_accel__info(a)->tcg;
}

const char *vm_accel__report(enum vm_accel a, bool kvm)
{
	return kvm ? "kvm" : vm_accel__info(a)->report;
}

#define RECORD_NAME "kvm-failed"
#define RECORD_HEAD                                                            \
	"# folioscope vm: qemu could not run a guest under KVM with this\n"    \
	"# qemu on this host kernel. vm --accel auto uses TCG while both\n"    \
	"# are unchanged; vm --accel kvm tries KVM again and removes this\n"   \
	"# file when the guest boots.\n"
#define WHY_KEY "failure "

void vm_qemu__find(char *buf, size_t n)
{
	const char *name = getenv("FOLIOSCOPE_QEMU");

	if (!name || !*name)
		name = VM_QEMU_NAME;
	if (exe__find(name, &vm_tool_search, buf, n))
		snprintf(buf, n, "%s", name);
}

int vm_kvm__key(const char *qemu, struct vm_kvm_key *k)
{
	struct utsname u;
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (!realpath(qemu, k->qemu) || stat(k->qemu, &st))
		return -errno;
	if (uname(&u))
		return -errno;
	k->size = st.st_size;
	k->mtime_s = st.st_mtim.tv_sec;
	k->mtime_ns = st.st_mtim.tv_nsec;
	if (snprintf(k->kernel, sizeof(k->kernel), "%s", u.release) >=
	    (int)sizeof(k->kernel))
		return -ENAMETOOLONG;
	return 0;
}

int vm_kvm__record_path(const char *cache_opt, char *buf, size_t n)
{
	char dir[PATH_MAX];
	int err;

	err = vm_cache__dir(cache_opt, dir, sizeof(dir));
	if (err)
		return err;
	return vm_fs__fmt(buf, n, "%s/" RECORD_NAME, dir);
}

/* The lines that say which qemu and kernel a record is for. */
static int key__text(const struct vm_kvm_key *k, char *buf, size_t n)
{
	return vm_fs__fmt(buf, n,
			  "qemu %s\nqemu-size %lld\nqemu-mtime %lld.%09ld\n"
			  "kernel %s\n",
			  k->qemu, k->size, k->mtime_s, k->mtime_ns, k->kernel);
}

/* The record's key lines (after its comment), or NULL. */
static const char *record__body(const char *data)
{
	while (*data == '#') {
		data = strchr(data, '\n');
		if (!data)
			return NULL;
		data++;
	}
	return data;
}

bool vm_kvm__recorded(const char *path, const struct vm_kvm_key *k, char *why,
		      size_t n)
{
	char key[PATH_MAX + 256];
	const char *body, *w;
	size_t len = 0, klen;
	char *data = NULL;
	bool match;

	if (key__text(k, key, sizeof(key)) ||
	    vm_fs__read_file(path, &data, &len))
		return false;
	klen = strlen(key);
	body = record__body(data);
	match = body && !strncmp(body, key, klen);
	if (match && why && n) {
		why[0] = '\0';
		w = body + klen;
		if (!strncmp(w, WHY_KEY, strlen(WHY_KEY))) {
			w += strlen(WHY_KEY);
			snprintf(why, n, "%.*s", (int)strcspn(w, "\n"), w);
		}
	}
	free(data);
	return match;
}

int vm_kvm__record(const char *path, const struct vm_kvm_key *k,
		   const char *why)
{
	char key[PATH_MAX + 256], tmp[PATH_MAX];
	char *text;
	int err, len;

	err = key__text(k, key, sizeof(key));
	if (err)
		return err;
	len = asprintf(&text, RECORD_HEAD "%s" WHY_KEY "%s\n", key, why);
	if (len < 0)
		return -ENOMEM;
	/* Written beside and renamed: a reader never sees half a record. */
	err = vm_fs__fmt(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if (!err)
		err = vm_fs__mkdir_parents(path, 0755);
	if (!err) {
		err = vm_fs__write_file(tmp, text, len, 0644);
		if (!err && rename(tmp, path))
			err = -errno;
		if (err)
			unlink(tmp);
	}
	free(text);
	return err;
}

int vm_kvm__forget(const char *path)
{
	return unlink(path) && errno != ENOENT ? -errno : 0;
}
