#!/bin/sh
# Target side (POSIX sh): the talk's whole overhead matrix on this target, with the user space it
# ran on, measured here rather than typed. Usage: study/matrix.sh OUTDIR [GPIOLAT-OPTIONS...]
#
#   target.txt     key=value lines: the kernel (release, preemption model as uname -v says it),
#                  the Debian release of this root (/etc/debian_version, os-release's codename),
#                  and for ply, bpftrace, libgpiod's tools and strace: the version the tool
#                  prints (its --version's first line) and the one dpkg has installed (empty
#                  when absent)
#   overhead.json  gpiolat --overhead --json with GPIOLAT-OPTIONS (default --quick): every
#                  method, each measured or "not available" with why
#   overhead.err   gpiolat's stderr
# Needs the toggle module loaded and idle (the emulated target's init loads it). Exit status:
# gpiolat's (1 when it failed; 2 for usage).
set -u
cd "$(dirname "$0")/.."

out=${1:?usage: study/matrix.sh OUTDIR [GPIOLAT-OPTIONS...]}
shift
[ $# -gt 0 ] || set -- --quick
[ "$(id -u)" = 0 ] || {
	echo "study/matrix.sh: must run as root" >&2
	exit 1
}
[ -x ./gpiolat ] || {
	echo "study/matrix.sh: no ./gpiolat: run make first" >&2
	exit 1
}
mkdir -p "$out" || exit 1
rm -f "$out/target.txt" "$out/overhead.json" "$out/overhead.err"

# first line of a command's version output, or empty when the command is not here
said() {
	command -v "$1" >/dev/null 2>&1 || return 0
	"$@" 2>&1 | head -n 1
}
# the installed version of Debian package $1, or empty
deb() {
	dpkg-query -W -f '${Version}' "$1" 2>/dev/null || :
}
{
	echo "release=$(uname -r)"
	echo "machine=$(uname -m)"
	case $(uname -v) in
	*PREEMPT_RT*) echo "preempt=PREEMPT_RT" ;;
	*PREEMPT_DYNAMIC*) echo "preempt=PREEMPT_DYNAMIC" ;;
	*PREEMPT*) echo "preempt=PREEMPT" ;;
	*) echo "preempt=none" ;;
	esac
	echo "debian_version=$(cat /etc/debian_version 2>/dev/null)"
	echo "os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}")"
	echo "ply=$(said ply --version)"
	echo "ply_deb=$(deb ply)"
	echo "bpftrace=$(said bpftrace --version)"
	echo "bpftrace_deb=$(deb bpftrace)"
	echo "libgpiod=$(said gpiodetect --version)"
	echo "libgpiod_deb=$(deb gpiod)"
	echo "strace=$(said strace -V)"
	echo "strace_deb=$(deb strace)"
	echo "emulated=${GPIOLAT_TARGET:-}"
} >"$out/target.txt"
sed -e 's/^/  TARGET  /' "$out/target.txt" >&2

start=$(date +%s)
./gpiolat --overhead --json "$@" >"$out/overhead.json" 2>"$out/overhead.err"
rc=$?
echo "seconds=$(($(date +%s) - start))" >>"$out/target.txt"
[ $rc = 0 ] || tail -n 3 "$out/overhead.err" >&2
exit $rc
