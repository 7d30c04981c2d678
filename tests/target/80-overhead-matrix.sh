#!/bin/sh
# timing: icount
# gpiolat --overhead --quick: the whole matrix completes, and every method is either measured
# or "not available" for a reason the test verifies on its own (tests/target/rows.py: a tool not
# on PATH, a kernel option the target lacks); every measured row with a count of its method fired
# on every set of its phases; the untraced-vs-untraced control is 0 within its 99.9 % CI; the
# run, every kind of row in it, leaves tracefs, the module, BPF and the processes as found. In the
# deterministic mode (TIMING=icount): every criterion here is a count or a state but the
# control's, which holds there exactly (0 +- 0 ns: the untraced phases repeat to the instruction);
# the same rows in real time, against this machine's noise: 79-overhead-real-time.sh (a row of
# each way a method is counted) and 82-overhead-user.sh (the user-space rows). The whole matrix
# took 127 s of a real-time boot (one core, the other idle) and 92 s of a lane under icount.
# Then the invariants of the same matrix that hold on any machine (tests/target/
# overhead_invariants.py, its criteria and their false failures there): the series grow with
# their number, function_graph above function, each hook's empty BPF program no dearer than
# gpiolat's, the filter and the trigger not cheaper than the event, the control 0. They had a run
# of their own until 2026-11-28 (81-overhead-invariants.sh: the same sizes, 44 s of std's boot).
. "$(dirname "$0")/lib.sh"
need python3
cd "$PROJ" || exit 1

out=$PROJ/out/tests/80-overhead.json
overhead_snapshot >"$out.before"
start=$(date +%s)
./gpiolat --overhead --quick --json >"$out" 2>"$out.err"
rc=$?
eq "gpiolat --overhead --quick exits 0" "$rc" 0
echo "# $(($(date +%s) - start)) s for the quick matrix (emulated)"
# a whole run of every kind of row leaves tracefs, the module, BPF and the processes as found
# (lib.sh overhead_snapshot; 90-overhead-state.sh: after a signal or a kill mid-run)
overhead_snapshot >"$out.after"
as_before "$out.before" "$out.after" "after the whole matrix: tracefs and BPF as found" \
	"after the whole matrix: tracefs or BPF changed"
rm -f "$out.before" "$out.after"
# the rows of a run without --only: a part of a program's cost breakdown or a row of make
# bench-gpio only runs by its name
n=$(./gpiolat --overhead --list | grep -vc 'only when --only names it')
# every method: measured with a figure and a CI, or not available with a reason
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 tests/target/overhead_rows.py "$out" "$n"
[ $? = 0 ] || _failed=1
# the invariants, over the hooks of the loader's table (gpiolat --list --json)
GPIO_HOOKS=$(GPIOLAT_EXE=./gpiolat gpio_hooks)
check "gpiolat --list --json names the hooks ($(echo ${GPIO_HOOKS:-none}))" test -n "$GPIO_HOOKS"
GPIO_HOOKS=$GPIO_HOOKS PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target \
	python3 tests/target/overhead_invariants.py "$out"
[ $? = 0 ] || _failed=1
done_testing
