#!/bin/sh
# gpiolat --overhead, the user-space rows: utoggle --control on a free line of toggle-vchip,
# each row measured or "not available" for a reason verified on its own (rows.py); strace costs more than the syscall
# events; the trace_marker writes stay in our instance (nothing in the top-level buffer); no
# utoggle or strace left running.
. "$(dirname "$0")/lib.sh"
need python3
cd "$PROJ" || exit 1

out=$PROJ/out/tests/82-overhead-user
mkdir -p "$(dirname "$out")"

# the control protocol by hand: ready line, one phase, quit
printf 'run 20\nrun 5 marker\nquit\n' | "$UTOGGLE" --control -l 1 >"$out.ctl" 2>&1
eq "utoggle --control exits 0" "$?" 0
check "utoggle --control: 'ready pid=... exe=... probe=toggle_ioctl_v2_once offset=0x...'" \
	grep -E -q '^ready pid=[0-9]+ exe=/.*/utoggle probe=toggle_ioctl_v2_once offset=0x[0-9a-f]+$' "$out.ctl"
check "utoggle --control: 'run 20' answered with 4 batches' ns per set" \
	grep -E -q '^phase pulses=20 batches=4 ns_per_set=[0-9.]+(,[0-9.]+){3}$' "$out.ctl"
check "utoggle --control: 'run N marker' without -M is refused in one line" \
	grep -q "^error bad command 'run 5 marker'" "$out.ctl"
comment "$out.ctl"

markers_before=$(grep -c 'utoggle: set' $T/trace)
./gpiolat --overhead --quick --json --only 'user-*' >"$out.json" 2>"$out.err"
eq "gpiolat --overhead --only 'user-*' exits 0" "$?" 0
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 - "$out.json" <<'PY'
import json, sys
from rows import line, not_available, done
d = json.load(open(sys.argv[1]))
m = {r["method"]: r for r in d["methods"]}
want = ["user-ioctl-syscall-events", "user-ioctl-uprobe", "user-ioctl-trace-marker",
        "user-ioctl-strace", "user-ioctl-syscall-hist"]
line(sorted(m) == sorted(want), f"the user rows: {', '.join(m)}")
for n in want:
    r = m.get(n, {})
    if r.get("measured"):
        line(r["against"] == "untraced ioctl toggler" and r["batches"] > 0
             and isinstance(r["ci95_ns"], (int, float)),
             f"{n}: {r['overhead_ns']:.0f} +- {r['ci95_ns']:.0f} ns per set, "
             f"{r['percent_of_reference']:.0f} % of the {r['percent_of']}, {r['batches']} batches")
    else:
        not_available(r)
if "user_untraced_ns_per_set" in d:
    line(d["user_untraced_ns_per_set"] > 0,
         f"untraced ioctl toggler: {d['user_untraced_ns_per_set']:.0f} ns per set, sd "
         f"{d['user_noise_floor_sd_ns']:.0f} ns over {d['user_untraced_phases']} phases")
s, e = m.get("user-ioctl-strace", {}), m.get("user-ioctl-syscall-events", {})
if s.get("measured") and e.get("measured"):
    line(s["overhead_ns"] > e["overhead_ns"],
         f"strace ({s['overhead_ns']:.0f} ns) costs more than the syscall events ({e['overhead_ns']:.0f} ns)")
else:
    print("skip - strace vs syscall events: one of them not measured")
# like with like per pulse (docs/overhead.md "Per set, per pulse"): the uprobe fires once a
# pulse, so beside the talk's pulse+ (one entry and one return) stands ours per pulse
u, e = m.get("user-ioctl-uprobe", {}), m.get("user-ioctl-syscall-events", {})
for r, per in ((u, "pulse"), (e, "set")):
    if r.get("measured"):
        t, k = r.get("talk") or {}, 2 if per == "pulse" else 1
        # JSON numbers have 0.1 ns: k x a rounded figure is within k x 0.05 + 0.05 of it
        near = lambda a, b: a is not None and abs(a - b) <= 0.05 * k + 0.05 + 1e-9
        line(r.get("fires", "").startswith(per) and t.get("ours_per") == per
             and near(t.get("ours_ns"), k * r["overhead_ns"])
             and near(t.get("ours_ci95_ns"), k * r["ci95_ns"]),
             f"{r['method']}: fires per {per}; beside the talk's {t.get('overhead_ns')} ns "
             f"ours per {per} {t.get('ours_ns')} ns ({k} x {r['overhead_ns']:.1f} per set)")
