# gpiolat: one Makefile for the whole project.
#
#   make                 the loader (./gpiolat), the user-space toggler and the toggle module
#                        for the emulated target's kernel
#   make deps            install every Debian package the project needs (run by the others)
#   make target          the emulated target: Debian's kernel, its modules, the initramfs
#   make test            every test: host tests, then tests inside the emulated target;
#                        T=NAME one test by name (T=30-gpiolat-counts KERNEL=6.12, T=test_report;
#                        tests/README)
#   make bpf-histograms  the main job: in-kernel pulse-width histograms, out/results/
#                        (emulated: TIMING=icount by default, TIMING=real for the host's clock,
#                        docs/timing.md; on a board: CHIP=LABEL LINE=OFFSET; KERNEL=native)
#   make overhead-report what each tracing method costs per GPIO set, out/results/overhead.*
#   make rt-report       standard vs PREEMPT_RT: wakeup latency, gaps, cyclictest, out/results/rt.*
#   make matrix-armhf    the talk's whole matrix on armhf 6.12, standard and RT, out/results/matrix.*
#   make bench           gpiolat's own cost natively (syscall histogram vs empty, bpftrace)
#   make bench-gpio      gpiolat's GPIO programs vs the empty program, bpftrace, ply (emulated)
#   make compare A=a.json B=b.json   two runs side by side: B - A, its interval, like with like
#   make shell           a shell inside the emulated target
#   make cache-info      the content cache of built targets (Debian roots, kernel packages, BTF,
#                        sysroots; shared by every clone): where, each entry, the disk it holds
#   make clean-cache     removes it (GPIOLAT_CACHE=DIR elsewhere, GPIOLAT_CACHE= off;
#                        host/cache.sh, docs/cache.md)
#   make deb             Debian packages for Debian 13 (amd64, armhf, arm64; the module by DKMS),
#                        out/deb/ (docs/packages.md)
#
# Variables: KERNEL=std|rt|6.12|6.12-rt|testing|testing-rt|native (target kernel: this host's
# release's (Debian 12's 6.1 on Debian 12, 13's 6.12 on 13: vm/std.sh says which), its
# PREEMPT_RT flavour, 6.12 and its PREEMPT_RT flavour (Debian 13's; on x86_64 with Debian 13's
# user space: vm/userspace.sh), Debian testing's newest and its RT flavour (vm/kernel.sh), or the running kernel of a board),
# ARCH=x86_64|arm|arm64 (target architecture; default: this machine's), CROSS_COMPILE, V=1 (show
# commands), STATIC=1 (static loader). Everything generated goes to out/; ./gpiolat links into it.

OUT := out
.DEFAULT_GOAL := all
# the version, in one place: debian/changelog's newest entry (gpiolat --version, make dist, the
# packages of make deb and the module's dkms.conf)
VERSION := $(shell awk 'NR == 1 { gsub(/[()]/, "", $$2); print $$2 }' debian/changelog)
KERNEL ?= std
ARCH ?= $(shell uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')
ifeq ($(filter x86_64 arm arm64,$(ARCH)),)
$(error ARCH=$(ARCH): x86_64, arm or arm64)
endif
# ARCH names the target the Linux way; BPF's __TARGET_ARCH_ wants x86 for x86_64 (as kbuild's
# ARCH takes x86_64 and arm/arm64 as they are)
BPF_ARCH := $(patsubst x86_64,x86,$(ARCH))

# a foreign ARCH: Debian's cross compilers (crossbuild-essential-armhf, -arm64)
HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(if $(filter arm,$(ARCH)),arm-linux-gnueabihf-,aarch64-linux-gnu-)
# kbuild's ARCH (x86_64 it takes as x86)
KBUILD_CROSS := ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE)
endif
CC := $(CROSS_COMPILE)gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
MAKEFLAGS += --no-print-directory
endif

