#!/bin/sh
# targets: arm-6.12 arm-6.12-rt
# timing: icount
# Host side: the talk's whole overhead matrix on its board class, standard and PREEMPT_RT side by
# side: Debian 13's armhf 6.12 (targets arm-6.12 and arm-6.12-rt, Debian 13's armhf root with
# Debian's ply, bpftrace, libgpiod 2 and strace), each booted once in the deterministic mode
# (TIMING=icount, docs/timing.md), where tests/target/matrix-rows.sh runs study/matrix.sh (every
# method of gpiolat --overhead, $MATRIX_ARGS, default --quick: 3 repetitions of 50-pulse phases;
# the user space's versions as measured there) and checks the matrix there (test 80's rule: each
# method measured, or not available for a reason verified without gpiolat; every counted row fired
# on every set; the ply rows and bpftrace twins measured). Then host/matrix.py puts the two side by
# side, beside the talk, with Spearman's rho per kernel, into out/tests/matrix-armhf/report.
# Run once by tests/run.sh when both targets are in its tier; they must be built (make all target
# ARCH=arm KERNEL=6.12, KERNEL=6.12-rt).
#
# The criteria here, on the host, chosen before the first run (all exact: no timing is judged
# here, so no false failures; the timings' own criteria are test 80's, on the target):
# - each target's checks passed (its "not ok" lines are this test's);
# - the two kernels in order, their preemption models as they say (none vs PREEMPT_RT);
# - the user space measured, not typed: ply, bpftrace and libgpiod's versions as the tools print
#   them on the target, and the Debian versions dpkg gave there equal to those of the root's own
#   dpkg status read here on the host (out/target/arm-KERNEL/userspace names the root);
# - the talk's figure beside exactly the rows the loader's rule names (the same kind of method
#   against the same reference: docs/overhead.md's pairs), on both kernels alike, and beside no
#   BPF, bpftrace or ply row;
# - Spearman's rho printed per kernel over those rows, all of them measured on both kernels.
set -u
cd "$(dirname "$0")/../.."
out=out/tests/matrix-armhf
rm -rf $out
mkdir -p $out
args=${MATRIX_ARGS:---quick}
kernels="6.12 6.12-rt"
. tests/compare/boots.sh
VM_TIMEOUT=${VM_TIMEOUT:-2400}
# boots puts each kernel's folder last: the options go by MATRIX_ARGS (matrix-rows.sh reads them
# when it is given the folder alone)
boots matrix-armhf env MATRIX_ARGS="$args" sh tests/target/matrix-rows.sh
set --
for k in $kernels; do
	# the target's own checks, as this test's
	sed -n -e "s/^\(ok\|not ok\|skip\) - /\1 - matrix-armhf: arm-$k: /p" $out/arm-$k.log
	set -- "$@" "arm-$k=$out/arm-$k"
done
[ -s $out/arm-6.12/overhead.json ] && [ -s $out/arm-6.12-rt/overhead.json ] || exit 0
if python3 host/matrix.py $out/report icount "$@" >$out/report.log 2>&1; then
	echo "ok - matrix-armhf: host/matrix.py puts them side by side"
else
	echo "not ok - matrix-armhf: host/matrix.py exits non-zero ($out/report.log)"
	tail -n 5 $out/report.log | sed -e 's/^/# /'
	exit 0
fi
sed -e 's/^/# /' $out/report/matrix.txt
python3 - $out out/target <<'PY'
import json
import os
import sys

sys.path.insert(0, "host")
import results  # noqa: E402

out, tdir = sys.argv[1:]
m = results.load(f"{out}/report/matrix.json", "matrix")
text = open(f"{out}/report/matrix.txt").read()


def check(what, cond, detail=""):
    print(f"{'ok' if cond else 'not ok'} - matrix-armhf: {what}"
          f"{' (' + detail + ')' if detail else ''}")
    return cond


ts = m["targets"]
labels = [t["label"] for t in ts]
check("two kernels side by side, standard then RT", labels == ["arm-6.12", "arm-6.12-rt"],
      str(labels))
pre = [t["info"].get("preempt") for t in ts]
check("their preemption models as the kernels say (standard not RT, RT PREEMPT_RT)",
      len(pre) == 2 and pre[0] != "PREEMPT_RT" and pre[1] == "PREEMPT_RT", str(pre))
check("the matrix says it is emulated", m["emulated"] is True and "EMULATED" in text)


def dpkg_status(root):
    """{package: version} of the installed packages of ROOT's dpkg status"""
    got, pkg, ver, inst = {}, None, None, False
    status = open(os.path.join(root, "var/lib/dpkg/status"), errors="replace").read()
    for ln in status.split("\n") + [""]:
        if not ln:
            if pkg and ver and inst:
                got[pkg] = ver
            pkg, ver, inst = None, None, False
        elif ln.startswith("Package: "):
            pkg = ln[9:].strip()
        elif ln.startswith("Version: "):
            ver = ln[9:].strip()
        elif ln.startswith("Status: "):
            inst = ln.endswith(" installed")
    return got


for t in ts:
    info, lb = t["info"], t["label"]
    root = open(os.path.join(tdir, lb, "userspace")).read().strip()
    st = dpkg_status(root)
    check(f"{lb}: its Debian release measured there ({info.get('debian_version')}) is its "
          f"root's", info.get("debian_version") ==
          open(os.path.join(root, "etc/debian_version")).read().strip(), root)
    for tool, pkg in (("ply", "ply"), ("bpftrace", "bpftrace"), ("libgpiod", "gpiod"),
                      ("strace", "strace")):
        said, deb = info.get(tool, ""), info.get(tool + "_deb", "")
        check(f"{lb}: {tool}'s version measured there: '{said}', dpkg {deb}",
              bool(said) and bool(deb) and deb == st.get(pkg),
              f"the root's dpkg status: {pkg} {st.get(pkg)}")

# docs/overhead.md's pairs: our row and the talk's row of the same kind against the same reference
PAIRS = {"event", "event-filter", "event-trigger", "event-hist", "kprobe", "function",
         "function_graph", "trace_printk", "user-ioctl-syscall-events", "user-ioctl-uprobe",
         "user-ioctl-trace-marker", "user-ioctl-strace"}
beside = {r["method"] for r in m["rows"] if r["talk"]}
check("the talk's figure beside exactly the rows of the same kind against the same reference",
      beside == PAIRS, f"extra {sorted(beside - PAIRS)}, missing {sorted(PAIRS - beside)}")
tools = [r for r in m["rows"] if r["method"].startswith(("bpf-", "bpftrace-", "ply-"))]
check("no talk figure beside a BPF, bpftrace or ply row",
      tools and all(r["talk"] is None for r in tools), f"{len(tools)} such rows")
for r in m["rows"]:
    if r["method"] in PAIRS:
        cells = [r["targets"][lb] for lb in labels]
        check(f"{r['method']}: measured on both kernels, beside the talk's "
              f"{r['talk']['overhead_ns']:.0f} ns" if r["talk"] else f"{r['method']}",
              all(c["measured"] for c in cells),
              ", ".join(f"{c.get('overhead_ns', c.get('why'))}" for c in cells))
for t in ts:
    tr = t["talk_rank"]
    words = results.rank_words(tr)
    check(f"{t['label']}: Spearman's rho printed, over the {len(PAIRS)} rows beside the talk",
          tr["n"] == len(PAIRS) and tr["rho"] is not None and f"{t['label']}: {words}" in text,
          words)
PY
