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
done()
PY
[ $? = 0 ] || _failed=1
eq "the trace_marker writes left nothing in the top-level buffer" \
	"$(grep -c 'utoggle: set' $T/trace)" "$markers_before"
eq "no utoggle, strace or gpiolat --syscall-hist left running" \
	"$(ps -e -o comm= | grep -E -c -x 'utoggle|strace')" 0
eq "no uprobe events left" "$(wc -c <$T/uprobe_events)" 0
done_testing
