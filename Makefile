# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# folioscope: BPF objects -> bpftool skeletons -> one static binary, all in $(OUT).
# make SAN=1 ...: an ASan + UBSan build of its own in build/san, dynamic
# (ASan cannot link statically); make check SAN=1 runs unit + host on it.
ifeq ($(SAN),1)
OUT ?= build/san
endif
OUT ?= build
CLANG ?= clang
CC ?= gcc
BPFTOOL ?= bpftool
ARCH := x86

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
# The targets' objects again for kernels without BTF of their own, where
# libbpf refuses an object that names a kfunc: -DFS_NO_KFUNC, the
# bpf_rdonly_cast twins their bases. src/probe/target.c opens their ELF
# with the first build's skeletons (the same maps and programs).
NOK_SKELS := $(OUT)/dedupe_nok.skel.h $(OUT)/shmem_nok.skel.h

APP_SRCS := $(wildcard src/*/*.c)
APP_OBJS := $(patsubst src/%.c,$(OUT)/obj/%.o,$(APP_SRCS))
# Everything but main: what unit tests link against.
LIB_OBJS := $(filter-out $(OUT)/obj/cli/%,$(APP_OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
HOST_SRCS := $(wildcard tests/host/test_*.c)
HOST_BINS := $(patsubst tests/host/%.c,$(OUT)/host-tests/%,$(HOST_SRCS))

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation \
	  -D_GNU_SOURCE -Isrc -Ibpf -I$(OUT)
# libdw before libelf, and its compression libraries after (static link).
LDLIBS := -lbpf -ldw -lelf -lcapstone -lz -llzma -lbz2 -ljson-c -lmicrohttpd -luring
# Static by default: the same binary runs on the host and in the VM guest.
LDFLAGS_APP ?= -static
ifeq ($(SAN),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	     -fno-omit-frame-pointer
CFLAGS += $(SAN_FLAGS)
LDFLAGS_APP := $(SAN_FLAGS)
# Reports go to files the suites look for (tests/check.sh): a leak or UB
# report fails the run even where a test does not look at stderr.
CHECK_ENV := SAN=1 ASAN_OPTIONS=detect_leaks=1:log_path=$(abspath $(OUT))/test-logs/san \
	     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(abspath $(OUT))/test-logs/san
CHECK_WHAT := novm
APP := $(OUT)/folioscope
else
CHECK_WHAT := all
APP := folioscope
endif
CHECK_ENV += BUILD=$(OUT) FS=$(abspath $(OUT))/folioscope \
	     LOGDIR=$(abspath $(OUT))/test-logs
BPF_CFLAGS := -g -O2 -Wall -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	      -Ivmlinux -Ibpf

.PHONY: all static clean check unit test-host test-vm test-mutants check-vm-full demo deps vmlinux \
	format lint compdb
all: folioscope

static: folioscope

folioscope: $(OUT)/folioscope
	$(Q)ln -sf $(OUT)/folioscope $@

$(OUT)/folioscope: $(APP_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS_APP) -o $@ $^ $(LDLIBS)

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUT)/%_nok.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DFS_NO_KFUNC -c $< -o $@

$(OUT)/%_nok.skel.h: $(OUT)/%_nok.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_nok_bpf > $@.tmp && mv $@.tmp $@

# Every user-space object may include a skeleton; generate them first.
$(OUT)/obj/%.o: src/%.c $(wildcard src/*/*.h) src/version.h bpf/shared.h \
		$(SKELS) $(NOK_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $^ -lcmocka $(LDLIBS)

# The DWARF test builds its fixture from the source tree at run time.
$(OUT)/tests/test_dwarf: private CFLAGS += -DFS_SRCDIR='"$(abspath .)"'

$(OUT)/host-tests/%: tests/host/%.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

$(OUT):
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)
	$(Q)$(CHECK_ENV) tests/check.sh unit

# All tests: unit, host (BPF load against the running kernel), VM (not
# with SAN=1: the guest needs the static binary).
check: $(APP) $(OUT)/folioscope-dyn $(UNIT_BINS) $(HOST_BINS)
	$(Q)$(CHECK_ENV) tests/check.sh $(CHECK_WHAT)

test-host: $(APP) $(OUT)/folioscope-dyn $(HOST_BINS)
	$(Q)$(CHECK_ENV) tests/check.sh host

