#!/bin/sh
# gpiolat --overhead in real time, the mode a board runs: one row of each way a method is put in
# place and counted (the ring-buffer event, the kprobe event, the function tracer, gpiolat's BPF
# program, bpftrace; 82-overhead-user.sh has the user-space rows), each measured or "not
# available" for a reason the test verifies on its own (rows.py), each measured row fired on
# every set of its phases, and the untraced-vs-untraced control 0 within its 99.9 % CI against
# this machine's own real-time noise (80-overhead-matrix.sh runs every row of the matrix under
# icount, where the control is exact).
# Criteria, as 80's were in real time: the counts are exact (no false failure); the control's
# interval is the one statistical criterion, 1 false failure in 1000 runs by construction.
. "$(dirname "$0")/lib.sh"
need python3
cd "$PROJ" || exit 1

rows=control,event,kprobe,function,bpf-gpiolat-tracepoint,bpftrace-delta
out=$PROJ/out/tests/79-overhead-real-time.json
start=$(date +%s)
./gpiolat --overhead --quick --json --only "$rows" >"$out" 2>"$out.err"
eq "gpiolat --overhead --quick --only $rows exits 0" $? 0
echo "# $(($(date +%s) - start)) s for these rows (emulated)"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 tests/target/overhead_rows.py \
	"$out" "$(echo $rows | tr , '\n' | wc -l)"
[ $? = 0 ] || _failed=1
done_testing
