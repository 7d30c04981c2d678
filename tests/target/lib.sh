# Target side: helpers for the in-target tests (POSIX sh; sourced by tests/target/*.sh).
# Each test script runs inside the target (vm/run, or natively on a board as root) and prints
# one line a check: "ok - what", "not ok - what", "skip - what: why". Its exit status is
# 0 when every check passed or was skipped, 1 otherwise.

T=/sys/kernel/tracing
D=/sys/kernel/debug/toggle
KMOD=${GPIOLAT_KMOD:-}
_failed=0

ok() {
	echo "ok - $*"
}
notok() {
	echo "not ok - $*"
	_failed=1
}
skip() {
	echo "skip - $*"
}
# need_icount: a "# timing: icount" test skips (and exits) outside the deterministic mode
need_icount() {
	[ "${GPIOLAT_TIMING:-real}" = icount ] && return 0
	skip "$(basename "$0"): needs TIMING=icount (tests/run.sh sets it from the '# timing:' line)"
	exit 0
}
# check "what" command...: ok when the command succeeds
check() {
	_what=$1
	shift
	if "$@"; then ok "$_what"; else notok "$_what"; fi
}
# differ A B: the two files differ (a check's command, without a shell of its own)
differ() { ! cmp -s "$1" "$2"; }
# eq "what" got want
eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else notok "$1: got '$2', want '$3'"; fi
}
# host_tool CMD: is CMD (a tool host/deps.sh installs: python3, bpftrace, strace, gpioset) here?
# On x86_64 the target's root is the host's, where host/deps.sh installed it, and an emulated
# ARM target with a Debian root (dpkg's status there: Debian 13's, vm/userspace.sh installed it)
# has it too: its absence is a failure (a "not ok" line, status 1). Debian 12's ARM targets' root
# is the initramfs (busybox and gpiolat's static binaries, by design: vm/run), as a board's
# rarely has them: there the checks that need it are not run on this architecture (a "skip"
# line saying so, status 1).
host_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(uname -m)" = x86_64 ]; then
		notok "$1 is on PATH (host/deps.sh installs it; the x86_64 target runs the host's root)"
	elif [ "${GPIOLAT_TARGET:-}" = emulated ] && [ -e /var/lib/dpkg/status ]; then
		notok "$1 is on PATH (host/deps.sh --root installs it in this target's Debian root)"
	else
		skip "the checks that need $1: not run on $(uname -m) (no $1 in this target's root, by design)"
	fi
	return 1
}
# apt_candidate PKG: the version this root's apt would install of PKG, nothing when it has
# none (status 1: no apt here). The cache is built in memory (the root is read-only in the
# target), which under emulation costs seconds of guest time a call: in the emulated target,
# whose root no one changes while it runs, each package's answer is kept for the boot in
# /tmp/gpiolat-apt-candidate/PKG (the guest's tmpfs; rows.py reads and writes the same files);
# on a board apt is asked every time (its lists may change between two runs)
apt_candidate() {
	command -v apt-cache >/dev/null 2>&1 || return 1
	_acf=
	if [ "${GPIOLAT_TARGET:-}" = emulated ]; then
		_acf=/tmp/gpiolat-apt-candidate/$1
		if [ -f "$_acf" ]; then
			cat "$_acf"
			return 0
		fi
	fi
	_acc=$(apt-cache -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= policy "$1" \
		2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ "$_acc" != "(none)" ] || _acc=
	if [ -n "$_acf" ] && mkdir -p "${_acf%/*}" && echo "$_acc" >"$_acf.$$"; then
		mv "$_acf.$$" "$_acf"
	fi
	echo "$_acc"
}
# release_tool CMD PKG: is CMD (of Debian package PKG, which host/deps.sh installs where the
# release packages it) here? Where it is not, the apt of this target's root says whether the
# release packages it: a candidate for PKG makes its absence a failure ("not ok", status 1);
# no candidate (Debian 12 has no ply), or a root without apt (the ARM targets' busybox
# initramfs), a "skip" line saying so (status 1); apt_candidate asks apt.
release_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if ! command -v apt-cache >/dev/null 2>&1; then
		skip "the checks that need $1: this target's root has no apt, nor $1 (no Debian root)"
		return 1
	fi
	_cand=$(apt_candidate "$2")
	case $_cand in
	"")
		skip "the checks that need $1: this root's release does not package $2" \
			"(apt has no candidate)" ;;
	*) notok "$1 is on PATH (apt in this root has $2 $_cand: host/deps.sh --target installs it)" ;;
	esac
	return 1
}
# need CMD...: a test that reads JSON with python3 (or needs another tool) stops as a whole
# where host_tool CMD says no (a failure on x86_64, not run on the ARM targets)
need() {
	for _c in "$@"; do
		host_tool "$_c" || done_testing
	done
}

