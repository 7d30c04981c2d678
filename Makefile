# gpiolat: one Makefile for the whole project.
#
#   make                 the loader (./gpiolat), the user-space toggler and the toggle module
#                        for the emulated target's kernel
#   make deps            install every Debian package the project needs (run by the others)
#   make target          the emulated target: Debian's kernel, its modules, the initramfs
#   make test            every test: host tests, then tests inside the emulated target
#   make bpf-histograms  the main job: in-kernel pulse-width histograms, out/results/
#                        (on a board: CHIP=LABEL LINE=OFFSET; KERNEL=native builds for it)
#   make overhead-report what each tracing method costs per GPIO set, out/results/overhead.*
#   make shell           a shell inside the emulated target
#
# Variables: KERNEL=std|rt|native (target kernel flavour), V=1 (show commands), ARCH, CROSS_COMPILE,
# STATIC=1 (static loader). Everything generated goes to out/; ./gpiolat links into it.

OUT := out
KERNEL ?= std
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')

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

BUILD := $(OUT)/build
TARGET_DIR := $(OUT)/target/$(KERNEL)
RESULTS := $(OUT)/results

# CFLAGS is the user's (make CFLAGS=-O0 keeps the project's own flags below)
CFLAGS ?= -O2 -g
override CFLAGS += -Wall -Werror -I$(BUILD) -Ibpf -Iloader -MMD -MP
LOADER_LIBS := libbpf libtracefs json-c
CFLAGS_LOADER = $(shell $(PKG_CONFIG) --cflags $(LOADER_LIBS))
LDLIBS_LOADER = $(shell $(PKG_CONFIG) $(if $(STATIC),--static) --libs $(LOADER_LIBS)) -lm
ifeq ($(STATIC),1)
# what a user would ship (make bench measures it): static, stripped at link
LDFLAGS += -static -s
endif

BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -I$(BUILD) \
	-I$(BUILD)/include
