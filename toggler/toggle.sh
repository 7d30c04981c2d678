#!/bin/sh
# The shell toggler of the GPIO path (docs/gpio-path.md): the post's and the talk's bash script,
# a loop writing "1" then "0" to the sysfs value file, one open/write/close per set.
#
#   sh toggler/toggle.sh GPIO PULSES     (or bash toggler/toggle.sh ...)
#
# GPIO is the global number (/sys/class/gpio/gpioN); the line is exported (and unexported at the
# end) unless it already was. It prints one line, "loop", just before its loop: gpiolat --path
# times the sets from that line to the script's exit (its start-up is outside).
G=/sys/class/gpio
case $1 in '' | *[!0-9]*) echo "toggle.sh: GPIO must be a number, got '$1'" >&2 && exit 2 ;; esac
case $2 in '' | *[!0-9]*) echo "toggle.sh: PULSES must be a number, got '$2'" >&2 && exit 2 ;; esac
v=$G/gpio$1/value
exported=
if [ ! -e "$v" ]; then
	echo "$1" >$G/export || exit 1
	exported=1
fi
echo out >$G/gpio$1/direction || exit 1
echo loop
i=0
while [ $i -lt "$2" ]; do
	echo 1 >"$v"
	echo 0 >"$v"
	i=$((i + 1))
done
[ -z "$exported" ] || echo "$1" >$G/unexport