test-vm: folioscope
	$(Q)tests/check.sh vm

# The validator against test kernels with deliberate bugs
# (tests/vm/mutants.sh): builds them (cached, ~15 min the first time).
test-mutants: folioscope
	$(Q)tests/check.sh vm:mutants

# The VM part with trace, progress and compare on Debian's 6.12 as well
# (make check runs only the attach plan, the reconciled runs and the
# validation matrix there), and the suites that boot `make kernel` builds,
# building those that are missing (make check uses them only if built).
check-vm-full: folioscope
	$(Q)tests/check.sh vm-full

# Main job on a fresh machine: deps, build, both workloads under tracing.
demo: deps
	$(Q)$(MAKE) --no-print-directory folioscope
	$(Q)tests/demo.sh

deps:
	$(Q)tests/deps.sh

vmlinux:
	$(call msg,GEN,vmlinux/vmlinux.h)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c \
		> vmlinux/vmlinux.h.tmp && mv vmlinux/vmlinux.h.tmp vmlinux/vmlinux.h

# All the C: user space, BPF, the tests' (unit, host, VM helpers, fuzz
# targets) and the benchmark's tools.
FMT_SRCS = $(wildcard src/*/*.c src/*/*.h src/*.h bpf/*.c bpf/*.h \
	   tests/*/*.c tests/host/progs/*.c bench/*.c bench/*.h \
	   bench/profile/*.c)
# What cppcheck reads besides user space: the same C but BPF programs.
LINT_SRCS = $(wildcard tests/*/*.c tests/host/progs/*.c) \
	    $(filter-out %.bpf.c,$(wildcard bench/*.c bench/profile/*.c))
format:
	$(Q)clang-format -i $(FMT_SRCS)

# cppcheck on user space, the tests and the benchmark's tools; skeleton
# headers (megabytes of embedded BPF bytecode) are left out, libbpf's
# iterator macro is spelled out for it. Then the formatting: a file
# `make format` would change fails lint.
lint:
	$(Q)clang-format --dry-run -Werror $(FMT_SRCS)
	$(Q)cppcheck --quiet --error-exitcode=1 -j2 \
		--enable=warning,performance,portability --inline-suppr \
		--suppress=missingIncludeSystem --suppress=missingInclude \
		'-Dbpf_object__for_each_program(p,o)=for (p = 0; p;)' \
		-D__x86_64__ -Isrc -Ibpf -Ibench -Itests/unit \
		$(APP_SRCS) $(LINT_SRCS)

compdb: clean
	$(Q)bear -- $(MAKE) --no-print-directory all $(UNIT_BINS)

clean:
	$(Q)rm -rf $(OUT) folioscope
.SECONDARY:

# ---- patched-kernel A/B ----
# src/compare's statistics (log, exp, lgamma) need libm.
LDLIBS += -lm

.PHONY: kernel ab mutants
# make kernel [SERIES=6.1|6.12] [PATCHES="a.patch b.patch"] [NAME=name]
# [KASAN=1]: a small test kernel from Debian's linux-source-SERIES (6.1 by
# default), cached by source version, config and patch hashes; prints the
# bzImage path (build/kernels/NAME/bzImage). KASAN=1: with generic KASAN
# (tests/kernels/kasan.fragment), a full build of its own the first time
# (25-40 min on 2 cores).
kernel:
	$(Q)tests/kernels/build.sh $(if $(SERIES),-s $(SERIES)) $(if $(filter 1,$(KASAN)),-k) $(if $(NAME),-n $(NAME)) $(PATCHES)

# make mutants [SERIES=6.1|6.12] [MUTANTS="name ..."]: the validator's
# mutation score (tests/kernels/mutants.sh): a kernel per
# tests/kernels/mutants/*.patch (mutants/6.12/ for 6.12), the matrices on
# each and on the base and KASAN kernels, a table of what caught what.
# Builds are cached; the first run of a series takes about an hour.
mutants: folioscope
	$(Q)tests/kernels/mutants.sh -t $(if $(SERIES),-s $(SERIES)) $(MUTANTS)

# make check-lava: contrib/lava's job run by the real LAVA dispatcher
# (lava-run from Debian's lava-dispatcher, installed when missing: about
# 250 packages) on the 6.1 test kernel and a mutant, both with
# contrib/lava/lava.fragment; LAVA's cases held to folioscope's JSON.
# Not in make check.
.PHONY: check-lava
check-lava: folioscope
	$(Q)contrib/lava/check-lava.sh

# make ab [SERIES=6.1|6.12] [RUNS=N] [SIZE=BYTES] [PATCH=FILE]: base vs
# patched kernels, end to end (tests/ab/run.sh); with PATCH, the claim
# table of a patch to tmpfs reads that applies after the tmpfs seed
# (tests/ab/claims.sh).
ab: folioscope
ifneq ($(PATCH),)
	$(Q)tests/ab/claims.sh --patch $(PATCH) $(if $(SERIES),--series $(SERIES)) $(if $(RUNS),--runs $(RUNS)) $(if $(SIZE),--size $(SIZE))
else
	$(Q)tests/ab/run.sh $(if $(SERIES),--series $(SERIES)) $(if $(RUNS),--runs $(RUNS)) $(if $(SIZE),--size $(SIZE))
endif

# make counts BASE=OLD-BINARY [KERNELS="6.1 6.12"] [HOST=1]: the check
# counts of the six validation jobs with BASE and with this build, on
# Debian's kernels (tests/ab/counts.sh): a change to the workloads that
# keeps their behaviour keeps every count.
.PHONY: counts
counts: folioscope
	$(Q)tests/ab/counts.sh $(if $(KERNELS),--kernels "$(KERNELS)") $(if $(filter 1,$(HOST)),--host) "$(BASE)" $(OUT)/folioscope

# ---- valgrind ----
# The same objects linked dynamically: valgrind cannot follow malloc in a
# static binary (tests/host/valgrind.sh runs doctor/report/compare in it).
$(OUT)/folioscope-dyn: $(APP_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(filter-out -static,$(LDFLAGS_APP)) -o $@ $^ $(LDLIBS)

# make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="json rule parse dwarf"]:
# libFuzzer (clang, ASan + UBSan) on the JSON reader, the --expect rule
# parser, the size/seconds parsers and the DWARF reader (src/dwarf/; libdw
# and capstone themselves are not instrumented), from the committed corpus in
# tests/fuzz/corpus/TARGET; new inputs go to $(OUT)/fuzz, crashes fail.
FUZZ_TARGETS ?= json rule parse dwarf
FUZZ_SECONDS ?= 15
FUZZ_BINS := $(patsubst %,$(OUT)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_LIB := $(wildcard src/model/*.c src/report/*.c src/compare/*.c src/util/*.c)
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -Isrc -Ibpf \
	       -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=undefined -fno-omit-frame-pointer
.PHONY: fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)

$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(wildcard src/*/*.h) \
		src/version.h bpf/shared.h
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB) -ljson-c -lm

