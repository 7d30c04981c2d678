#!/bin/sh
# timing: icount
# Bad load parameters: the module refuses to load, says why in one "toggle: ..." line, and
# leaves nothing behind. Good values at the edges of each range load.
. "$(dirname "$0")/lib.sh"

toggle_unload
# bad ARGS WORD: loading with ARGS fails with one "toggle: " line that contains WORD
bad() {
	_args=$1
	_word=$2
	dmesg_mark
	# shellcheck disable=SC2086
	if insmod "$KMOD" $_args 2>/dev/null; then
		notok "$_args: loaded"
		rmmod toggle
		return
	fi
	_lines=$(dmesg_new | grep -c 'toggle: ')
	_line=$(dmesg_new | grep 'toggle: ' | sed 's/^\[[ 0-9.]*\] //')
	if [ "$_lines" = 1 ] && echo "$_line" | grep -q -e "$_word"; then
		ok "$_args: refused: $_line"
	else
		notok "$_args: want one 'toggle: ' line naming $_word, got $_lines: $_line"
	fi
	check "$_args: /sys/module/toggle is absent" test ! -e /sys/module/toggle
	check "$_args: no toggle-vchip left" sh -c '! gpiodetect | grep -q toggle-vchip'
}
bad "mode=bogus" "mode='bogus'"
bad "burst=0" "burst=0 out of range: 1 to 100000"
bad "burst=100001" "burst=100001 out of range"
bad "burst=-1" "burst"
bad "nlines=0" "nlines=0 out of range: 1 to 64"
bad "nlines=65" "nlines=65 out of range"
bad "line=8" "line=8 out of range: 0 to 7"
bad "nlines=4 line=4" "line=4 out of range: 0 to 3"
bad "prio=100" "prio=100 out of range"
bad "chip=no-such-chip" "chip='no-such-chip'"
eq "no kernel warning from the refused loads" "$(_dmesg_n=0 dmesg_bad)" ""

# good ARGS: loading with ARGS works
good() {
	# shellcheck disable=SC2086
	if insmod "$KMOD" $1; then
		ok "$1: loads"
		rmmod toggle
	else
		notok "$1: refused: $(dmesg | grep 'toggle: ' | tail -n 1)"
	fi
}
good "burst=1"
good "burst=100000"
good "nlines=1"
good "nlines=64 line=63"
good "prio=99"
good "mode=printk"

# prio: the toggler's scheduling class
toggle_load prio=0
pid=$(pgrep -x toggle)
eq "prio=0: SCHED_NORMAL" "$(ps -o cls= -p "$pid" | tr -d ' ')" TS
toggle_load prio=70
pid=$(pgrep -x toggle)
eq "prio=70: SCHED_FIFO 70" "$(ps -o cls=,rtprio= -p "$pid" | tr -s ' ' | sed 's/^ //')" "FF 70"
for p in /sys/module/toggle/parameters/*; do
	eq "parameter $(basename "$p") is read-only" "$(stat -c %a "$p")" 444
done

toggle_load
done_testing