# bt_probes SCRIPT: the kernel probes a bpftrace script names (its lines "tracepoint:...",
# "kprobe:..."; BEGIN and END run in bpftrace itself and are not listed by bpftool perf)
bt_probes() {
	grep -c -E '^(tracepoint|kprobe|kretprobe|uprobe|uretprobe|rawtracepoint):' "$1"
}
# bt_attached PID N: wait (at most 60 s, while PID lives) until bpftrace PID has N BPF programs
# on kernel probes, as the kernel lists them (bpftool perf): its "Attaching N probes..." line
# comes before it attaches them, so that line is no readiness; 1 if they never were
bt_attached() {
	_i=0
	while [ "$(bpftool perf show 2>/dev/null | grep -c "^pid $1 ")" -lt "$2" ]; do
		kill -0 "$1" 2>/dev/null || return 1
		[ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# ---- the kernel's configuration: the one excuse for a method that is not available ------------

# kconfig_file: the running kernel's configuration, read without asking the kernel what works:
# /proc/config.gz, /boot/config-RELEASE (a board), /lib/modules/RELEASE/config (where a
# merged-/usr kernel package puts it: Debian testing's), or the emulated target's kernel package
# in out/target/*/root/boot or root/usr/lib/modules/RELEASE of the project (vm/run mounts the
# project at its own path on every target); nothing when none is found (then nothing can be
# excused)
kconfig_file() {
	for _f in /proc/config.gz "/boot/config-$(uname -r)" "/lib/modules/$(uname -r)/config" \
		"$PROJ"/out/target/*/root/boot/"config-$(uname -r)" \
		"$PROJ"/out/target/*/root/usr/lib/modules/"$(uname -r)"/config; do
		if [ -r "$_f" ]; then
			echo "$_f"
			return
		fi
	done
}
# gpio_hooks [FIELD VALUE]: the names of gpiolat's GPIO hooks, one a line, in the order of the
# loader's table (loader/providers/gpio_hooks.h), as `gpiolat --list --json` gives them
# (GPIOLAT_EXE, default the project's); with FIELD VALUE only those whose boolean FIELD is VALUE
# (gpio_hooks needs_btf false); nothing (and a not ok line from the caller's count) when it
# cannot say
gpio_hooks() {
	"${GPIOLAT_EXE:-$PROJ/out/bin/gpiolat}" --list --json |
		if [ $# -eq 2 ]; then grep "\"$1\": $2[,}]"; else cat; fi |
		sed -n 's/^ *{"name": "\([^"]*\)".*/\1/p'
}
# kconfig_missing METHOD: the kernel options METHOD needs (tests/target/kconfig-needs) that the
# running kernel's configuration lacks, space-separated; empty when it has them all, when
# METHOD needs none, or when no configuration is found
kconfig_missing() {
	_kf=$(kconfig_file)
	[ -n "$_kf" ] || return 0
	_opts=
	while read -r _name _o; do
		case $_name in
		'#'* | '') continue ;;
		esac
		# shellcheck disable=SC2254
		case $1 in
		$_name)
			_opts=$_o
			break
			;;
		esac
	done <"$PROJ/tests/target/kconfig-needs"
	_miss=
	for _o in $_opts; do
		case $_kf in
		*.gz) zcat "$_kf" ;;
		*) cat "$_kf" ;;
		esac | grep -q -E "^$_o=(y|m)\$" || _miss="$_miss $_o"
	done
	echo "${_miss# }"
}