$(OUT)/fuzz/fuzz_dwarf: tests/fuzz/fuzz_dwarf.c $(wildcard src/dwarf/*.c src/dwarf/*.h)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(wildcard src/dwarf/*.c) \
		-ldw -lelf -lcapstone

fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh -o $(OUT)/fuzz -t $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- benchmarks ----
# make bench [ROUNDS=N] [PART=host|vm|all|quick|breakdown|throughput] [BASE=FOLIOSCOPE]: overhead per call, BPF program
# cost, workload speed and scale, side by side with bpftrace and an empty
# probe floor; writes bench/results.json and prints a table (bench/README.md).
BENCH_OUT := $(OUT)/bench
BENCH_SIMPLE := preadloop dedupeloop memcpybw sysloop
BENCH_BINS := $(addprefix $(BENCH_OUT)/,$(BENCH_SIMPLE) benchfloor benchtool \
	folioscope-knobs)
.PHONY: bench bench-tools
bench-tools: $(BENCH_BINS)

# folioscope-knobs: folioscope whose programs read the bench's knobs
# (FOLIOSCOPE_COST_DROP, FS_BENCH_KNOBS), for the breakdown; the trace's
# own build leaves them out (bpf/common.bpf.h). Its skeletons (made by
# the $(OUT)/%.skel.h rule) come first on the include path.
KNOBS_OUT := $(BENCH_OUT)/knobs
KNOBS_SKELS := $(patsubst bpf/%.bpf.c,$(KNOBS_OUT)/%.skel.h,$(BPF_SRCS))
KNOBS_OBJS := $(patsubst src/%.c,$(KNOBS_OUT)/obj/%.o,$(APP_SRCS))

$(KNOBS_OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DFS_BENCH_KNOBS -c $< -o $@

$(KNOBS_OUT)/obj/%.o: src/%.c $(wildcard src/*/*.h) src/version.h bpf/shared.h \
		$(KNOBS_SKELS) $(NOK_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -I$(KNOBS_OUT) $(CFLAGS) -DFS_BENCH_KNOBS -c $< -o $@

$(BENCH_OUT)/folioscope-knobs: $(KNOBS_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS_APP) -o $@ $^ $(LDLIBS)

$(BENCH_OUT)/preadloop $(BENCH_OUT)/dedupeloop $(BENCH_OUT)/memcpybw \
		$(BENCH_OUT)/sysloop: \
		$(BENCH_OUT)/%: bench/%.c bench/batches.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -static -o $@ $<

$(BENCH_OUT)/floor.bpf.o: bench/floor.bpf.c vmlinux/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_OUT)/floor.skel.h: $(BENCH_OUT)/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(BENCH_OUT)/benchfloor: bench/floor.c $(BENCH_OUT)/floor.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BENCH_OUT) -static -o $@ $< -lbpf -lelf -lz

