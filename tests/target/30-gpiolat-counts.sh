#!/bin/sh
# timing: icount
# Target: gpiolat loses nothing. For a fixed number of the toggle module's pulses, with each
# hook of the loader's table (gpiolat --list --json: tracepoint, kprobe, fentry, tp_btf; one the
# kernel's configuration lacks is excused by that check alone): pairs + unmatched == rising edges issued, sets seen ==
# edges issued, and the linear buckets plus their overflow sum to the log2 total, as do the fine
# (log-linear) buckets, which also sum to each log2 slot and give each pulse a bucket at most
# 1/32 of its low bound wide.
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
N=300
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# sumfield NAME: a key=value of the CSV summary comment
sumfield() {
	sed -n "s/^# summary .* $1=\([0-9]*\).*/\1/p" "$out" | head -n 1
}
# block_sum KIND: the counts of a CSV block (log2, linear or fine), plus the overflow
block_sum() {
	awk -v kind="$1" '
		/^# gpio=/ { inblk = ($0 ~ "kind=" kind " ") }
		inblk && /^[0-9]/ { s += $3 }
		inblk && /^# overflow/ { sub(/.*count=/, ""); s += $0 }
		END { print s + 0 }' "$out"
}
ours_left() {
	bpftool prog show 2>/dev/null | grep -c 'gpiolat_'
}

if [ ! -d "$D" ]; then
	skip "gpiolat zero loss: the toggle module is not loaded"
	done_testing
fi
hooks=$(GPIOLAT_EXE=$GPIOLAT gpio_hooks)
[ -n "$hooks" ] || notok "gpiolat --list --json names the hooks"
for m in $hooks; do
	set -- $(edges)
	r0=$1 f0=$2
	miss=$(kconfig_missing "bpf-gpiolat-$m")
	if [ -n "$miss" ]; then
		# the one excuse: the kernel's configuration lacks an option the hook needs
		if $GPIOLAT --$m -l toggle-vchip:0 --pulses 10 >"$out" 2>&1; then
			notok "$m: attached although the kernel lacks $miss"
		else
			skip "$m: the kernel has no $miss; gpiolat says: $(head -n 1 "$out")"
		fi
		continue
	fi
	if ! $GPIOLAT --$m -l toggle-vchip:0 --pulses $N --untraced 0 --linear 1us --csv \
		>"$out" 2>&1; then
		notok "$m: gpiolat --pulses $N ran: $(tail -n 1 "$out")"
		continue
	fi
	set -- $(edges)
	rising=$(($1 - r0))
	falling=$(($2 - f0))
	count=$(sumfield count)
	unmatched=$(sumfield unmatched)
	events=$(sumfield events)
	eq "$m: the module issued $N pulses" "$rising $falling" "$N $N"
	eq "$m: pairs + unmatched == rising edges issued" "$((count + unmatched))" "$rising"
	eq "$m: sets seen == edges issued" "$events" "$((rising + falling))"
	eq "$m: log2 total == pairs" "$(block_sum log2)" "$count"
	eq "$m: linear buckets + overflow == log2 total" "$(block_sum linear)" "$(block_sum log2)"
	eq "$m: fine buckets + overflow == log2 total" "$(block_sum fine)" "$(block_sum log2)"
	check "$m: gpiolat reports events lost 0" grep -q "sets seen: events lost 0$" "$out"
	eq "$m: no program of ours left loaded" "$(ours_left)" 0
done

# the text output: rows, summary with units, overhead and the talk's figures
if $GPIOLAT --pulses 100 -l toggle-vchip:0 --bpf-stats >"$out" 2>&1; then
	check "text: [low, high) count |bar| rows" grep -Eq '^ +\[[0-9]+, [0-9]+\) +: [0-9]+ +\|\**' "$out"
	check "text: summary with count, min, mean, p50, p90, p99, max in ns" grep -Eq \
		'count 100 pulses, min [0-9]+ ns, mean [0-9.]+ ns, p50 [0-9.]+ ns, p90 [0-9.]+ ns, p99 [0-9.]+ ns, max [0-9]+ ns' "$out"
	check "text: BPF run-time stats per program run (--bpf-stats)" grep -Eq \
		'^overhead: gpiolat_tp(_plain)? .* ran 200 times, mean [0-9.]+ ns per run' "$out"
	check "text: pulse-width shift with count and spread" grep -Eq \
		'^overhead: pulse-width shift [-+][0-9.]+ ns per set .*sd .* batches' "$out"
	# the talk's ply figure is on top of the enabled event: not beside our shift (against
	# nothing attached), and no sum along "against" (docs/overhead.md)
	check "text: no talk figure beside the shift (the talk's ply histogram is against event)" \
		grep -q "reference: none beside this shift (the talk's ply histogram is against event, not the untraced pulse)" "$out"
	if [ "${GPIOLAT_TARGET:-}" = emulated ]; then
		check "text: says the timings are emulated" grep -q 'emulated' "$out"
	fi
else
	notok "text: gpiolat --pulses 100 ran: $(tail -n 1 "$out")"
fi

# JSON: valid, and the same counts
if $GPIOLAT --kprobe --pulses 50 --untraced 0 --bpf-stats --json >"$out" 2>&1; then
	if command -v python3 >/dev/null; then
		check "json: one valid document with 50 pulses and no loss" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
l = [x for x in o["lines"] if x["gpio"] == o["toggle"]["gpio"]][0]
assert l["count"] == 50 and o["toggle"]["events_lost"] == 0, o
assert sum(b["count"] for b in l["log2"]) == 50
# the fine buckets: every pulse once, each log2 slot the sum of its fine buckets, and each
# bucket at most 1/32 of its low bound wide (or 1 ns)
fine = l["fine"]
assert sum(b["count"] for b in fine) == 50, fine
for s in l["log2"]:
    inside = [b for b in fine if b["low_ns"] >= s["low_ns"] and b["high_ns"] <= s["high_ns"]]
    assert sum(b["count"] for b in inside) == s["count"], (s, fine)
for b in [b for b in fine if b["high_ns"] is not None]:
    assert b["high_ns"] - b["low_ns"] <= max(1, b["low_ns"] // 32), b
assert o["method"] == "kprobe" and o["overhead"]["program"]["run_cnt"] == 100
assert o["overhead"]["program"]["bpf_stats"] is True
# the talk kprobe row is a kprobe event on top of the event, ours a BPF program against the
# untraced pulse: no talk overhead figure beside it, no sum (docs/overhead.md)
assert "reference_total" not in o["overhead"], o["overhead"]
refs = [r["method"] for r in o["overhead"]["reference"] if r["kind"] == "overhead"]
assert refs == [], refs
' "$out"
	else
		skip "json: no python3 to parse it"
	fi
else
	notok "json: gpiolat --json ran: $(tail -n 1 "$out")"
fi

# the plain run keeps BPF run-time stats off (they would add two clock reads to every run)
if $GPIOLAT --pulses 20 -l toggle-vchip:0 --untraced 0 >"$out" 2>&1; then
	check "text: BPF run-time stats off unless --bpf-stats" grep -q \
		'^overhead: BPF run-time stats off' "$out"
else
	notok "text: gpiolat --pulses 20 ran: $(tail -n 1 "$out")"
fi
done_testing