# ---- BPF state: what a run leaves ------------------------------------------------------------

# bpf_state: the BPF programs and links that exist besides the kernel's own: what bpffs holds
# (pins), the programs and links every process holds open (from /proc/PID/fdinfo: "COMM prog
# TYPE TAG" and "COMM link TYPE", no ids: they change from run to run) and, where bpftool is
# (the x86_64 targets: the host's), every program by type and name and every link by type.
bpf_state() {
	echo "== bpffs"
	(cd /sys/fs/bpf && find . | sort)
	echo "== held open"
	# every process's descriptors and what they point to, in one ls (a readlink a descriptor
	# was hundreds of processes under emulation): "/proc/PID/fd:" heads each process's lines,
	# "... FD -> anon_inode:bpf-prog"
	ls -l /proc/[0-9]*/fd 2>/dev/null | while IFS= read -r _l; do
		case $_l in
		/proc/*/fd:)
			_p=${_l#/proc/}
			_p=${_p%%/*}
			continue
			;;
		*' -> anon_inode:bpf-prog') _k=prog ;;
		*' -> anon_inode:bpf_link') _k=link ;;
		*) continue ;;
		esac
		_n=${_l% -> *}
		_i=/proc/$_p/fdinfo/${_n##* }
		_cm=
		{ read -r _cm <"/proc/$_p/comm"; } 2>/dev/null
		echo "$_cm $_k" \
			"$(sed -n -E 's/^(prog_type|link_type|prog_tag):[[:space:]]*/\1=/p' "$_i" 2>/dev/null |
				tr '\n' ' ')"
	done | sort
	if command -v bpftool >/dev/null 2>&1; then
		echo "== bpftool prog and link"
		bpftool_objects
	fi
}
# bpftool_objects: "prog TYPE NAME" for every named program and "link TYPE" for every link the
# kernel has, sorted: one bpftool (its batch: prog show, then version, whose first line parts the
# two lists, then link show) read by the shell, and one sort. Under emulation a process costs
# about 0.05 s of the host's time: two bpftool | sed | sort pipelines took 0.25 to 0.34 s of a
# snapshot's 0.3 to 0.4 s (std, TIMING=icount, 2026-11-28), and make test takes one after every
# target test (tests/target/run-list.sh) and the kill tests two a row.
bpftool_objects() {
	printf 'prog show\nversion\nlink show\n' | bpftool batch file - 2>&1 | {
		_k=prog
		while IFS= read -r _l; do
			case $_l in
			'bpftool v'*) _k=link ;;
			[0-9]*': '*)
				_l=${_l#*: }
				_t=${_l%% *}
				if [ $_k = link ]; then
					echo "link $_t"
				else
					case $_l in
					"$_t "*' name '*)
						_n=${_l#* name }
						echo "prog $_t ${_n%% *}"
						;;
					esac
				fi
				;;
			esac
		done
	} | sort
}
done_testing() {
	exit $_failed
}

# toggle_load ARGS...: (re)load the toggle module with these parameters
toggle_load() {
	toggle_unload
	insmod "$KMOD" "$@"
}
toggle_unload() {
	if [ -d /sys/module/toggle ]; then
		rmmod toggle
	fi
}
# edges: "rising falling" from the module
edges() {
	cat $D/edges
}
# pulses N: issue exactly N pulses and wait until the toggler is idle again
pulses() {
	echo "$1" >$D/pulses
	echo 1 >$D/enable
	while [ "$(cat $D/enable)" != 0 ]; do
		sleep 0.1
	done
}

