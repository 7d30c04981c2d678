#!/bin/sh
# The talk's whole matrix on this target, checked where it was measured: run by
# tests/compare/matrix-armhf.sh (not by tests/run.sh on its own: its name has no number) on
# Debian 13's armhf 6.12, standard and PREEMPT_RT, in TIMING=icount. Usage: matrix-rows.sh
# OUTDIR [GPIOLAT-OPTIONS...] (default --quick). study/matrix.sh measures every method and the
# user space's versions into OUTDIR; tests/target/overhead_rows.py then holds the matrix to test
# 80's rule (every method measured, or not available for a reason verified here without asking
# gpiolat: the kernel's configuration, or a tool this root's apt has no candidate for; every
# counted row fired on every set; the talk beside a row only with its reference; control 0
# within its 99.9 % CI), and the talk's tools are held to run here: the ply rows and the
# bpftrace twins measured (Debian 13 packages ply and bpftrace for armhf: test 87's
# release_tool decides the same where it does not).
. "$(dirname "$0")/lib.sh"
need python3
dir=${1:?usage: tests/target/matrix-rows.sh OUTDIR [GPIOLAT-OPTIONS...]}
shift
# no options after OUTDIR: those of $MATRIX_ARGS (tests/compare/boots.sh puts OUTDIR last)
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- ${MATRIX_ARGS:-}
cd "$PROJ" || exit 1
start=$(date +%s)
sh study/matrix.sh "$dir" "$@"
rc=$?
what="$(($(date +%s) - start)) s of the guest's clock, gpiolat --overhead ${*:---quick}"
eq "study/matrix.sh exits 0 ($what)" $rc 0
comment "$dir/overhead.err"
[ -s "$dir/overhead.json" ] || done_testing
n=$(./gpiolat --overhead --list | grep -vc 'only when --only names it')
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target \
	python3 tests/target/overhead_rows.py "$dir/overhead.json" "$n" || _failed=1
tools=
release_tool ply ply && tools="ply-delta ply-dt-kprobe ply-delta-event"
release_tool bpftrace bpftrace && tools="$tools bpftrace-delta bpftrace-dt-kprobe"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 - "$dir/overhead.json" \
	$tools <<'PY' || _failed=1
import json, sys
from rows import line, done
rows = {r["method"]: r for r in json.load(open(sys.argv[1]))["methods"]}
for m in sys.argv[2:]:
    r = rows.get(m) or {}
    line(r.get("measured") is True, f"{m}: the talk's tool measured here "
         f"({r.get('overhead_ns', r.get('not_available') or r.get('not_measured'))})")
done()
PY
done_testing
