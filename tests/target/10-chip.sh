#!/bin/sh
# The toggle module's virtual chip: /dev/gpiochipN, /sys/bus/gpio, the chardev uAPI and sysfs
# export all work on it, and the toggled line is the module's own.
# kernels: std rt 6.12
# timing: icount
. "$(dirname "$0")/lib.sh"

toggle_load
dev=$(vchip_dev)
check "toggle-vchip is a gpiochip ($dev)" test -n "$dev"
check "/dev/$dev is a character device" test -c "/dev/$dev"
check "/sys/bus/gpio/devices/$dev exists" test -d "/sys/bus/gpio/devices/$dev"
eq "gpiodetect: 8 lines" "$(gpiodetect | sed -n "s/^$dev \[toggle-vchip\] (\([0-9]*\) lines)/\1/p")" 8

gpio=$(toggle_gpio)
base=
for c in /sys/class/gpio/gpiochip*; do
	[ "$(cat "$c/label")" = toggle-vchip ] && base=$(cat "$c/base")
done
eq "gpio file" "$(cat $D/gpio)" "gpio=$base chip=toggle-vchip line=0"
eq "line 0 is the module's output" \
	"$(gpio_line "$dev" 0)" "toggle output"
eq "the idle line is low" "$(line_state)" lo
# (gpiolib refuses the request: "Device or resource busy", libgpiod 1.6 and 2.x alike)
eq "user space cannot take the toggled line" \
	"$(gpio_get "$dev" 0 2>&1 >/dev/null | grep -c 'Device or resource busy')" 1

# a free line through the chardev uAPI (libgpiod 1.6 or 2.x): set it, read it back
check "gpioset $dev 2=1" gpio_set "$dev" 2=1
eq "gpioget $dev 2" "$(gpio_get "$dev" 2)" 1
check "gpioset $dev 2=0" gpio_set "$dev" 2=0
eq "gpioget $dev 2 again" "$(gpio_get "$dev" 2)" 0

# a free line through sysfs export
n=$((base + 1))
check "export gpio$n" sh -c "echo $n >/sys/class/gpio/export"
check "gpio$n direction out" sh -c "echo out >/sys/class/gpio/gpio$n/direction"
check "gpio$n value 1" sh -c "echo 1 >/sys/class/gpio/gpio$n/value"
eq "gpio$n reads 1" "$(cat /sys/class/gpio/gpio$n/value)" 1
eq "gpioinfo: line 1 is sysfs's" "$(gpio_line "$dev" 1 | cut -d' ' -f1)" sysfs
check "unexport gpio$n" sh -c "echo $n >/sys/class/gpio/unexport"
check "gpio$n is gone" test ! -e /sys/class/gpio/gpio$n

# nlines and line
toggle_load nlines=64 line=63
dev=$(vchip_dev)
eq "nlines=64: 64 lines" "$(gpiodetect | sed -n "s/^$dev \[toggle-vchip\] (\([0-9]*\) lines)/\1/p")" 64
eq "line=63: gpio file" "$(sed 's/^gpio=[0-9]* //' $D/gpio)" "chip=toggle-vchip line=63"
eq "line 63 is the module's output" \
	"$(gpio_line "$dev" 63)" "toggle output"
toggle_load

done_testing