# ---- the toggle module's tests (tests/target/1*.sh, 2*.sh) ------------------------------------

# toggle_gpio: the global number of the toggled line (from $D/gpio: "gpio=N chip=L line=O")
toggle_gpio() {
	sed -n 's/^gpio=\([0-9]*\) .*/\1/p' $D/gpio
}
# vchip_dev: the gpiochipN of the virtual chip (gpiodetect: "gpiochip0 [toggle-vchip] (8 lines)")
vchip_dev() {
	gpiodetect | sed -n 's/^\(gpiochip[0-9]*\) \[toggle-vchip\].*/\1/p'
}
# The libgpiod tools of the target's root: 1.6 (Debian 12) or 2.x (Debian 13's root, x86_64's
# 6.12 targets: vm/userspace.sh), whose options and output differ. Told by what the tools say
# they are (gpioset --version: "gpioset (libgpiod) v2.2.1"), never by the distribution.
gpiod_v2() {
	gpioset --version 2>/dev/null | grep -q ' v2\.'
}
# gpio_set DEV OFFSET=VALUE: set a free line of chip DEV (gpiochipN) and exit
gpio_set() {
	if gpiod_v2; then gpioset -t 0 -c "$1" "$2"; else gpioset -m exit "$1" "$2"; fi
}
# gpio_get DEV OFFSET: a line's value, 0 or 1 (a line another user holds: an error)
gpio_get() {
	if gpiod_v2; then gpioget --numeric -c "$1" "$2"; else gpioget "$1" "$2"; fi
}
# gpio_line DEV OFFSET: "CONSUMER DIRECTION" of a line as gpioinfo shows it (1.6: line 0:
# unnamed "toggle" output active-high [used]; 2.x: line 0: unnamed output consumer=toggle,
# an unused line without consumer=: "unused", as 1.6 says)
gpio_line() {
	if gpiod_v2; then
		gpioinfo -c "$1" | sed -n -E "/^[[:space:]]*line +$2:/{
			s/^[[:space:]]*line +$2:[[:space:]]+[^[:space:]]+[[:space:]]+(input|output)/\1 /
			s/^([a-z]+) .*consumer=\"?([^\"[:space:]]*).*/\2 \1/; s/^(input|output) .*/unused \1/; p; }"
	else
		gpioinfo "$1" | sed -n -E "s/^[[:space:]]*line +$2: +[^ ]+ +\"([^\"]*)\" +([a-z]+).*/\1 \2/p"
	fi
}
# toggle_dbg_line: the toggled line's line in gpiolib's debugfs, within its chip's part. How
# lines are named there is told by that chip's header, at run time: "gpiochip0: GPIOs 512-519,
# ..." names them by their global number (6.1 to 6.12: gpio-512), "gpiochip0: 8 GPIOs, ..." by
# their offset in the chip (Debian testing's 7.2: gpio-0, as on every other chip)
toggle_dbg_line() {
	# (the chip's header ends with its label: "gpiochip0: GPIOs 512-519, parent: ..., toggle-vchip:")
	awk -v label="$(sed -n 's/.* chip=\([^ ]*\) .*/\1/p' $D/gpio):" -v gpio="$(toggle_gpio)" \
		-v off="$(sed -n 's/.* line=\([0-9]*\)$/\1/p' $D/gpio)" '
		/^gpiochip/ { in_chip = ($NF == label); name = "gpio-" ($2 == "GPIOs" ? gpio : off); next }
		in_chip && $1 == name { print; exit }' /sys/kernel/debug/gpio
}
# line_state: "lo" or "hi", the toggled line's level as gpiolib's debugfs shows it
line_state() {
	toggle_dbg_line | sed -n -E 's/.* (lo|hi) *$/\1/p'
}