ifeq ($(ARCH),$(HOST_ARCH))
BUILD := $(OUT)/build
BIN := $(OUT)/bin
else
BUILD := $(OUT)/$(ARCH)/build
BIN := $(OUT)/$(ARCH)/bin
ifeq ($(MULTIARCH),1)
# a foreign architecture built by dpkg-buildpackage -a (make deb, debian/rules): dynamic, against
# that architecture's -dev packages installed beside the host's (Debian's multiarch), found by
# the cross pkg-config; the uapi headers in /usr/include/TRIPLET
TRIPLET := $(patsubst %-,%,$(CROSS_COMPILE))
PKG_CONFIG := $(TRIPLET)-pkg-config
else
# a foreign architecture: static binaries (the ARM targets run them from the initramfs's
# busybox, a board from anywhere), linked against Debian's packages of that architecture
# extracted into a sysroot (host/sysroot.sh), with Debian's cross compiler
STATIC := 1
SYSROOT := $(OUT)/sysroot/$(ARCH)
TRIPLET := $(patsubst %-,%,$(CROSS_COMPILE))
PKG_CONFIG := PKG_CONFIG_SYSROOT_DIR=$(abspath $(SYSROOT)) \
	PKG_CONFIG_LIBDIR=$(abspath $(SYSROOT))/usr/lib/$(TRIPLET)/pkgconfig:$(abspath $(SYSROOT))/usr/share/pkgconfig \
	pkg-config
SYSROOT_STAMP := $(SYSROOT)/.done
$(SYSROOT_STAMP): host/sysroot.sh | $(DEPS_STAMP)
	$(Q)sh host/sysroot.sh $(ARCH) $(SYSROOT)
endif
endif
TARGET_DIR := $(OUT)/target/$(ARCH)-$(KERNEL)
RESULTS := $(OUT)/results

# CFLAGS is the user's (make CFLAGS=-O0 keeps the project's own flags below)
CFLAGS ?= -O2 -g
override CFLAGS += -Wall -Werror -I$(BUILD) -Ibpf -Iloader -Icommon -MMD -MP
LOADER_LIBS := libbpf libtracefs json-c
CFLAGS_LOADER = $(shell $(PKG_CONFIG) --cflags $(LOADER_LIBS))
LDLIBS_LOADER = $(shell $(PKG_CONFIG) $(if $(STATIC),--static) --libs $(LOADER_LIBS)) -lm
ifeq ($(STATIC),1)
# what a user would ship (make bench measures it): static, stripped at link
LDFLAGS += -static -s
# loader/core/libelf_search.c: what a static libelf may lack (Debian 13's)
override CFLAGS += -DGPIOLAT_STATIC
endif

BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Ibpf -I$(BUILD) \
	-I$(BUILD)/include
# uapi headers (linux/bpf.h needs asm/types.h): clang -target bpf skips the multiarch folder
BPF_CFLAGS += -idirafter $(SYSROOT)/usr/include/$(shell $(CC) -dumpmachine)