$(BENCH_OUT)/stats.o: bench/stats.c bench/stats.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BENCH_OUT)/benchtool: bench/benchtool.c $(BENCH_OUT)/stats.o
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Ibench -static -o $@ $^ -lbpf -lelf -lz -ljson-c -lm

# tests/host/bench.sh checks benchtool's BTF look-ups (bench/ftrace.sh's
# offsets); it is static, so not in the ASan build (there it is skipped).
ifneq ($(SAN),1)
check test-host: $(BENCH_OUT)/benchtool
endif

# The unit test of the aggregation links its object too.
$(OUT)/tests/test_bench: $(BENCH_OUT)/stats.o

bench: folioscope $(BENCH_BINS)
	$(Q)bench/run.sh $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(PART),--part $(PART)) \
		$(if $(BASE),--base $(BASE)) \
		$(if $(VM_KERNELS),--vm-kernels "$(VM_KERNELS)")

# make bench-profile [PROFILE_KERNELS="6.1 6.12"]: every instruction a
# traced call adds, by function and by line of BPF source, in guests under
# tcg-icount (bench/profile.sh); writes bench/results-profile.md.
PROFILE_OUT := $(BENCH_OUT)/profile
PROFILE_BINS := $(addprefix $(PROFILE_OUT)/,insncount.so mark jitlines)
.PHONY: bench-profile
bench-profile: folioscope $(BENCH_BINS) $(PROFILE_BINS)
	$(Q)bench/profile.sh $(if $(PROFILE_KERNELS),--kernels "$(PROFILE_KERNELS)")

# The qemu plugin: loaded into qemu, so a shared object.
$(PROFILE_OUT)/insncount.so: bench/profile/insncount.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o $@ $<

# Its marker: no libc, at an address no other guest program uses.
$(PROFILE_OUT)/mark: bench/profile/mark.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -static -nostdlib \
		-Wl,-Ttext=0x13370000 -o $@ $<

$(PROFILE_OUT)/jitlines: bench/profile/jitlines.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< -lbpf -lelf -lz

# ---- soak ----
# make soak [RUNS=N] [CYCLES=C] [SOAK_KERNELS="6.1 6.12 test"]: guest
# kernels under attach and detach (tests/soak/run.sh): RUNS boots of each
# kernel, each attaching and detaching fentry, kprobe and inline kprobes
# CYCLES times while a tmpfs pread loop and a FIDEDUPERANGE loop run; every
# oops, panic or lockup is counted with its first line. Not in make check.
.PHONY: soak
soak: folioscope $(BENCH_OUT)/preadloop $(BENCH_OUT)/dedupeloop
	$(Q)tests/soak/run.sh $(if $(RUNS),--runs $(RUNS)) $(if $(CYCLES),--cycles $(CYCLES)) \
		$(if $(SOAK_KERNELS),--kernels "$(SOAK_KERNELS)")

