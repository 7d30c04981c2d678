#!/bin/sh
# timing: icount
# gpiolat --gaps: the gap's state is one record shared by every CPU (bpf/gaps.bpf.c). The tp_btf
# programs change it under a bpf_spin_lock; the raw_tp programs cannot take one (the kernel
# refuses bpf_spin_lock there) and count every set they handle unlocked; a cause the full table
# cannot take is counted with its time. Each hook the target loads runs: tp_btf (where the
# kernel has BTF-typed tracepoints and trampolines; not 32-bit ARM) must count no unlocked set,
# raw_tp must count every set; no cause is dropped (a table of 1024 causes, a few dozen used).
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/46-gaps-lock
mkdir -p $tmp
out=$tmp/out.json
err=$tmp/err
# jnum KEY: the last integer KEY in the JSON
jnum() {
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$out" | head -n 1
}
jstr() {
	sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$out" | head -n 1
}

toggle_load mode=continuous
for variant in default raw_tp; do
	args=
	[ $variant = raw_tp ] && args=--raw-tp
	./gpiolat --gaps --threshold 20us --pulses 5000 --json $args >$out 2>$err
	eq "gaps ($variant): exit status" "$?" 0
	hook=$(jstr hook)
	sets=$(jnum sets)
	eq "gaps ($variant, $hook): every set seen" "$sets" 10000
	if [ "$hook" = tp_btf ]; then
		eq "gaps ($variant, tp_btf): no set handled without the lock" "$(jnum unlocked_sets)" 0
	else
		eq "gaps ($variant, $hook): every set counted as handled without a lock" \
			"$(jnum unlocked_sets)" "${sets:-none}"
	fi
	eq "gaps ($variant, $hook): causes dropped" "$(jnum cause_drops)" 0
	eq "gaps ($variant, $hook): their time" "$(jnum cause_drop_ns)" 0
	check "gaps ($variant, $hook): some gaps over 20 us to attribute ($(jnum gaps_over))" \
		[ "$(jnum gaps_over)" -ge 1 ]
done
# the text output says it too
./gpiolat --gaps --threshold 20us --pulses 500 >$tmp/out.txt 2>&1
check "gaps: the text output counts the dropped causes" \
	grep -q '^causes dropped (the table full): 0, 0.0 us$' $tmp/out.txt
toggle_load
done_testing
