#!/bin/sh
# Host side: build the exact observer, vm/pl061-observer.c (a qemu TCG plugin), against the
# plugin API of the qemu installed here (make observer; part of make all).
#
#   sh vm/observer.sh OUT        OUT/observer/pl061-observer.so (HOSTCC, default gcc)
#
# Where the plugin cannot exist here, one line "  OBSERVER not available: WHY" and exit 0, so
# the rest of make proceeds; WHY is kept in OUT/observer/unavailable and no .so is left. That
# is: qemu-system-arm missing or without plugin support (its -help names no -plugin), the
# header not fetchable (vm/qemu-plugin-h.sh), or a header this plugin cannot compile against
# (it does not compile alone, or it has neither insn exec inline API). A compile error in the
# plugin itself is an error (exit 1): that is a bug, not a missing feature.
#
# The API is chosen by compile tests against the fetched header (features, never versions):
#   HAVE_INLINE_PER_VCPU  qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu with a scoreboard
#                         (else qemu_plugin_register_vcpu_insn_exec_inline on a uint64_t)
#   HAVE_INSN_DATA_COPY   qemu_plugin_insn_data(insn, dest, len) copies (else returns a pointer)
# The header may include <glib.h> (qemu 9 on): glib-2.0's flags from pkg-config (libglib2.0-dev).
set -eu

out=${1:?usage: vm/observer.sh OUT}
cc=${HOSTCC:-gcc}
src=vm/pl061-observer.c
hdir=$out/qemu-plugin-h
dir=$out/observer
so=$dir/pl061-observer.so
mkdir -p "$dir"
# one at a time: two makes at once (the main command's parts run two at a time) would share the
# probes' folder and the plugin
exec 9>"$dir/.lock"
flock 9

unavailable() {
	rm -rf "$so" "$dir/flags" "$dir/probe"
	echo "$*" >"$dir/unavailable"
	echo "  OBSERVER not available: $*"
	exit 0
}

command -v qemu-system-arm >/dev/null 2>&1 || unavailable "no qemu-system-arm (make deps)"
qemu-system-arm -help 2>/dev/null | grep -q '^-plugin ' ||
	unavailable "this qemu-system-arm has no plugin support (its -help has no -plugin)"
why=$(sh vm/qemu-plugin-h.sh "$hdir" 2>&1) || unavailable "$(echo "$why" | tail -n 1)"

glib=$(pkg-config --cflags glib-2.0 2>/dev/null) || glib=
probe=$dir/probe
rm -rf "$probe" && mkdir -p "$probe"
# probe NAME: compiles $probe/NAME.c (from stdin) against the header
probe() {
	cat >"$probe/$1.c"
	# shellcheck disable=SC2086
	$cc -Wall -Werror -fPIC $glib -I"$hdir" -c -o "$probe/$1.o" "$probe/$1.c" \
		2>"$probe/$1.log"
}
probe header <<'EOF' || {
#include <qemu-plugin.h>
EOF
	e=$(grep -m 1 'error' "$probe/header.log" || true)
	[ -n "$glib" ] || e="$e (glib-2.0 not in pkg-config: libglib2.0-dev, host/deps.sh)"
	unavailable "$hdir/qemu-plugin.h does not compile: $e"
}
flags=
if probe inline_per_vcpu <<'EOF'; then
#include <qemu-plugin.h>
void f(struct qemu_plugin_insn *insn, struct qemu_plugin_scoreboard *s);
void f(struct qemu_plugin_insn *insn, struct qemu_plugin_scoreboard *s)
{
	qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							    qemu_plugin_scoreboard_u64(s), 1);
}
EOF
	flags="$flags -DHAVE_INLINE_PER_VCPU"
elif ! probe inline <<'EOF'; then
#include <qemu-plugin.h>
void f(struct qemu_plugin_insn *insn, uint64_t *n);
void f(struct qemu_plugin_insn *insn, uint64_t *n)
{
	qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, n, 1);
}
EOF
	unavailable "$hdir/qemu-plugin.h declares no insn exec inline op (neither" \
		"qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu nor _inline)"
fi
if probe insn_data_copy <<'EOF'; then
#include <qemu-plugin.h>
size_t f(const struct qemu_plugin_insn *insn, void *w);
size_t f(const struct qemu_plugin_insn *insn, void *w)
{
	return qemu_plugin_insn_data(insn, w, 4);
}
EOF
	flags="$flags -DHAVE_INSN_DATA_COPY"
fi
rm -rf "$probe" "$dir/unavailable"

# rebuilt when the source, the header or the flags changed
echo "$cc $glib$flags" >"$dir/flags.new"
if [ -f "$so" ] && [ "$so" -nt "$src" ] && [ "$so" -nt "$hdir/qemu-plugin.h" ] &&
	cmp -s "$dir/flags.new" "$dir/flags"; then
	rm -f "$dir/flags.new"
	exit 0
fi
mv "$dir/flags.new" "$dir/flags"
printf '  %-8s %s\n' PLUGIN "$so"
# shellcheck disable=SC2086
$cc -Wall -Werror -O2 -fPIC -shared $glib$flags -I"$hdir" -o "$so.tmp" "$src" || {
	rm -f "$so.tmp" "$so"
	exit 1
}
mv "$so.tmp" "$so"
