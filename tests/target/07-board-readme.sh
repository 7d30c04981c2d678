#!/bin/sh
# kernels: arm arm-6.12
# timing: icount
# README.md's "On a board" steps, as written, on a real GPIO controller: the PL061 of qemu's ARM
# virt machine (9030000.pl061). The steps are read from README.md (the indented lines between
# its "board-steps" marks), so the page and this test cannot drift; LABEL becomes the PL061's
# label, OFFSET line 0, OFFSET2 line 1. Each step runs in this shell in turn (a cd holds for the
# next) and must exit 0; what it printed is checked: the histogram counts every pulse with none
# lost, --overhead measures the user-space rows and trace_printk on the PL061 and every row it
# measures on the module's virtual chip (the rows it did not measure here, run there after the
# steps), --path, --wakeup and --gaps measure. Then --overhead --user-line module: utoggle on
# the module's own line, the module unloaded for the row and back on its line after it; the
# module's offset, and module without a toggle.ko, refused in one line. Where the packages are not installed (the
# emulated targets run the tree's build), the installed names map to the tree's: modprobe
# toggle ARGS and modinfo -n toggle to the tree's toggle.ko for this kernel (insmod, rmmod),
# gpiolat to ./gpiolat, /usr/share/gpiolat to the tree's top (ply/, study/, the gpiolat link);
# on a target where they are installed (modinfo finds toggle, gpiolat is on PATH) nothing is
# mapped. The module's line and tracefs are left as found: the module back on its virtual chip.
. "$(dirname "$0")/lib.sh"
README=$PROJ/README.md
LINE=0
ULINE=1
out=/tmp/readme.$$
trap 'rm -rf $out' EXIT
mkdir -p $out

label=
for c in /sys/class/gpio/gpiochip*; do
	case $(cat "$c/label") in
	*.pl061)
		label=$(cat "$c/label")
		break
		;;
	esac
done
if [ -z "$label" ]; then
	notok "a PL061 GPIO controller in /sys/class/gpio"
	done_testing
fi

# ---- the steps, from README.md
awk '/^<!-- board-steps:/ { on = 1; next } /^<!-- board-steps end/ { on = 0 }
	on && /^    [^ ]/ { sub(/^    /, ""); print }' "$README" >$out/steps
n=$(wc -l <$out/steps)
check "README.md's board steps: $n (between its board-steps marks)" [ "$n" -ge 8 ]
for w in "modprobe toggle chip=LABEL line=OFFSET" "gpiolat --overhead" "gpiolat --path" \
	"gpiolat --wakeup" "gpiolat --gaps"; do
	check "README.md's board steps run '$w'" grep -q -- "^$w" $out/steps
done

# ---- the installed names, where the packages are not installed: the tree's build
m=$(modinfo -n toggle 2>/dev/null)
if [ ! -f "$m" ]; then
	ok "toggle is not installed for modprobe: modprobe toggle and modinfo -n toggle are $KMOD"
	modprobe() {
		if [ "$1" = -r ]; then rmmod "$2"; else shift && insmod "$KMOD" "$@"; fi
	}
	modinfo() {
		echo "$KMOD"
	}
fi
if ! command -v gpiolat >/dev/null 2>&1; then
	ok "gpiolat is not installed: gpiolat is $PROJ/gpiolat"
	gpiolat() {
		"$PROJ/gpiolat" "$@"
	}
fi
share=/usr/share/gpiolat
[ -d $share ] || share=$PROJ

# ---- run them, the module unloaded first (as after apt install: DKMS loads nothing)
toggle_unload
overhead_state >$out/state.before
here=$(pwd)
i=0
while IFS= read -r step; do
	i=$((i + 1))
	cmd=$(echo "$step" | sed -e "s|LABEL|$label|g" -e "s|OFFSET2|$ULINE|g" \
		-e "s|OFFSET|$LINE|g" -e "s|/usr/share/gpiolat|$share|g")
	{ eval "$cmd"; } >$out/$i 2>&1 </dev/null
	rc=$?
	comment $out/$i
	eq "step $i, $step: exit status" $rc 0
	echo "$step" >$out/$i.step
done <$out/steps
cd "$here" || exit 1

