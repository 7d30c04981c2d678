"""The page's section of the talk's whole matrix on its board class (matrix.json of
host/matrix.py, `make matrix-armhf`: Debian 13's armhf 6.12, standard and PREEMPT_RT, side by
side); host/report_html.py draws the page. The section is there only when the results hold
matrix.json (a run that measured those targets); the table is host/matrix.py's, cell for cell:
a figure only where its row fired on every set, the talk's figure only beside a row of the same
kind of method against the same reference, and Spearman's rho per target."""


def cell(c, rh):
    if not c["measured"]:
        return f"<td class=na>{rh.esc(c['why'])}</td>"
    pp = ""
    if c.get("per_pulse_ns") is not None:
        pp = f"<br>per pulse {rh.fmt_ns(c['per_pulse_ns'])}"
    return (f"<td class=num>{rh.fmt_ns(c['overhead_ns'])} ± {rh.fmt_ns(c['ci95_ns'])}"
            f"{pp}<br><span class=note>{rh.esc(c['fired'])}, n = {c['repetitions']}</span></td>")


def matrix_section(doc, rh):
    if doc is None:
        return ""
    ts = doc["targets"]
    labels = [t["label"] for t in ts]
    out = ["<section id=matrix><h2>The talk's matrix on its board class</h2>",
           rh.caveat_box(doc.get("emulated"), doc.get("timing")),
           "<p>Every method of gpiolat --overhead on "
           + rh.esc(", ".join(f"{t['label']} ({t['info'].get('release', '-')}, preemption "
                              f"{t['info'].get('preempt', '-')})" for t in ts))
           + ", side by side: ns added per set, ± 95 % CI, n = repetitions; a figure only "
           "where the row proved its method fired on every set it measured (or, uncounted, "
           "held its repetitions' spread to the bound; docs/overhead.md \"Fired\"). The talk's "
           "figure (oscilloscope, BeagleBone Black, 6.1.26-rt8) stands beside a row only when "
           "it measured the same kind of method against the same reference.</p><ul>"]
    for t in ts:
        tr = t["talk_rank"]
        rho = "-" if tr["rho"] is None else f"{tr['rho']:+.3f}"
        out.append(f"<li><b>{rh.esc(t['label'])}</b>: {rh.esc(t['userspace'])}; untraced "
                   f"{rh.fmt_ns(t['untraced_ns_per_set'])} per set; {t['measured']} of "
                   f"{t['rows']} rows measured; Spearman's rho against the talk's order "
                   f"<b>{rho}</b> over {tr['n']} rows</li>")
    out.append("</ul><table><thead><tr><th>method</th><th>against</th>"
               + "".join(f"<th>{rh.esc(lb)}</th>" for lb in labels)
               + "<th>talk (same reference)</th></tr></thead><tbody>")
    for row in doc["rows"]:
        t = row["talk"]
        if t:
            per = " per pulse+" if t.get("per") == "pulse" else ""
            talk = (f"{rh.fmt_ns(t['overhead_ns'])}{per} ({rh.esc(t['row'])}, against "
                    f"{rh.esc(t['against'])})")
        else:
            talk = "-"
        out.append(f"<tr><td>{rh.esc(row['method'])}</td><td>{rh.esc(row['against'] or '-')}"
                   "</td>" + "".join(cell(row["targets"][lb], rh) for lb in labels)
                   + f"<td>{talk}</td></tr>")
    out.append("</tbody></table></section>")
    return "".join(out)
