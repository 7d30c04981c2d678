#!/bin/sh
# Host: one PNG of gpiolat --path --csv (docs/gpio-path.md): ns per set of each toggler, a bar
# with its 95 % interval, log scale; the title says when the figures are from an emulated target.
#
#   sh host/gpio-path-plot.sh out/results/gpio-path.csv out/results/gpio-path.png
set -e
csv=${1:?usage: gpio-path-plot.sh CSV PNG}
png=${2:?usage: gpio-path-plot.sh CSV PNG}
command -v gnuplot >/dev/null || { echo "gpio-path-plot.sh: gnuplot is not installed" >&2; exit 1; }
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# name, mean, ci (the quoted toggler description holds commas: fields counted from the end)
awk -F, '$1 == "toggler" { print $2, $(NF - 7), $(NF - 6) }' "$csv" >"$dat"
[ -s "$dat" ] || { echo "gpio-path-plot.sh: no toggler rows in $csv" >&2; exit 1; }
title="gpiolat --path: ns per set, mean and 95 % interval"
grep -q EMULATED "$csv" && title="$title (EMULATED target: not hardware timings)"
gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output "$png"
set title "$title"
set logscale y
set ylabel "ns per set (log scale)"
set style fill solid 0.6
set boxwidth 0.6
set grid ytics
set xtics rotate by -30
plot "$dat" using 0:2:xtic(1) with boxes notitle, \
     "$dat" using 0:2:3 with yerrorbars lc rgb "black" notitle
GP
echo "$png"