# the output of the step whose line starts with $1
step_out() {
	for f in $out/*.step; do
		if grep -q -- "^$1" "$f"; then
			echo "${f%.step}"
			return
		fi
	done
	echo /dev/null
}

# the histogram: "gpio 512 (9030000.pl061:0): count 2000 pulses, ...", none lost
f=$(step_out "gpiolat -l")
c=$(sed -n 's/^gpio [0-9]* (.*): count \([0-9]*\) pulses.*/\1/p' $f)
eq "the histogram counts every pulse of LABEL:OFFSET" "${c:-none}" \
	"$(sed -n 's/.*--pulses \([0-9]*\).*/\1/p' $(step_out "gpiolat -l").step)"
l=$(sed -n 's/^toggle module: .*events lost \([0-9]*\).*/\1/p' $f)
eq "the histogram: events lost" "${l:-none}" 0

# --overhead: a measured row's table line is "NAME  AGAINST  FIGURE  CI ..." (a user row's
# reference in words); every row of the run is measured or says why not
f=$(step_out "gpiolat --overhead")
measured() {
	grep -qE "^$1 +[a-z][a-z =-]* +-?[0-9.]+ +[0-9.]+ " "$2"
}
check "--overhead: utoggle on $label:$ULINE (the user rows' reference)" \
	grep -q "untraced ioctl toggler .* on $label:$ULINE:" $f
for r in user-ioctl-syscall-events user-ioctl-uprobe user-ioctl-trace-marker \
	user-ioctl-syscall-hist trace_printk event bpf-gpiolat-tracepoint; do
	check "--overhead on the PL061: $r measured" measured $r $f
done
if host_tool strace; then
	check "--overhead on the PL061: user-ioctl-strace measured" measured user-ioctl-strace $f
fi
# the rows not measured here, on the module's virtual chip: none may be measured there
rows=$(sed -n 's/^  \([a-z0-9_-]*\) *not \(available\|measured\): .*/\1/p' $f | tr '\n' ,)
rows=${rows%,}
echo "# not measured on the PL061: ${rows:-none}"
if [ -n "$rows" ]; then
	toggle_load
	(cd $share && gpiolat --overhead --quick --only "$rows") >$out/vchip 2>&1
	comment $out/vchip
	for r in $(echo "$rows" | tr , ' '); do
		check "$r: not measured on toggle-vchip either" sh -c "! grep -qE \
			'^$r +[a-z][a-z =-]* +-?[0-9.]+ +[0-9.]+ ' $out/vchip"
	done
	toggle_unload
fi

# --path: every toggler row with a figure, or not available for a reason of its own
f=$(step_out "gpiolat --path")
check "--path on the PL061: the module's line and the togglers' ($label)" \
	grep -q "^# chip $label: the module's line $LINE .* line $ULINE" $f
for r in subsys ioctl; do
	check "--path on the PL061: row $r measured" grep -qE "^ *t_$r +[0-9]" $f
done
f=$(step_out "gpiolat --wakeup")
check "--wakeup: the toggler's wakeups histogrammed" grep -qiE "wakeup.*count [1-9]" $f
f=$(step_out "gpiolat --gaps")
check "--gaps: the gaps of the PL061 line histogrammed" grep -qiE "count [1-9]" $f

# ---- utoggle on the module's own line (--user-line module): the module unloaded for the user
# row and loaded back after it with its parameters; bad lines refused in one line each
toggle_load chip="$label" line=$LINE
G=$PROJ/gpiolat
(cd $share && $G --overhead --quick --only user-ioctl-uprobe --user-line module \
	--kmod "$KMOD") >$out/module 2>&1
rc=$?
comment $out/module
eq "--user-line module: exit status" $rc 0
check "--user-line module: utoggle on the module's line $label:$LINE" \
	grep -q "untraced ioctl toggler .* on $label:$LINE (the module's, unloaded meanwhile):" \
	$out/module
check "--user-line module: user-ioctl-uprobe measured" measured user-ioctl-uprobe $out/module
eq "--user-line module: the module back on its line" "$(sed 's/^gpio=[0-9]* //' $D/gpio)" \
	"chip=$label line=$LINE"
# refused (status 1, one line, nothing measured): the module's line by its offset; the module's
# line with no toggle.ko to load it back from
bad() {
	_why=$1
	shift
	"$@" >$out/bad 2>&1
	_rc=$?
	comment $out/bad
	check "${_why%%:*}: refused with status 1 in one line: ${_why#*:}" sh -c \
		"[ $_rc = 1 ] && [ \$(wc -l <$out/bad) = 1 ] && grep -q '${_why#*:}' $out/bad"
}
bad "--user-line $LINE:is the toggle module" \
	$G --overhead --quick --only user-ioctl-uprobe --user-line $LINE
bad "--user-line module without --kmod:no toggle.ko to load the module back" \
	env GPIOLAT_KMOD= $G --overhead --quick --only user-ioctl-uprobe --user-line module
eq "... the module still on its line" "$(sed 's/^gpio=[0-9]* //' $D/gpio)" \
	"chip=$label line=$LINE"

# ---- as found: tracefs, and the module on its virtual chip
toggle_unload
overhead_state >$out/state.after
check "tracefs and the module as before the steps" cmp -s $out/state.before $out/state.after
toggle_load
check "module back on toggle-vchip" grep -q 'chip=toggle-vchip' $D/gpio
done_testing
