#!/usr/bin/env python3
"""Host: one PNG of `gpiolat --path --json` (docs/gpio-path.md): ns per set of each toggler, a
bar with its 95 % interval, log scale. The file is read through host/results.py (the one model),
drawn through its gnuplot(); the title carries its caveat when the figures are emulated.

    python3 host/gpio_path_plot.py out/results/gpio-path.json out/results/gpio-path.png

Exit status: 0 with the PNG's path on stdout; 1 with one line on stderr (not a --path file, no
measured toggler, no gnuplot); 2 for usage.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402  host/results.py: the model, the caveat, gnuplot

WHO = "gpio_path_plot.py"


def bars(doc):
    """(name, ns per set, 95 % interval) of every toggler that was measured"""
    return [(r["variable"], r["ns_per_set"], r.get("ns_per_set_ci95") or 0.0)
            for r in doc["rows"] if r["available"] and (r.get("ns_per_set") or 0) > 0]


def script(dat, png, emulated):
    title = "gpiolat --path: ns per set, mean and 95 % interval"
    if emulated:
        title += f" ({results.TITLE})"
    return f"""
set terminal pngcairo size 900,500 noenhanced
set output "{png}"
set title "{title}"
set logscale y
set ylabel "ns per set (log scale)"
set style fill solid 0.6
set boxwidth 0.6
set grid ytics
set xtics rotate by -30
plot "{dat}" using 0:2:xtic(1) with boxes notitle, \\
     "{dat}" using 0:2:3 with yerrorbars lc rgb "black" notitle
"""


def main(argv):
    if len(argv) != 3:
        print(f"usage: {WHO} PATH_JSON PNG", file=sys.stderr)
        return 2
    try:
        doc = results.load(argv[1], "path", missing_ok=False)
    except (results.BadResults, OSError) as e:
        print(f"{WHO}: {e}", file=sys.stderr)
        return 1
    rows = bars(doc)
    if not rows:
        print(f"{WHO}: {argv[1]}: no measured toggler", file=sys.stderr)
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".dat") as f:
        for name, v, ci in rows:
            f.write(f"{name} {v} {ci}\n")
        f.flush()
        if not results.gnuplot(script(f.name, argv[2], doc.get("emulated")), argv[2], WHO):
            return 1
    print(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main(WHO, main, sys.argv))
