#!/bin/sh
# Host side: the modules to load for MODULE..., in an order that works, from the kernel's own
# modules.dep (what depmod found each module needs): each module after everything it depends on,
# each once. Usage: vm/modorder.sh MODDIR MODULE...   (MODDIR: /lib/modules/RELEASE of the
# target; MODULE: a name as modprobe takes it, '-' and '_' alike)
# Prints one path a line, relative to MODDIR. A MODULE that modules.dep does not list is built
# into the kernel (modules.builtin) or missing: it is left out, the latter with a warning.
set -eu

dir=${1:?usage: vm/modorder.sh MODDIR MODULE...}
shift
[ -f "$dir/modules.dep" ] || { echo "vm/modorder.sh: no $dir/modules.dep (run depmod)" >&2; exit 1; }

for m in "$@"; do
	echo "$m"
done | awk -v dep="$dir/modules.dep" -v builtin="$dir/modules.builtin" '
	# name of a module path: kernel/fs/9p/9p.ko.xz -> 9p; "-" and "_" alike
	function name(p) {
		sub(/.*\//, "", p)
		sub(/\.ko(\.[a-z]+)?$/, "", p)
		gsub(/-/, "_", p)
		return p
	}
	# depth-first: a module after all it depends on (modules.dep lists them all, transitively)
	function visit(p,    n, i, d) {
		if (p in done)
			return
		if (p in busy) {
			print "vm/modorder.sh: dependency loop at " p > "/dev/stderr"
			exit 1
		}
		busy[p] = 1
		n = split(deps[p], d, " ")
		for (i = 1; i <= n; i++)
			visit(d[i])
		done[p] = 1
		print p
	}
	BEGIN {
		while ((getline line < dep) > 0) {
			p = line
			sub(/:.*/, "", p)
			rest = line
			sub(/^[^:]*:[ ]*/, "", rest)
			deps[p] = rest
			path[name(p)] = p
		}
		while ((getline line < builtin) > 0)
			inside[name(line)] = 1
	}
	{
		n = $0
		gsub(/-/, "_", n)
		if (n in path)
			visit(path[n])
		else if (!(n in inside))
			print "vm/modorder.sh: module " $0 " is neither in modules.dep nor built in" > "/dev/stderr"
	}'