# ---- install ----
# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, a man page
# per command (generated from the --help texts by man/gen.sh), bash
# completion and the exporter's systemd unit (contrib/); make uninstall
# removes exactly those files.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
COMPDIR := $(PREFIX)/share/bash-completion/completions
UNITDIR := $(PREFIX)/lib/systemd/system
MAN_CMDS := trace run validate doctor vm report compare
MAN_PAGES := $(OUT)/man/folioscope.1 $(patsubst %,$(OUT)/man/folioscope-%.1,$(MAN_CMDS))
UNIT := folioscope-exporter.service
.PHONY: man install uninstall
man: $(MAN_PAGES)

$(MAN_PAGES) &: $(OUT)/folioscope man/gen.sh man/folioscope.h2m
	$(call msg,MAN,$(OUT)/man)
	$(Q)man/gen.sh $(OUT)/folioscope $(OUT)/man

install: $(OUT)/folioscope $(MAN_PAGES)
	$(Q)install -D -m 755 $(OUT)/folioscope $(DESTDIR)$(BINDIR)/folioscope
	$(Q)install -d $(DESTDIR)$(MAN1DIR)
	$(Q)install -m 644 $(MAN_PAGES) $(DESTDIR)$(MAN1DIR)/
	$(Q)install -D -m 644 contrib/bash-completion/folioscope \
		$(DESTDIR)$(COMPDIR)/folioscope
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|/usr/local/bin/folioscope|$(BINDIR)/folioscope|' \
		contrib/systemd/$(UNIT) > $(DESTDIR)$(UNITDIR)/$(UNIT)
	$(Q)chmod 644 $(DESTDIR)$(UNITDIR)/$(UNIT)

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/folioscope \
		$(patsubst $(OUT)/man/%,$(DESTDIR)$(MAN1DIR)/%,$(MAN_PAGES)) \
		$(DESTDIR)$(COMPDIR)/folioscope $(DESTDIR)$(UNITDIR)/$(UNIT)

# ---- Debian package ----
# make deb [DEB_DIR=build/deb]: DEB_DIR/folioscope_VERSION_amd64.deb, with
# its .buildinfo and .changes, by dpkg-buildpackage from debian/: the
# static binary, the man pages, bash completion and the exporter's unit,
# installed by make install above and not enabled. dpkg-buildpackage
# writes beside the tree it builds and debhelper into debian/, so it builds
# a copy, DEB_DIR/folioscope-VERSION, and the source tree is left as it
# was. The copy holds what make install reads, with the binary and man
# pages already made (timestamps kept: its make finds them up to date).
# debian/changelog's version must be the binary's.
DEB_DIR ?= $(OUT)/deb
.PHONY: deb
ifeq ($(SAN),1)
deb:
	@echo "make deb: packages the static build, not SAN=1's" >&2; exit 1
else
deb: $(OUT)/folioscope $(MAN_PAGES)
	$(Q)v=$$(dpkg-parsechangelog -S Version) && \
	b=$$($(OUT)/folioscope --version | awk '{ print $$2 }') && \
	if [ "$$v" != "$$b" ]; then \
		echo "make deb: debian/changelog is at $$v, the binary at $$b (dch -v $$b)" >&2; exit 1; \
	fi && \
	t=$(DEB_DIR)/folioscope-$$v && \
	rm -rf $$t $(DEB_DIR)/folioscope_$${v}_* $(DEB_DIR)/build.log && mkdir -p $$t/build && \
	cp -a Makefile README.md contrib debian docs man $$t/ && \
	cp -a $(OUT)/folioscope $(OUT)/man $$t/build/ && \
	$(if $(Q),printf '  %-8s %s\n' DEB "$(DEB_DIR)/folioscope_$${v}_amd64.deb",:) && \
	if (cd $$t && dpkg-buildpackage -b --no-sign) >$(DEB_DIR)/build.log 2>&1; then \
		$(if $(Q),:,cat $(DEB_DIR)/build.log); rm -rf $$t; \
	else \
		tail -20 $(DEB_DIR)/build.log >&2; \
		echo "make deb: dpkg-buildpackage failed, log in $(DEB_DIR)/build.log" >&2; exit 1; \
	fi
endif