ifeq ($(BPF_ARCH),arm)
# libbpf's PT_REGS_PARM*() on 32-bit ARM casts a 32-bit register (uregs[]) to a 64-bit void *
BPF_CFLAGS += -Wno-int-to-void-pointer-cast
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
# gpiolat.bpf.c once more without CO-RE, for a kernel without BTF (bpf/gpiolat_nobtf.h)
SKELS += $(BUILD)/gpiolat_nobtf.skel.h
# common/: C compiled into both the loader and the togglers (common/maps_offset.c, results_out.c)
COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(patsubst common/%.c,$(BUILD)/common/%.o,$(COMMON_SRCS))
# loader/: main.c, then core/ (what every mode uses), providers/ (the method families), modes/<mode>/
LOADER_SRCS := $(wildcard loader/*.c loader/core/*.c loader/providers/*.c loader/modes/*/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(BUILD)/loader/%.o,$(LOADER_SRCS)) $(COMMON_OBJS)
TOGGLER_SRCS := $(wildcard toggler/*.c)
# toggler/: utoggle from every toggler/*.c but the separate programs (PROGS: one .c each)
TOGGLER_PROGS := mmtoggle
TOGGLER_OBJS := $(patsubst toggler/%.c,$(BUILD)/toggler/%.o, \
	$(filter-out $(TOGGLER_PROGS:%=toggler/%.c),$(TOGGLER_SRCS))) $(COMMON_OBJS)
TOGGLER_SCRIPTS := $(patsubst toggler/%.sh,$(BIN)/%.sh,$(wildcard toggler/*.sh))
TOGGLERS := $(BIN)/utoggle $(TOGGLER_PROGS:%=$(BIN)/%) $(TOGGLER_SCRIPTS)

DEPS_STAMP := $(OUT)/.deps

.PHONY: all deps target kmod loader togglers observer test test-host test-target bpf-histograms overhead-report bench bench-gpio microbench compare \
	rt-report matrix-armhf dist deb \
	shell clean format cache-info clean-cache
.DELETE_ON_ERROR:

all: loader togglers kmod $(OUT)/gpio-hooks.json
# the observer plugs into the host's qemu: not for a board's own kernel (KERNEL=native)
ifneq ($(KERNEL),native)
all: observer
endif

# ---- host packages ---------------------------------------------------------------------------
deps: $(DEPS_STAMP)
$(DEPS_STAMP): host/deps.sh
	$(Q)sh host/deps.sh
	$(Q)mkdir -p $(OUT) && touch $@

# ---- the emulated target (host side) ---------------------------------------------------------
# vm/kernel.sh is cheap when the kernel is current: it only asks apt for the ABI.
# a foreign architecture's target on the busybox initramfs runs its own static gpiolat and
# utoggle (vm/init)
target: $(TARGET_DIR)/initramfs.cpio.gz kmod $(if $(SYSROOT),loader togglers $(TARGET_DIR)/btf.stamp)
	@# a target on another release's root (x86_64's 6.12: Debian 13's; ARM's 6.12: Debian 13's
	@# root of its architecture): its user space, built for it (vm/userspace.sh; nothing for a
	@# target on the host's root or the initramfs)
	$(Q)sh vm/userspace.sh $(TARGET_DIR)

# a kernel without BTF of its own (armmp): a minimal one for our objects, beside the binaries
$(TARGET_DIR)/btf.stamp: $(TARGET_DIR)/release $(BPF_OBJS) host/btf.sh
	$(Q)sh host/btf.sh $(TARGET_DIR) $(BIN) $(BPF_OBJS)

ifeq ($(KERNEL),native)
# a board: the module is built for the running kernel, whose headers must be installed
$(TARGET_DIR)/release: FORCE
	$(Q)mkdir -p $(@D) && echo /lib/modules/$$(uname -r)/build >$(@D)/build && \
		uname -r >$@.new && { cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }
else
$(TARGET_DIR)/release: FORCE | $(DEPS_STAMP)
	$(Q)sh vm/kernel.sh $(KERNEL) $(ARCH) $(TARGET_DIR)
endif

$(TARGET_DIR)/initramfs.cpio.gz: $(TARGET_DIR)/release vm/init vm/initramfs.sh vm/modorder.sh \
	$(SYSROOT_STAMP)
	$(call msg,INITRD,$@)
	$(Q)sh vm/initramfs.sh $(TARGET_DIR) $@

# ---- vm/: the outside observer, a qemu TCG plugin (host side: it runs inside the host's qemu)
# vm/observer.sh: built against the qemu-plugin.h of Debian's source of the installed qemu
# (vm/qemu-plugin-h.sh: fetched once, cached in out/qemu-plugin-h; the check against the
# installed version is cheap), its API chosen by compile tests of that header. Where it cannot
# exist (a qemu without plugins, no header) one line "OBSERVER not available: why" and make
# goes on (out/observer/unavailable keeps why); a compile error in the plugin stops make.
HOSTCC ?= gcc
OBSERVER := $(OUT)/observer/pl061-observer.so
observer: FORCE | $(DEPS_STAMP)
	$(Q)HOSTCC=$(HOSTCC) sh vm/observer.sh $(OUT)

# the loader's table of GPIO hooks as JSON, for the host scripts (host/gpio_hooks.py): built
# and run on the host (host/gpio_hooks.c), the same listing as `gpiolat --list --json`
GPIO_HOOKS_SRCS := host/gpio_hooks.c loader/providers/gpio_hooks.c
$(OUT)/gpio-hooks.json: $(GPIO_HOOKS_SRCS) loader/providers/gpio_hooks.h
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(OUT)/host
	$(Q)$(HOSTCC) -std=gnu11 -Wall -Werror -Iloader -o $(OUT)/host/gpio-hooks $(GPIO_HOOKS_SRCS)
	$(Q)$(OUT)/host/gpio-hooks >$@.tmp && mv $@.tmp $@

# ---- kmod/: the toggle module, built for the target kernel (kernel side) ---------------------
# another release's kernel (DIR/buildroot, vm/kernel.sh): in a root of that release, with its
# make, kbuild and compiler (DIR/cc, the one the kernel was built with)
kmod: $(TARGET_DIR)/toggle.ko
KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild
$(TARGET_DIR)/toggle.ko: $(KMOD_SRCS) $(TARGET_DIR)/release
	$(call msg,KMOD,$@)
	$(Q)rm -rf $(TARGET_DIR)/kmod && mkdir -p $(TARGET_DIR)/kmod && \
		cp $(KMOD_SRCS) $(TARGET_DIR)/kmod/
	$(Q)set -- $(MAKE); [ ! -f $(TARGET_DIR)/buildroot ] || \
		set -- sh host/inroot.sh "$$(cat $(TARGET_DIR)/buildroot)" make \
		CC=$(CROSS_COMPILE)$$(cat $(TARGET_DIR)/cc); \
		"$$@" -C $$(cat $(TARGET_DIR)/build) $(KBUILD_CROSS) M=$(abspath $(TARGET_DIR)/kmod) $(if $(filter 1,$(V)),V=1) modules \
		>$(TARGET_DIR)/kmod.log 2>&1 || \
		{ cat $(TARGET_DIR)/kmod.log; exit 1; }
	$(Q)$(if $(filter 1,$(V)),cat $(TARGET_DIR)/kmod.log;) grep -i warning $(TARGET_DIR)/kmod.log && \
		{ echo "kmod: the module must build without warnings"; exit 1; } || true
	$(Q)cp $(TARGET_DIR)/kmod/toggle.ko $@

# ---- bpf/: CO-RE programs (kernel side) and their skeletons ----------------------------------
# gpiolat's GPIO programs with 32-bit ALU and jumps (BPF ISA v3, kernel 5.1+): a 32-bit field or
# argument compared as it is, not zero-extended by two shifts first (docs/bench.md, the floor)
$(BUILD)/gpiolat.bpf.o $(BUILD)/gpiolat_nobtf.bpf.o: BPF_CFLAGS += -mcpu=v3
$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD) $(DEPS_STAMP) $(SYSROOT_STAMP)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)
	$(Q)rm -f $(@:.o=.tmp.o)

# the same source with -DGPIOLAT_NOBTF: no CO-RE relocation, loads without the kernel's BTF
$(BUILD)/gpiolat_nobtf.bpf.o: bpf/gpiolat.bpf.c | $(BUILD) $(DEPS_STAMP) $(SYSROOT_STAMP)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DGPIOLAT_NOBTF -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< \
		-o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)
	$(Q)rm -f $(@:.o=.tmp.o)

# kept (not an intermediate): bpftool gen min_core_btf and the tests use it
.SECONDARY: $(BPF_OBJS) $(BUILD)/gpiolat_nobtf.bpf.o $(SKELS)
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf >$@

# ---- loader/: gpiolat (user space, target) ---------------------------------------------------
ifeq ($(ARCH),$(HOST_ARCH))
loader: gpiolat
gpiolat: $(BIN)/gpiolat
	$(Q)ln -sf $< $@
else
loader: $(BIN)/gpiolat
endif

$(BUILD)/loader/%.o: loader/%.c $(SKELS) | $(BUILD) $(DEPS_STAMP) $(SYSROOT_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_LOADER) -c $< -o $@

$(BIN)/gpiolat: $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS_LOADER) -o $@

# gpiolat --version: debian/changelog's (core/cli.c, argp's argp_program_version)
$(BUILD)/loader/core/cli.o: debian/changelog
$(BUILD)/loader/core/cli.o: override CFLAGS += -DGPIOLAT_VERSION='"$(VERSION)"'

# the talk's figures are embedded (.incbin) in the loader
$(BUILD)/loader/core/baseline.o: data/baseline-klinger-elce2023.csv
$(BUILD)/loader/core/baseline_sc.o: data/baseline-tracepoint-cost-notebook.csv data/baseline-lttng-markers.csv
$(BUILD)/loader/core/baseline_path.o: data/baseline-bbb-gpio-toggle-post.csv

# test-hist: the loader's pure printing functions on canned histograms (tests/host, pytest)
$(BUILD)/test-hist: loader/test/test-hist.c $(addprefix $(BUILD)/loader/,core/hist.o core/stat.o core/baseline.o \
	core/jsonout.o core/jit.o core/sys.o modes/path/path_out.o core/baseline_path.o)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_LOADER) $(LDFLAGS) $(filter %.c %.o,$^) $(LDLIBS_LOADER) -o $@

# test-overhead: --overhead's statistics, fits, --baseline parsing, --only and the method table
TEST_OV_OBJS := $(addprefix $(BUILD)/loader/,modes/overhead/ov_stats.o modes/overhead/ov_fired.o modes/overhead/ov_baseline.o \
	modes/overhead/ov_methods.o core/hist.o core/stat.o core/baseline.o \
	core/jsonout.o core/jit.o core/sys.o core/statedir.o core/files.o modes/overhead/ov_report.o)
$(BUILD)/test-overhead: loader/test/test-overhead.c $(TEST_OV_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_LOADER) $(LDFLAGS) $(filter %.c %.o,$^) $(LDLIBS_LOADER) -o $@

# test-results-out: a report through common/results_out.c to a failing stdout (test_results_out.py)
$(BUILD)/test-results-out: loader/test/test-results-out.c $(BUILD)/common/results_out.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $^ -o $@

# ---- toggler/: user-space togglers (user space, target) --------------------------------------
togglers: $(TOGGLERS)
# libgpiod 2.x (Debian 13) replaced 1.x's line API (Debian 12): utoggle's libgpiod row is built
# for the one installed (or in the sysroot), told by its pkg-config version
LIBGPIOD_CFLAGS = $(shell $(PKG_CONFIG) --cflags libgpiod) \
	$(shell $(PKG_CONFIG) --atleast-version=2 libgpiod && echo -DUTOGGLE_LIBGPIOD2)
$(BUILD)/toggler/%.o: toggler/%.c | $(DEPS_STAMP) $(SYSROOT_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LIBGPIOD_CFLAGS) -c $< -o $@

$(BUILD)/common/%.o: common/%.c | $(DEPS_STAMP) $(SYSROOT_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BIN)/utoggle: $(TOGGLER_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(shell $(PKG_CONFIG) $(if $(STATIC),--static) --libs libgpiod) -lm -o $@

# mmtoggle (registers mmap'ed from user space, docs/gpio-path.md): its own program, no libgpiod
$(BIN)/mmtoggle: $(BUILD)/toggler/mmtoggle.o $(BUILD)/common/results_out.o
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ -lm -o $@

# toggle.sh (the shell rows of gpiolat --path) beside them
$(BIN)/%.sh: toggler/%.sh
	$(Q)mkdir -p $(@D) && install -m 755 $< $@

$(BUILD):
	$(Q)mkdir -p $@

# ---- tests (host side) -----------------------------------------------------------------------
# make test builds std's target (all target) and tests/schedule.sh every other target of the tier,
# beside the deterministic lanes, before the host tests that boot them (test_vm_run.py, test_deb.py)
# T=NAME: one test by name (tests/README): a target test on the target of KERNEL and ARCH, or
# host tests; a T that names no test stops make with one line, before anything is built
ifneq ($(T),)
T_PART := $(firstword $(patsubst test,all,$(patsubst test-%,%,$(filter test test-host test-target,$(MAKECMDGOALS)))))
ifneq ($(T_PART),)
T_ERROR := $(shell KERNEL=$(KERNEL) ARCH=$(ARCH) T='$(subst ','\'',$(T))' sh tests/run.sh --list $(T_PART) 2>&1 >/dev/null)
$(if $(T_ERROR),$(error $(T_ERROR)))
endif
endif

# (its build first, in parallel on this machine's cores: nothing else runs yet; a fresh clone's
# all target 56 -> 31 s on 2 cores, 2026-11-29, the machine otherwise loaded)
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test:
	$(Q)$(MAKE) -j$(TEST_JOBS) all target
	$(Q)KERNEL=$(KERNEL) ARCH=$(ARCH) sh tests/run.sh

test-host: all
	$(Q)sh tests/run.sh host

test-target: all target
	$(Q)KERNEL=$(KERNEL) ARCH=$(ARCH) sh tests/run.sh target

# every part of the study, then the page; the emulated target in TIMING=icount unless TIMING=real
# (the RT part too, unless RT_TIMING=real): host/bpf-histograms.sh
bpf-histograms: | $(DEPS_STAMP)
	$(Q)sh host/bpf-histograms.sh

# what each tracing method adds to a GPIO set: out/results/overhead.{json,csv,txt,png}
overhead-report: | $(DEPS_STAMP)
	$(Q)sh host/overhead-report.sh

# standard vs PREEMPT_RT side by side: overhead subset, wakeup latency, gaps, cyclictest and
# timerlat on each of RT_KERNELS (default "std rt"); out/results/rt.{json,csv,txt,png}, docs/rt.md
rt-report: | $(DEPS_STAMP)
	$(Q)sh host/rt-report.sh

matrix-armhf: | $(DEPS_STAMP)
	$(Q)sh host/matrix-armhf.sh

# gpiolat's own cost, natively on this host (host/bench.py), with a static build in out/static
bench: | $(DEPS_STAMP)
	$(Q)$(MAKE) OUT=$(OUT)/static STATIC=1 $(OUT)/static/bin/gpiolat
	$(Q)python3 host/bench.py $(OUT)/static/bin/gpiolat

# one archive to copy to a board (static binaries, BTF where the kernel has none, toggle.ko and
# its sources, ply/, study/, docs/board.md as its README): out/dist/gpiolat-ARCH.tar.gz
ifeq ($(ARCH),$(HOST_ARCH))
DIST_BIN := $(OUT)/static/bin
dist: | $(DEPS_STAMP)
	$(Q)$(MAKE) OUT=$(OUT)/static STATIC=1 $(DIST_BIN)/gpiolat $(DIST_BIN)/utoggle \
		$(DIST_BIN)/mmtoggle $(DIST_BIN)/toggle.sh
	$(Q)sh host/dist.sh $(ARCH) $(DIST_BIN) $(OUT)/dist/gpiolat-$(ARCH).tar.gz
else
dist: all target
	$(Q)sh host/dist.sh $(ARCH) $(BIN) $(OUT)/dist/gpiolat-$(ARCH).tar.gz
endif

# Debian packages for Debian 13 (debian/, host/deb.sh; docs/packages.md): gpiolat for each of
# DEB_ARCHS and gpiolat-toggle-dkms (the module's sources, built by DKMS), in out/deb/, built in
# out/roots/trixie with dpkg-buildpackage (armhf, arm64 cross-built); lintian's output beside
DEB_ARCHS ?= amd64 armhf arm64
deb: | $(DEPS_STAMP)
	$(Q)sh host/deb.sh $(OUT)/deb $(DEB_ARCHS)

# gpiolat's GPIO programs per GPIO set in the emulated target, beside the empty program on the
# same hook, bpftrace and ply, and against their floor (host/bench_gpio.py; BENCH_ARGS, e.g.
# "--reps 20"); in TIMING=icount (a set's cost in guest instructions) unless TIMING=real
bench-gpio: all target
	$(Q)TIMING=$${TIMING:-icount} KERNEL=$(KERNEL) RESULTS=$(RESULTS) python3 host/bench_gpio.py $(BENCH_ARGS)
	$(Q)$(MAKE) -s report

# two runs of one study side by side, row by row: B - A, its 95 % interval, its verdict, and
# where the runs are not like with like (host/compare.py, docs/compare.md); COMPARE_ARGS=--json
compare:
	$(if $(and $(A),$(B)),,$(error make compare A=FILE.json B=FILE.json: two files needed))
	$(Q)python3 host/compare.py $(COMPARE_ARGS) $(A) $(B)

# the toggle module's cycle micro-benchmark in the emulated target (study/microbench.sh)
microbench: all target
	$(Q)VM_NOMAKE=1 KERNEL=$(KERNEL) vm/run sh study/microbench.sh </dev/null

shell: all target
	$(Q)VM_NOMAKE=1 KERNEL=$(KERNEL) vm/run

format:
	$(Q)clang-format -i $(wildcard kmod/*.c kmod/*.h vm/*.c host/*.c bpf/*.c bpf/*.h $(LOADER_SRCS) $(wildcard loader/*/*.h loader/modes/*/*.h) toggler/*.c \
		toggler/*.h common/*.c common/*.h)

clean:
	$(Q)rm -rf $(BUILD) $(BIN) $(OUT)/vm $(OUT)/observer gpiolat

# the content cache of built targets, outside the tree (host/cache.sh, docs/cache.md)
cache-info:
	$(Q)sh host/cache.sh info

clean-cache:
	$(Q)sh host/cache.sh clean

FORCE:

-include $(wildcard $(BUILD)/*.d $(BUILD)/loader/*.d $(BUILD)/loader/*/*.d $(BUILD)/loader/modes/*/*.d $(BUILD)/toggler/*.d $(BUILD)/common/*.d)

# ---- install, uninstall, report (host/report_html.py) ----------------------------------------
#   make install PREFIX=/usr/local DESTDIR=   gpiolat (sbin), utoggle and mmtoggle (bin), the scripts users run (ply/,
#                                             study/), data/, docs/, gpiolat(8) and the togglers' pages (1)
#   make uninstall                            removes exactly what install put
#   make report                               out/results/report.html from out/results/*.json
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
SBINDIR := $(DESTDIR)$(PREFIX)/sbin
BINDIR := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share/gpiolat
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/gpiolat
MAN8DIR := $(DESTDIR)$(PREFIX)/share/man/man8
MAN1DIR := $(DESTDIR)$(PREFIX)/share/man/man1
INST_MAN1 := $(wildcard docs/*.1)
INST_SCRIPTS := $(wildcard ply/*.ply ply/*.bt study/*.sh)
INST_DATA := $(wildcard data/*)
INST_DOCS := $(filter-out docs/gpiolat.8 $(INST_MAN1),$(wildcard docs/*)) README.md

.PHONY: install uninstall report
install: $(BIN)/gpiolat $(BIN)/utoggle $(BIN)/mmtoggle $(BIN)/toggle.sh
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(SBINDIR) $(BINDIR) $(SHAREDIR)/ply $(SHAREDIR)/study $(SHAREDIR)/data $(DOCDIR) \
		$(MAN8DIR) $(MAN1DIR)
	$(Q)$(INSTALL) -m 755 $(BIN)/gpiolat $(SBINDIR)/
	$(Q)$(INSTALL) -m 755 $(BIN)/utoggle $(BIN)/mmtoggle $(BIN)/toggle.sh $(BINDIR)/
	$(Q)ln -sf $(PREFIX)/sbin/gpiolat $(SHAREDIR)/gpiolat # study/ runs ./gpiolat of share/gpiolat
	$(Q)$(INSTALL) -m 755 $(filter ply/%,$(INST_SCRIPTS)) $(SHAREDIR)/ply/
	$(Q)$(INSTALL) -m 755 $(filter study/%,$(INST_SCRIPTS)) $(SHAREDIR)/study/
	$(Q)$(INSTALL) -m 644 $(INST_DATA) $(SHAREDIR)/data/
	$(Q)$(INSTALL) -m 644 $(INST_DOCS) $(DOCDIR)/
	$(Q)$(INSTALL) -m 644 docs/gpiolat.8 $(MAN8DIR)/
	$(Q)$(INSTALL) -m 644 $(INST_MAN1) $(MAN1DIR)/

# only our files, then our own directories (never a shared one such as sbin)
uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(SBINDIR)/gpiolat $(BINDIR)/utoggle $(BINDIR)/mmtoggle $(BINDIR)/toggle.sh $(SHAREDIR)/gpiolat $(addprefix $(SHAREDIR)/,$(INST_SCRIPTS)) \
		$(addprefix $(SHAREDIR)/,$(INST_DATA)) $(addprefix $(DOCDIR)/,$(notdir $(INST_DOCS))) \
		$(MAN8DIR)/gpiolat.8 $(addprefix $(MAN1DIR)/,$(notdir $(INST_MAN1)))
	$(Q)rmdir $(SHAREDIR)/ply $(SHAREDIR)/study $(SHAREDIR)/data $(SHAREDIR) $(DOCDIR) \
		2>/dev/null || true

# the page of every study's results, from what they left in out/results/ (make bpf-histograms
# and make overhead-report end by building it too)
report:
	$(Q)python3 host/report_html.py $(RESULTS)