# uapi headers (linux/bpf.h needs asm/types.h): clang -target bpf skips the multiarch folder
BPF_CFLAGS += -idirafter /usr/include/$(shell $(CC) -dumpmachine)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(BUILD)/loader/%.o,$(LOADER_SRCS))
TOGGLER_SRCS := $(wildcard toggler/*.c)
TOGGLERS := $(patsubst toggler/%.c,$(OUT)/bin/%,$(TOGGLER_SRCS))

DEPS_STAMP := $(OUT)/.deps

.PHONY: all deps target kmod loader togglers test test-host test-target bpf-histograms overhead-report bench microbench \
	shell clean format
.DELETE_ON_ERROR:

all: loader togglers kmod

# ---- host packages ---------------------------------------------------------------------------
deps: $(DEPS_STAMP)
$(DEPS_STAMP): host/deps.sh
	$(Q)sh host/deps.sh
	$(Q)mkdir -p $(OUT) && touch $@

# ---- the emulated target (host side) ---------------------------------------------------------
# vm/kernel.sh is cheap when the kernel is current: it only asks apt for the ABI.
target: $(TARGET_DIR)/initramfs.cpio.gz kmod

ifeq ($(KERNEL),native)
# a board: the module is built for the running kernel, whose headers must be installed
$(TARGET_DIR)/release: FORCE
	$(Q)mkdir -p $(@D) && uname -r >$@.new && \
		{ cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }
else
$(TARGET_DIR)/release: FORCE | $(DEPS_STAMP)
	$(Q)sh vm/kernel.sh $(KERNEL) $(TARGET_DIR)
endif

$(TARGET_DIR)/initramfs.cpio.gz: $(TARGET_DIR)/release vm/init vm/initramfs.sh
	$(call msg,INITRD,$@)
	$(Q)sh vm/initramfs.sh $(TARGET_DIR) $@

# ---- kmod/: the toggle module, built for the target kernel (kernel side) ---------------------
kmod: $(TARGET_DIR)/toggle.ko
KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h) kmod/Kbuild
$(TARGET_DIR)/toggle.ko: $(KMOD_SRCS) $(TARGET_DIR)/release
	$(call msg,KMOD,$@)
	$(Q)rm -rf $(TARGET_DIR)/kmod && mkdir -p $(TARGET_DIR)/kmod && \
		cp $(KMOD_SRCS) $(TARGET_DIR)/kmod/
	$(Q)$(MAKE) -C /lib/modules/$$(cat $(TARGET_DIR)/release)/build \
		M=$(abspath $(TARGET_DIR)/kmod) $(if $(filter 1,$(V)),V=1) modules >$(TARGET_DIR)/kmod.log 2>&1 || \
		{ cat $(TARGET_DIR)/kmod.log; exit 1; }
	$(Q)$(if $(filter 1,$(V)),cat $(TARGET_DIR)/kmod.log;) grep -i warning $(TARGET_DIR)/kmod.log && \
		{ echo "kmod: the module must build without warnings"; exit 1; } || true
	$(Q)cp $(TARGET_DIR)/kmod/toggle.ko $@

# ---- bpf/: CO-RE programs (kernel side) and their skeletons ----------------------------------
$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD) $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)
	$(Q)rm -f $(@:.o=.tmp.o)

# kept (not an intermediate): bpftool gen min_core_btf and the tests use it
.SECONDARY: $(BPF_OBJS) $(SKELS)
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf >$@

# ---- loader/: gpiolat (user space, target) ---------------------------------------------------
loader: gpiolat
gpiolat: $(OUT)/bin/gpiolat
	$(Q)ln -sf $< $@

$(BUILD)/loader/%.o: loader/%.c $(SKELS) | $(BUILD) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CFLAGS_LOADER) -c $< -o $@

$(OUT)/bin/gpiolat: $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS_LOADER) -o $@

# the talk's figures are embedded (.incbin) in the loader
$(BUILD)/loader/baseline.o: data/baseline-klinger-elce2023.csv
$(BUILD)/loader/baseline_sc.o: data/baseline-tracepoint-cost-notebook.csv data/baseline-lttng-markers.csv

# test-hist: the loader's pure printing functions on canned histograms (tests/host, pytest)
$(BUILD)/test-hist: loader/test/test-hist.c $(BUILD)/loader/hist.o $(BUILD)/loader/baseline.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(CFLAGS_LOADER) $(LDFLAGS) $(filter %.c %.o,$^) $(LDLIBS_LOADER) -o $@

# ---- toggler/: user-space togglers (user space, target) --------------------------------------
togglers: $(TOGGLERS)
$(OUT)/bin/%: toggler/%.c | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) $(BUILD)/toggler
	$(Q)$(CC) $(CFLAGS) -MF $(BUILD)/toggler/$*.d -MT $@ $(LDFLAGS) $< -o $@ \
		$(shell $(PKG_CONFIG) --libs libgpiod) -lm

$(BUILD):
	$(Q)mkdir -p $@

# ---- tests (host side) -----------------------------------------------------------------------
test: all target
	$(Q)sh tests/run.sh

test-host: all
	$(Q)sh tests/run.sh host

test-target: all target
	$(Q)sh tests/run.sh target

bpf-histograms: | $(DEPS_STAMP)
	$(Q)sh host/bpf-histograms.sh

# what each tracing method adds to a GPIO set: out/results/overhead.{json,csv,txt,png}
overhead-report: | $(DEPS_STAMP)
	$(Q)sh host/overhead-report.sh

# gpiolat's own cost, natively on this host (host/bench.py), with a static build in out/static
bench: | $(DEPS_STAMP)
	$(Q)$(MAKE) OUT=$(OUT)/static STATIC=1 $(OUT)/static/bin/gpiolat
	$(Q)python3 host/bench.py $(OUT)/static/bin/gpiolat

# the toggle module's cycle micro-benchmark in the emulated target (study/microbench.sh)
microbench: all target
	$(Q)VM_NOMAKE=1 KERNEL=$(KERNEL) vm/run sh study/microbench.sh </dev/null

shell: all target
	$(Q)VM_NOMAKE=1 KERNEL=$(KERNEL) vm/run

format:
	$(Q)clang-format -i $(wildcard kmod/*.c kmod/*.h bpf/*.c bpf/*.h loader/*.c loader/*.h toggler/*.c)

clean:
	$(Q)rm -rf $(BUILD) $(OUT)/bin $(OUT)/vm gpiolat

FORCE:

-include $(wildcard $(BUILD)/*.d $(BUILD)/loader/*.d $(BUILD)/toggler/*.d)
