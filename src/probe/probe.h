/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel probes: carries out an attach plan (load + attach, falling
 * through failed steps with their errors recorded) and moves the per-CPU
 * histogram maps into the model. Nothing else touches BPF maps.
 */
#ifndef FS_PROBE_H
#define FS_PROBE_H

#include <linux/types.h>
#include "model/model.h"
#include "plan/plan.h"

struct probe;

struct probe_opts {
	__u32 filter_tgid; /* 0 = all processes */
	bool load_only;    /* load through the verifier, attach nothing */
};

/*
 * Walk the plan from its first available step: load and attach, record
 * each failure in the step (err, err_msg) and try the next. On success
 * p->chosen is set and *out holds the live probe. Returns 0 or -errno of
 * the last failure (-ENOENT when no step was available).
 */
int probe__attach(const struct kfacts *f, struct plan *p,
		  const struct probe_opts *o, struct probe **out);
/* Add the maps' current contents (summed over CPUs) to the report, with
 * attach info and "not measured" marks. */
int probe__collect(const struct probe *pr, const struct plan *p,
		   struct fs_report *r);
/* Detach and free; safe on NULL. */
void probe__destroy(struct probe *pr);

/* Try every available step (attach, then detach at once) so each step
 * records the kernel's real answer; for doctor. */
void probe__try_all(const struct kfacts *f, struct plan *p,
		    const struct probe_opts *o);

#endif /* FS_PROBE_H */