# dmesg_mark: remember how far the kernel log went; dmesg_new: the lines logged since
dmesg_mark() {
	_dmesg_n=$(dmesg | wc -l)
}
dmesg_new() {
	dmesg | tail -n +$((${_dmesg_n:-0} + 1))
}
# dmesg_bad: the new lines that report a kernel problem (the trace_printk() NOTICE banner,
# printed whenever the module loads, is not one)
dmesg_bad() {
	dmesg_new | grep -E 'WARNING:|Oops|BUG:|Call Trace|general protection|RIP:|INFO: task|lockdep'
}

# Tracing: tr_event / tr_buffer change tracefs, tr_cleanup puts it back as found (events off,
# filters cleared, buffer size restored, buffer cleared). Call tr_cleanup before done_testing.
_tr_events=
_tr_bufsize=
# tr_event SYSTEM/EVENT [FILTER]: enable an event, with a filter when given
tr_event() {
	if [ -n "${2:-}" ]; then
		echo "$2" >$T/events/$1/filter
	fi
	echo 1 >$T/events/$1/enable
	_tr_events="$_tr_events $1"
}
# tr_event_off SYSTEM/EVENT: disable it again (tr_cleanup also clears its filter)
tr_event_off() {
	echo 0 >$T/events/$1/enable
}
# tr_buffer KB: the per-CPU ring buffer size for this test
tr_buffer() {
	if [ -z "$_tr_bufsize" ]; then
		# "1410", or "7 (expanded: 1410)" before the buffer was first used
		_tr_bufsize=$(sed -e 's/.*expanded: \([0-9]*\).*/\1/' $T/buffer_size_kb)
	fi
	echo "$1" >$T/buffer_size_kb
}
tr_clear() {
	: >$T/trace
}
# tr_count ERE: the lines of the trace buffer that match
tr_count() {
	grep -c -E "$1" $T/trace
}
# tr_stat FIELD: the sum over the CPUs of one per_cpu/cpu*/stats field (entries, overrun,
# commit overrun, dropped events)
tr_stat() {
	cat $T/per_cpu/cpu*/stats | awk -v f="$1:" \
		'index($0, f) == 1 { n += substr($0, length(f) + 1) } END { print n + 0 }'
}
# tr_lost: events the ring buffer lost (overwritten, or dropped), over all CPUs
tr_lost() {
	echo $(($(tr_stat overrun) + $(tr_stat 'commit overrun') + $(tr_stat 'dropped events')))
}
tr_cleanup() {
	for e in $_tr_events; do
		# a module's events go with it
		[ -d $T/events/$e ] || continue
		echo 0 >$T/events/$e/enable
		echo 0 >$T/events/$e/filter
	done
	_tr_events=
	if [ -n "$_tr_bufsize" ]; then
		echo "$_tr_bufsize" >$T/buffer_size_kb
		_tr_bufsize=
	fi
	tr_clear
}

# batches_mean: mean ns per set over the batch ring, "ns/(2*pulses)" averaged over batches
batches_mean() {
	awk '{ s += $3 / (2 * $2); n++ } END { if (n) printf "%.0f\n", s / n; else print "-" }' $D/batches
}

# ---- utoggle and the ply/ scripts (tests/target/5*.sh, 6*.sh) ---------------------------------

PROJ=$(cd "$(dirname "$0")/../.." && pwd)
UTOGGLE=$PROJ/out/bin/utoggle

# vchip_base: the global GPIO number of line 0 of the module's virtual chip (from
# /sys/class/gpio/gpiochipBASE/label)
vchip_base() {
	for _c in /sys/class/gpio/gpiochip*; do
		if [ "$(cat "$_c/label")" = toggle-vchip ]; then
			cat "$_c/base"
			return
		fi
	done
}
# vchip_ngpio: its number of lines
vchip_ngpio() {
	cat /sys/class/gpio/gpiochip"$(vchip_base)"/ngpio
}

