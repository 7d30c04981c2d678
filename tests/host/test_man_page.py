"""gpiolat(8) against every mode's --help, both ways (needs ./gpiolat built: make loader).

Each mode's options, as its --help defines them (the lines that start with the option), must be
exactly the options of that mode's section in docs/gpiolat.8 (".SS --MODE options"; the
histogram mode's sections are the ones not named after a mode), short letters included: an
option the page lacks, or one the page names that the mode no longer has, fails. The modes
themselves: those `gpiolat --help` lists under "Other modes" must be the MODES section's,
and each must have its own options section. A letter must mean one option in every mode.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))
MAN = os.path.join(ROOT, "docs", "gpiolat.8")

# the mode's flag -> the arguments that print its help
MODES = {"": ["--help"], "--overhead": ["--overhead", "--help"],
         "--syscall-cost": ["--syscall-cost", "--help"], "--path": ["--path", "--help"],
         "--wakeup": ["--wakeup", "--help"], "--gaps": ["--gaps", "--help"]}
# modes whose options are another mode's (gpiolat --syscall-hist --help is --syscall-cost's)
SAME_AS = {"--syscall-hist": "--syscall-cost", "--empty-raw-tp": "--syscall-cost"}
OPT = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")

pytestmark = pytest.mark.skipif(not os.access(GPIOLAT, os.X_OK),
                                reason="./gpiolat is not built (make loader)")


def help_text(*args):
    r = subprocess.run([GPIOLAT, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def help_options(text, group=None):
    """{option: its short letter or None} of the lines that define options (argp puts them at
    column 2 or 6; descriptions start further right); with group, only under that heading"""
    opts, inside = {}, group is None
    for line in text.splitlines():
        if group is not None and not line.strip():
            inside = False
            continue
        if group is not None and re.match(r"^ \S", line):
            inside = line.strip().startswith(group)
            continue
        m = re.match(r"^  (-\w), (--[\w-]+)|^      (--[\w-]+)", line)
        if m and inside:
            if m.group(3):
                opts[m.group(3)] = None
            else:
                opts[m.group(2)] = m.group(1)
    return opts


def man_sections():
    """the page's sections: {".SH name": [lines]} and OPTIONS' {".SS name": [lines]}"""
    sh, ss, cur_sh, cur_ss = {}, {}, None, None
    for line in open(MAN).read().replace("\\-", "-").splitlines():
        if line.startswith(".SH "):
            cur_sh, cur_ss = line[4:].strip('"'), None
            sh[cur_sh] = []
        elif line.startswith(".SS ") and cur_sh == "OPTIONS":
            cur_ss = line[4:].strip('"')
            ss[cur_ss] = []
        elif cur_sh:
            sh[cur_sh].append(line)
            if cur_ss:
                ss[cur_ss].append(line)
    return sh, ss


def tags(lines):
    """the options in the tag lines of .TP entries: {option: its short letter or None}"""
    out = {}
    for i, line in enumerate(lines[:-1]):
        if line.strip() == ".TP":
            found = OPT.findall(re.sub(r"\\f[A-Z]", " ", lines[i + 1]))
            longs = [o for o in found if o.startswith("--")]
            shorts = [o for o in found if not o.startswith("--")]
            for o in longs:
                out[o] = shorts[0] if shorts else None
    return out


def man_options():
    """{mode flag or "": {option: letter}} from OPTIONS' sections"""
    _, ss = man_sections()
    by_mode = {}
    for name, lines in ss.items():
        m = re.match(r"(--[\w-]+) options$", name)
        by_mode.setdefault(m.group(1) if m else "", {}).update(tags(lines))
    return by_mode


def mode_flags():
    return set(help_options(help_text("--help"), "Other modes"))


def test_every_mode_is_on_the_page_and_in_help():
    flags = mode_flags()
    assert {"--overhead", "--path", "--wakeup", "--gaps", "--syscall-cost", "--syscall-hist",
            "--empty-raw-tp"} <= flags, flags
    sh, _ = man_sections()
    listed = set(tags(sh["MODES"]))
    # MODES also describes --self-test, an option of the histogram mode (checked below)
    assert flags == listed - {"--self-test"}, (flags, listed)
    man = man_options()
    # --cleanup, a mode of main.c's table, takes no option of its own: no '.SS' section
    for flag in flags - {"--cleanup"}:
        assert (SAME_AS.get(flag, flag)) in man, f"docs/gpiolat.8: no '.SS {flag} options'"


@pytest.mark.parametrize("mode", sorted(MODES))
def test_mode_options_match_the_page_both_ways(mode):
    flags = mode_flags()
    ours = {o: s for o, s in help_options(help_text(*MODES[mode])).items()
            if o not in flags}
    page = {o: s for o, s in man_options()[mode].items() if o not in flags}
    assert len(ours) > 5, ours
    name = f"gpiolat {mode} --help" if mode else "gpiolat --help"
    assert sorted(set(ours) - set(page)) == [], f"{name}: options not in docs/gpiolat.8"
    assert sorted(set(page) - set(ours)) == [], f"docs/gpiolat.8: options {name} lacks"
    assert {o: s for o, s in page.items()} == ours, f"{name}: short letters differ from the page"


def test_a_letter_means_one_option_in_every_mode():
    meaning = {}
    for mode, args in MODES.items():
        for o, s in help_options(help_text(*args)).items():
            if s:
                meaning.setdefault(s, set()).add(o)
    assert {s: o for s, o in meaning.items() if len(o) > 1} == {}