done()
PY
[ $? = 0 ] || _failed=1
eq "the trace_marker writes left nothing in the top-level buffer" \
	"$(grep -c 'utoggle: set' $T/trace)" "$markers_before"
eq "no utoggle, strace or gpiolat --syscall-hist left running" \
	"$(ps -e -o comm= | grep -E -c -x 'utoggle|strace')" 0
eq "no uprobe events left" "$(wc -c <$T/uprobe_events)" 0

# what the user rows' probes fire on, counted in a trace of N pulses of utoggle: the uprobe and
# its return once a pulse (toggle_ioctl_v2_once: one call, one pulse), the ioctl at every set,
# and the call's entry before its set to 1 and its return after its set to 0 (outside our
# pulse+: the talk's function set 0 then 1, so its pulse+ held one of each). Exact counts.
N=100
I=$T/instances/gpiolat_fires
ready=$(echo quit | "$UTOGGLE" --control -l 1 -i 0)
exe=$(echo "$ready" | sed -n 's/.* exe=\([^ ]*\) .*/\1/p')
off=$(echo "$ready" | sed -n 's/.* offset=\(0x[0-9a-f]*\).*/\1/p')
if mkdir $I && echo "p:gpiolat_fires/once $exe:$off" >>$T/uprobe_events &&
	echo "r:gpiolat_fires/once_ret $exe:$off" >>$T/uprobe_events; then
	echo 1 >$I/events/gpiolat_fires/enable
	echo 1 >$I/events/syscalls/sys_enter_ioctl/enable
	echo 1 >$I/events/gpio/gpio_value/enable
	"$UTOGGLE" -l 1 -i 0 -b 5 -c $N >/dev/null
	echo 0 >$I/events/gpiolat_fires/enable
	echo 0 >$I/events/syscalls/sys_enter_ioctl/enable
	echo 0 >$I/events/gpio/gpio_value/enable
	grep -v '^#' $I/trace >"$out.fires"
	eq "$N pulses: uprobe entries on toggle_ioctl_v2_once (once a pulse)" \
		"$(grep -c ' once: ' "$out.fires")" $N
	eq "$N pulses: its returns (once a pulse)" "$(grep -c ' once_ret: ' "$out.fires")" $N
	eq "$N pulses: sets to 1 on the line" "$(grep -c 'gpio_value: .* set 1' "$out.fires")" $N
	check "$N pulses: an ioctl at every set ($(grep -c 'sys_ioctl(' "$out.fires") >= $((2 * N)))" \
		test "$(grep -c 'sys_ioctl(' "$out.fires")" -ge $((2 * N))
	# one pulse in order: entry, ioctl, set 1, ioctl, set 0, return
	seq=$(grep -A5 -m2 ' once: ' "$out.fires" | tail -6 | awk '
		/ once_ret: / { printf "once_ret "; next }
		/ once: / { printf "once "; next }
		/sys_ioctl\(/ { printf "sys_ioctl "; next }
		/ set 1$/ { printf "set 1 "; next }
		/ set 0$/ { printf "set 0 " }')
	eq "one pulse: the entry before its set to 1, the return after its set to 0" "$seq" \
		"once sys_ioctl set 1 sys_ioctl set 0 once_ret "
	rmdir $I
	echo "-:gpiolat_fires/once" >>$T/uprobe_events
	echo "-:gpiolat_fires/once_ret" >>$T/uprobe_events
else
	notok "a uprobe event on $exe:$off in an instance of our own"
	rmdir $I 2>/dev/null
fi
eq "no uprobe events left after the count" "$(wc -c <$T/uprobe_events)" 0
done_testing
