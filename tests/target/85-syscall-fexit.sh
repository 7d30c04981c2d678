#!/bin/sh
# timing: icount
# gpiolat --syscall-cost -m bpf-empty-fexit (the method added to both measuring modes
# as one provider entry each; its --overhead row is in 80-overhead-matrix.sh): empty BPF fexit
# programs on the kernel functions of the worker's read, write and ioctl run, all three counted
# (--bpf-stats), or are "not available" only for a kernel option the target lacks (rows.py);
# nothing of them is left after the run.
. "$(dirname "$0")/lib.sh"
need python3
cd "$PROJ" || exit 1

out=$PROJ/out/tests/85-syscall-fexit
mkdir -p "$(dirname "$out")"
before=$(bpf_state)
./gpiolat --syscall-cost --json --bpf-stats --rounds 3 --batches 5 --batch 100 \
	-m control -m bpf-empty-fexit >"$out.json" 2>"$out.err"
eq "gpiolat --syscall-cost -m bpf-empty-fexit exits 0 ($(head -c 300 "$out.err"))" "$?" 0
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 - "$out.json" <<'PY'
import json, sys
from rows import line, not_available, done
d = json.load(open(sys.argv[1]))
names = [m["name"] for m in d["methods"]]
line(names == ["control", "bpf-empty-fexit"], f"the rows asked for, in the table's order: {names}")
for m in d["methods"]:
    if m["name"] != "bpf-empty-fexit":
        continue
    if m["available"]:
        b, a = m["bpf"], m["added_ns_per_syscall"]
        line(b["programs"] == 3 and b["run_cnt"] > 0 and b["mean_ns_per_run"] > 0,
             f"bpf-empty-fexit: measured, {a['mean_ns']:.0f} +- {a['ci95_ns']:.0f} ns (95 % CI) "
             f"per syscall added over {a['rounds']} rounds, {a['batches']} batches; "
             f"{b['programs']} programs, {b['run_cnt']} runs, mean {b['mean_ns_per_run']} ns a run "
             f"(emulated)")
    else:
        not_available({"method": m["name"], "not_available": m["reason"]})
done()
PY
[ $? = 0 ] || _failed=1
after=$(bpf_state)
eq "no BPF program or link of ours left" "$after" "$before"
done_testing
