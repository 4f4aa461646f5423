# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# folioscope: BPF objects -> bpftool skeletons -> one static binary, all in $(OUT).
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
LDLIBS := -lbpf -lelf -lz -ljson-c -lmicrohttpd
# Static by default: the same binary runs on the host and in the VM guest.
LDFLAGS_APP ?= -static
BPF_CFLAGS := -g -O2 -Wall -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	      -Ivmlinux -Ibpf

.PHONY: all static clean check unit test-host test-vm demo deps vmlinux \
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

# Every user-space object may include a skeleton; generate them first.
$(OUT)/obj/%.o: src/%.c $(wildcard src/*/*.h) src/version.h bpf/shared.h \
		$(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $^ -lcmocka $(LDLIBS)

$(OUT)/host-tests/%: tests/host/%.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

$(OUT):
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)
	$(Q)tests/check.sh unit

# All tests: unit, host (BPF load against the running kernel), VM.
check: folioscope $(UNIT_BINS) $(HOST_BINS)
	$(Q)tests/check.sh

test-host: folioscope $(HOST_BINS)
	$(Q)tests/check.sh host

test-vm: folioscope
	$(Q)tests/check.sh vm

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

FMT_SRCS = $(wildcard src/*/*.c src/*/*.h src/*.h bpf/*.c bpf/*.h tests/unit/*.c)
format:
	$(Q)clang-format -i $(FMT_SRCS)

# cppcheck on user space; skeleton headers (megabytes of embedded BPF
# bytecode) are left out, libbpf's iterator macro is spelled out for it.
lint:
	$(Q)cppcheck --quiet --error-exitcode=1 -j2 \
		--enable=warning,performance,portability --inline-suppr \
		--suppress=missingIncludeSystem --suppress=missingInclude \
		'-Dbpf_object__for_each_program(p,o)=for (p = 0; p;)' \
		-D__x86_64__ -Isrc -Ibpf $(APP_SRCS)

compdb: clean
	$(Q)bear -- $(MAKE) --no-print-directory all $(UNIT_BINS)

clean:
	$(Q)rm -rf $(OUT) folioscope
.SECONDARY:

# ---- patched-kernel A/B (issue 4) ----
# src/compare's statistics (log, exp, lgamma) need libm.
LDLIBS += -lm