# gpio:gpio_value sets of one line, counted by a hist trigger: the trace buffer, the event's
# enable and filter are left alone, and the trigger goes when gv_count_stop is called.
_gv=$T/events/gpio/gpio_value
_gv_trigger=
# gv_count_start GPIO
gv_count_start() {
	_gv_trigger="hist:keys=value:vals=hitcount if gpio == $1 && get == 0"
	echo "$_gv_trigger" >>$_gv/trigger
}
# gv_count VALUE: sets to VALUE (0 or 1) since gv_count_start
gv_count() {
	_n=$(sed -n "s/^{ value: *$1 } hitcount: *\([0-9]*\).*/\1/p" $_gv/hist)
	echo "${_n:-0}"
}
gv_count_stop() {
	if [ -n "$_gv_trigger" ]; then
		echo "!$_gv_trigger" >>$_gv/trigger
		_gv_trigger=
	fi
}
# gv_wait_sets VALUE N: wait (at most 60 s) until gv_count VALUE reaches N: a toggler started
# in the background is under way (its readiness, instead of a sleep); 1 if it never did
gv_wait_sets() {
	_i=0
	while [ "$(gv_count "$1")" -lt "$2" ]; do
		[ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
# gpiolat_ready FILE: wait (at most 60 s) until a text-mode gpiolat wrote its "Tracing ..." line
# (printed once its programs are attached) into FILE, and the toggle module issued 4 more edges
# (two pulses) since: the run's readiness, instead of a sleep; 1 if it never came. FILE must not
# be there before the run starts: its redirection is the background child's, and a look before
# the child truncated it read an earlier run's "Tracing" line (33's SIGINT then came before the
# attach: "interrupted before attaching", 1 of 3 runs once the look took 6 ms, not 35)
gpiolat_ready() {
	_i=0
	while ! grep -q '^Tracing ' "$1" 2>/dev/null; do
		[ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	_e0=$(awk '{ print $1 + $2 }' $D/edges)
	while [ "$(awk '{ print $1 + $2 }' $D/edges)" -lt $((_e0 + 4)) ]; do
		[ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
# gv_state: the event's enable, filter and trigger files, to check that a test left them as found
gv_state() {
	cat $_gv/enable $_gv/filter $_gv/trigger | tr '\n' ' '
}

# hist_total FILE: the sum of the counts of every log2 histogram row in FILE, bpftrace's hist()
# ("[1K, 2K)    5 |@@  |") and ply's quantize() ("	[   1k,    2k)	       5 |#  |")
hist_total() {
	awk '{
		if (match($0, /^[ \t]*[[(][^])]*[])][ \t]+[0-9]+/)) {
			row = substr($0, 1, RLENGTH)
			sub(/^[ \t]*[[(][^])]*[])][ \t]+/, "", row)
			n += row
		}
	} END { print n + 0 }' "$1"
}
# tool_wait PID DONE LIMIT: wait for a tracer PID started with -c CMD, whose CMD creates the
# file DONE as its last step; sets _stopped: "exit" (PID exited by itself), "sigint" (CMD was
# done but PID still ran 10 s later: SIGINT, again every 5 s, as a user's Ctrl-C; ply 2.4 waits
# for the command's SIGCHLD in a bare pause() when the script has no printf, and once in 14
# runs under icount it did not return from it), "timeout" (LIMIT s passed, or a minute of
# SIGINTs: SIGKILL). The caller then waits for PID's status.
tool_wait() {
	_i=0
	while kill -0 "$1" 2>/dev/null && [ ! -e "$2" ] && [ $_i -lt $(($3 * 10)) ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_stopped=exit
	if [ -e "$2" ]; then
		_i=0
		while kill -0 "$1" 2>/dev/null && [ $_i -lt 100 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
	fi
	_j=0
	while kill -0 "$1" 2>/dev/null; do
		if [ ! -e "$2" ] || [ $_j -ge 12 ]; then
			kill -KILL "$1" 2>/dev/null
			_stopped=timeout
			return
		fi
		_stopped=sigint
		kill -INT "$1" 2>/dev/null
		_i=0
		while kill -0 "$1" 2>/dev/null && [ $_i -lt 50 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		_j=$((_j + 1))
	done
}
# comment FILE: FILE's lines as "# " comments in the test output
comment() {
	sed -e 's/^/# /' "$1"
}

# ---- gpiolat with the toggle module (tests/target/0*.sh) ---------------------------------------

# gpiolat_pulses WHAT GPIO N ARGS...: gpiolat ARGS --pulses N (GPIOLAT_EXE, default the project's
# out/bin/gpiolat), the toggle module driving the line
# GPIO: exit status 0, GPIO's histogram counts every pulse, nothing lost, and the module issued
# exactly N pulses while attached
gpiolat_pulses() {
	_what=$1
	_gpio=$2
	_n=$3
	shift 3
	_out=$(mktemp)
	"${GPIOLAT_EXE:-$PROJ/out/bin/gpiolat}" "$@" --pulses "$_n" >"$_out" 2>&1
	_rc=$?
	comment "$_out"
	eq "$_what: gpiolat $* --pulses $_n exit status" $_rc 0
	# "gpio 512 (toggle-vchip:0): count 500 pulses, ..."
	_c=$(sed -n "s/^gpio $_gpio .*: count \([0-9]*\) pulses.*/\1/p" "$_out")
	eq "$_what: histogram of gpio $_gpio counts every pulse" "${_c:-none}" "$_n"
	# "toggle module: gpio 512: 1000 edges issued while attached (500 rising, 500 falling),
	# 1000 sets seen: events lost 0"
	_l=$(sed -n 's/^toggle module: .*events lost \([0-9]*\).*/\1/p' "$_out")
	eq "$_what: events lost" "${_l:-none}" 0
	check "$_what: the module issued exactly $_n pulses while attached" \
		grep -q "^toggle module: .*($_n rising, $_n falling)" "$_out"
	rm -f "$_out"
}

# ---- --overhead and the system as found (tests/target/9*.sh) ----------------------------------

# The snapshots below read with the shell's own read, not a process a file: under emulation
# each process costs the guest a fork, an exec and the dynamic loader, and a snapshot runs after
# every test of a boot (run-list.sh); 20 snapshots took 40 s of wall time with cat, grep and ps.
# catf FILE...: each FILE's lines (a last line without its newline gets one), nothing for a
# file that cannot be read
catf() {
	for _cf in "$@"; do
		[ -r "$_cf" ] || continue
		while IFS= read -r _cl || [ -n "$_cl" ]; do
			printf '%s\n' "$_cl"
		done <"$_cf"
	done 2>/dev/null
}
# overhead_state: what an --overhead row changes in tracefs (top level and instances) and in the
# toggle module
overhead_state() {
	for f in current_tracer set_ftrace_filter set_graph_function tracing_on kprobe_events \
		uprobe_events synthetic_events dynamic_events set_event events/gpio/gpio_value/enable \
		events/gpio/gpio_value/filter events/gpio/gpio_value/trigger events/toggle/enable \
		events/syscalls/sys_enter_ioctl/enable events/syscalls/sys_exit_ioctl/enable; do
		echo "== $f"
		catf $T/$f
	done
	for i in $T/instances/*; do
		[ -d "$i" ] || continue
		echo "== instance ${i##*/}"
		catf $i/set_event $i/current_tracer $i/events/gpio/gpio_value/trigger
	done
	echo "== the toggle module's parameters"
	for f in /sys/module/toggle/parameters/*; do
		[ -r "$f" ] || continue
		while IFS= read -r _cl || [ -n "$_cl" ]; do
			# (grep -H . FILE's lines: its name, and each line that is not empty)
			[ -z "$_cl" ] || printf '%s:%s\n' "$f" "$_cl"
		done <"$f"
	done 2>/dev/null
}
# overhead_snapshot: that, and what a killed run may leave besides (the module toggling, BPF
# run-time stats, programs and links, children, trace_marker lines)
overhead_snapshot() {
	overhead_state
	echo "== toggling"
	catf $D/enable
	echo "== bpf_stats_enabled"
	catf /proc/sys/kernel/bpf_stats_enabled
	echo "== bpftool prog and link"
	bpftool_objects
	echo "== processes"
	for _c in /proc/[0-9]*/comm; do
		{ read -r _l <"$_c"; } 2>/dev/null || continue
		case $_l in
		bpftrace | strace | utoggle | ply | gpiolat) echo "$_l" ;;
		esac
	done
	# (run-list.sh leaves it out: the kernel formats every line of the buffer to be read, and
	# the buffer's lines are a test's output, not a setting)
	[ "${SNAPSHOT_NO_TRACE:-}" = 1 ] && return 0
	echo "== trace_marker lines at the top level"
	grep -c 'utoggle: set' $T/trace
}

# mode_snapshot: overhead_snapshot, and what the other modes change besides: the toggle module's
# debugfs settings (--path: depth, raw; every mode that drives it: pulses, enable) and the state
# directory where each records its undo (tests/target/93-*.sh)
mode_snapshot() {
	overhead_snapshot
	echo "== the toggle module's settings"
	for _f in depth raw pulses enable; do
		_v=
		rd $D/$_f
		echo "$_f $_v"
	done
	echo "== /run/gpiolat"
	for _f in /run/gpiolat/* /run/gpiolat/.*; do
		case ${_f##*/} in . | .. | '*' | '.*') continue ;; esac
		echo "${_f##*/}"
	done
}

