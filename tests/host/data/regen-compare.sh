#!/bin/sh
# Host side: regenerate tests/host/data/compare/ from two real runs of the current loader,
# gpiolat --overhead --quick --json on x86_64 in TIMING=icount, on Debian 12's 6.1 (KERNEL=std)
# and on Debian testing's newest kernel and user space (KERNEL=testing), one boot after the
# other (about 5 min each on 2 shared cores, 2026-11-26). tests/host/test_compare.py compares
# them (host/compare.py). Each file is named after its kernel's major.minor, as its own
# "target" says (overhead-x86_64-6.1-icount.json). regen.sh runs this at its end.
# Usage: sh tests/host/data/regen-compare.sh
set -eu
cd "$(dirname "$0")/../../.."
data=tests/host/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in std testing; do
	make -s all target KERNEL=$k ARCH=x86_64
	TIMING=icount KERNEL=$k ARCH=x86_64 VM_NOMAKE=1 VM_TIMEOUT=1800 \
		vm/run ./gpiolat --overhead --quick --json </dev/null >"$tmp/$k.json"
	v=$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["target"]
assert t["timing"] == "icount" and t["machine"] == "x86_64", t
print(".".join(t["kernel"].split(".")[:2]))' "$tmp/$k.json")
	mv "$tmp/$k.json" "$tmp/overhead-x86_64-$v-icount.json"
done
mkdir -p "$data"
rm -f "$data"/overhead-x86_64-*-icount.json
mv "$tmp"/overhead-x86_64-*-icount.json "$data/"
echo "regen-compare: $(ls "$data") from $(git describe --always --dirty 2>/dev/null || echo '?')"
