#!/bin/sh
# kernels: arm arm64 arm-6.12 arm-6.12-rt arm64-6.12 arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt
# timing: icount
# The board path on a real GPIO controller: qemu's virt machine has an ARM PL061 (memory-mapped
# registers, the kernel's gpio-pl061 driver). The toggle module drives one of its lines
# (chip=LABEL line=OFFSET), gpiolat -l LABEL:OFFSET histograms exactly the pulses issued with
# nothing lost, and utoggle toggles another of its lines through the chardev uAPI (every set
# counted by a hist trigger on gpio:gpio_value). The module is put back as found (its virtual
# chip) at the end. Line 3 is the virt machine's power button (gpio-keys): not used.
. "$(dirname "$0")/lib.sh"
PULSES=${PULSES:-500}
LINE=0
ULINE=1
out=/tmp/board.$$
trap 'gv_count_stop; rm -f $out' EXIT

label=
for c in /sys/class/gpio/gpiochip*; do
	case $(cat "$c/label") in
	*.pl061)
		label=$(cat "$c/label")
		base=$(cat "$c/base")
		break
		;;
	esac
done
if [ -z "$label" ]; then
	notok "a PL061 GPIO controller in /sys/class/gpio ($(cat /sys/class/gpio/gpiochip*/label | tr '\n' ' '))"
	done_testing
fi
ok "PL061 controller: $label, lines from gpio $base"

# dbg_line OFFSET: the PL061's line OFFSET as gpiolib's debugfs shows it. The chip's heading
# ("gpiochip0: GPIOs 512-519, parent: amba/9030000.pl061, 9030000.pl061:") names its lines by
# global number (gpio-514); newer kernels (Debian testing's 7.2) write "gpiochip0: 8 GPIOs, ..."
# and name them by offset (gpio-2). Which one is read from the heading, not the kernel version.
dbg_line() {
	awk -v label="$label" -v base="$base" -v off="$1" '
		/^[^ \t]/ {
			h = $0
			sub(/, can sleep:$/, ":", h)
			mine = substr(h, length(h) - length(label) - 2) == ", " label ":"
			n = mine && h ~ /: GPIOs [0-9]+-[0-9]+/ ? base + off : off
			next
		}
		mine && $1 == "gpio-" n { print; exit }' /sys/kernel/debug/gpio
}

# ---- the module on a line of the PL061 (chip=): a line it does not have is refused, with the
# chip let go of (the same load with a good line works after it)
toggle_unload
dmesg_mark
if insmod "$KMOD" chip="$label" line=99 2>/dev/null; then
	notok "chip=$label line=99 (the PL061 has 8 lines) was accepted"
	toggle_unload
else
	check "chip=$label line=99 refused with one line" \
		sh -c "dmesg | tail -n +$((_dmesg_n + 1)) | grep -q 'line=99 out of range: chip'"
fi
dmesg_mark
if toggle_load chip="$label" line=$LINE; then
	ok "insmod toggle.ko chip=$label line=$LINE"
else
	notok "insmod toggle.ko chip=$label line=$LINE: $(dmesg_new | tail -n 1)"
	toggle_load
	done_testing
fi
eq "the module's line" "$(cat $D/gpio)" "gpio=$((base + LINE)) chip=$label line=$LINE"
l=$(dbg_line $LINE)
check "line $LINE is the module's output (gpiolib's debugfs: ${l:-no such line})" \
	sh -c "echo '$l' | grep -qE '\\|toggle +\\) out'"

gpiolat_pulses "$label:$LINE" $((base + LINE)) "$PULSES" -l "$label:$LINE"
eq "the line is low when the toggler is idle" \
	"$(dbg_line $LINE | sed -n -E 's/.* (lo|hi) *$/\1/p')" lo
check "no kernel warning while toggling the PL061" test -z "$(dmesg_bad)"

# ---- utoggle on another line of it, with the module still holding its own
gv_count_start $((base + ULINE))
"$UTOGGLE" -g "$label" -l $ULINE -c "$PULSES" >$out 2>&1
rc=$?
rise=$(gv_count 1)
fall=$(gv_count 0)
gv_count_stop
comment $out
eq "utoggle -g $label -l $ULINE -c $PULSES exit status" $rc 0
eq "utoggle: sets to 1 of gpio $((base + ULINE))" "$rise" "$PULSES"
# requesting the line as an output sets it low once before the first pulse
eq "utoggle: sets to 0 of gpio $((base + ULINE)) (one a pulse, one at the request)" "$fall" \
	$((PULSES + 1))
l=$(dbg_line $ULINE)
check "utoggle released the line (gpiolib's debugfs: ${l:-not requested})" sh -c \
	"! echo '$l' | grep -q '|utoggle'"

# ---- put back: the module on its virtual chip
toggle_load
check "module back on toggle-vchip" grep -q 'chip=toggle-vchip' $D/gpio
done_testing