# The kill tests' (93, 94) probes of the target's state, read from /proc (no ps or pgrep: the
# arm roots have none).
# rd FILE: its first line in $_v (no process); false when it cannot be read
rd() { { read -r _v <"$1"; } 2>/dev/null; }
# running COMM: a process of that name runs (/proc/PID/comm)
running() {
	for _c in /proc/[0-9]*/comm; do
		{ read -r _l <"$_c"; } 2>/dev/null && [ "$_l" = "$1" ] && return 0
	done
	return 1
}
# ended PID: our child PID has exited (a zombie until waited for: its state, not kill -0)
ended() {
	[ -e /proc/$1 ] || return 0
	{ read -r _ _ _st _ </proc/$1/stat; } 2>/dev/null
	[ "$_st" = Z ]
}
# stopped PID: the process is stopped by a signal (SIGSTOP: /proc/PID/stat's state T)
stopped() {
	{ read -r _ _ _st _ </proc/$1/stat; } 2>/dev/null
	[ "$_st" = T ]
}
# stop_in PID [LIMIT]: wait until a run started with GPIOLAT_STOP_IN=ROW:REP (docs/overhead.md)
# has stopped itself in that phase, its row's change in place, where nothing moves while the
# test looks; polled every 0.1 s for up to LIMIT s of uptime (default 300) or until the run
# ends. 0 when stopped; 1 when it ended first or the limit came
stop_in() {
	read -r _u _ </proc/uptime
	_end=$((${_u%.*} + ${2:-300}))
	until ended $1; do
		stopped $1 && return 0
		read -r _u _ </proc/uptime
		[ ${_u%.*} -le $_end ] || return 1
		sleep 0.1
	done
	return 1
}
# as_before BEFORE AFTER OK NOTOK: "ok - OK" when the two snapshots are the same, else
# "not ok - NOTOK" and the first 20 lines of their difference
as_before() {
	if cmp -s "$1" "$2"; then
		ok "$3"
	else
		notok "$4"
		diff "$1" "$2" | sed -e 's/^/# /' | head -n 20
	fi
}
