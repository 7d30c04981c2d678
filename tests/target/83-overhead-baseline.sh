#!/bin/sh
# timing: icount
# gpiolat --overhead --baseline FILE.csv: the user's own scope figures beside the in-system ones
# and the talk's; a bad file is one error line, exit status 2, and nothing touched.
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/83-overhead-baseline
mkdir -p $tmp
cat >$tmp/mine.csv <<'CSV'
# my board's scope figures
# method,kind,value,unit,sd,kernel,against,note
tracing-configured-rt,pulse,210.5,ns,3.1,6.6.0,,my untraced pulse
event,overhead,987,ns,,6.6.0,tracing-configured-rt,gpio:gpio_value
control,overhead,0,ns,1.5,6.6.0,untraced,by our method's name and reference
CSV
./gpiolat --overhead --quick --only control,event --baseline $tmp/mine.csv >$tmp/text 2>$tmp/err
eq "a run with --baseline exits 0" "$?" 0
check "text: yours beside the talk's for event" \
	grep -E -q '^event .*1190 ns \(event, against tracing-configured-rt\)  yours: 987 ns \(event, against tracing-configured-rt\)$' $tmp/text
check "text: yours by our method's name (control)" grep -E -q '^control .*yours: 0 ns \(control' $tmp/text
check "text: names the file" grep -q "yours (--baseline $tmp/mine.csv)" $tmp/text
# the one rule (loader/core/baseline.c): a figure stands beside a row only against the same
# reference; the user's pulse row is no overhead, so it is left out, and said why
check "text: yours left out, with why" \
	grep -E -q '^yours left out .*tracing-configured-rt \(a pulse figure, not an overhead\)' $tmp/text
comment $tmp/text

ls $T/instances >$tmp/inst.before
# bad FILE WHAT CONTENT: one line naming the problem, exit 2, no instance left
bad() {
	printf '%s\n' "$3" >$tmp/bad.csv
	./gpiolat --overhead --quick --only control --baseline $tmp/bad.csv >$tmp/out 2>$tmp/err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <$tmp/err)" = 1 ] && grep -q -- "$2" $tmp/err &&
		ls $T/instances | cmp -s - $tmp/inst.before && [ ! -s $tmp/out ]; then
		ok "bad baseline ($1): exit 2, one line: $(cat $tmp/err)"
	else
		notok "bad baseline ($1): exit $rc, stderr: $(cat $tmp/err)"
	fi
}
bad "7 columns" "want 8 columns" "event,overhead,1,ns,,6.1,x"
bad "kind" "bad kind 'width'" "event,width,1,ns,,6.1,,"
bad "value" "bad value 'fast'" "event,overhead,fast,ns,,6.1,,"
bad "unit" "bad unit 'us'" "event,overhead,1.2,us,,6.1,,"
bad "sd" "bad sd '-3'" "event,overhead,1,ns,-3,6.1,,"
bad "no rows" "no rows" "# only a comment"
./gpiolat --overhead --baseline $tmp/none.csv >$tmp/out 2>$tmp/err
eq "a missing baseline file: exit 2" "$?" 2
check "a missing baseline file: one line" test "$(wc -l <$tmp/err)" = 1
done_testing
