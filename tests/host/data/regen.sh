#!/bin/sh
# Host side: regenerate the report fixtures that come from a real run of the current loader
# (never written by hand): gpiolat --overhead --json --quick in the emulated x86_64 target
# (about 5 min under emulation), through host/overhead.py as make overhead-report does, into
# tests/host/data/report/overhead.json; then make-fixtures.py, which derives rt.json's overhead
# subset and bench-gpio.json from it. Usage: sh tests/host/data/regen.sh
# Environment: KERNEL (default std), OVERHEAD_ARGS (default "--quick").
set -eu
cd "$(dirname "$0")/../../.."
data=tests/host/data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s all target KERNEL="${KERNEL:-std}" ARCH=x86_64
# shellcheck disable=SC2086
KERNEL=${KERNEL:-std} ARCH=x86_64 VM_NOMAKE=1 VM_TIMEOUT=1800 \
	vm/run ./gpiolat --overhead --json ${OVERHEAD_ARGS:---quick} </dev/null >"$tmp/raw.json"
python3 host/overhead.py "$tmp/raw.json" "$tmp/results" >/dev/null
cp "$tmp/results/overhead.json" "$data/overhead.json"
PYTHONDONTWRITEBYTECODE=1 python3 "$data/make-fixtures.py"
echo "regen: $data/overhead.json from $(git describe --always --dirty 2>/dev/null || echo '?')," \
	"and the fixtures derived from it"
