"""Host side: the GPIO hooks are listed once (loader/providers/gpio_hooks.h). What the host
scripts read at build time (out/gpio-hooks.json, host/gpio_hooks.c) is what `gpiolat --list
--json` prints on a target; every hook has its option, its overhead rows and make bench-gpio's,
and tests/target/kconfig-needs says for each of its rows what the table's kconfig column says."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))
sys.path.insert(0, os.path.join(ROOT, "host"))
sys.path.insert(0, os.path.join(ROOT, "tests", "target"))
import bench_gpio  # noqa: E402
import gpio_hooks  # noqa: E402
import rows  # noqa: E402


def run(*args):
    return subprocess.run([GPIOLAT, *args], capture_output=True, text=True, timeout=30)


def test_the_build_time_file_is_what_gpiolat_lists():
    p = run("--list", "--json")
    assert p.returncode == 0, p.stderr
    with open(gpio_hooks.PATH) as f:
        assert f.read() == p.stdout
    hooks = json.loads(p.stdout)["hooks"]
    assert [h["name"] for h in hooks] == gpio_hooks.NAMES
    assert len(set(gpio_hooks.NAMES)) == len(gpio_hooks.NAMES) >= 3
    # the text listing: the same names, in the same order
    t = run("--list")
    assert t.returncode == 0 and [ln.split()[0] for ln in t.stdout.splitlines()] == \
        gpio_hooks.NAMES


def test_every_hook_has_its_option_and_its_rows():
    helptext = run("--help").stdout
    listed = {ln.split()[0] for ln in run("--overhead", "--list").stdout.splitlines() if ln}
    for h in gpio_hooks.HOOKS:
        assert f"--{h['name']}" in helptext, h["name"]
        for kind in ("gpiolat", "empty", "floor", "plain"):
            assert h["rows"][kind] in listed, (h["name"], kind)
    # make bench-gpio's rows are all rows of the matrix, each hook's four among them
    assert set(bench_gpio.ROWS) <= listed
    for h in gpio_hooks.HOOKS:
        assert set(h["rows"].values()) <= set(bench_gpio.ROWS)
        assert all(r in bench_gpio.LABELS for r in h["rows"].values())


def test_two_hook_options_exclude_each_other():
    a, b = gpio_hooks.NAMES[-2:]
    p = run(f"--{a}", f"--{b}")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert f"--{a} and --{b} exclude each other" in p.stderr


def test_kconfig_needs_agrees_with_the_table():
    for h in gpio_hooks.HOOKS:
        for kind, row in h["rows"].items():
            assert rows.kconfig_needs(row) == h["kconfig"].split(), (h["name"], kind, row)


def test_the_methods_listed_as_json_are_the_text_listing():
    text = [ln.split()[0] for ln in run("--overhead", "--list").stdout.splitlines() if ln]
    p = run("--overhead", "--list", "--json")
    assert p.returncode == 0, p.stderr
    methods = json.loads(p.stdout)["methods"]
    assert [m["name"] for m in methods] == text
    assert len(p.stdout.splitlines()) == len(methods) + 2  # one method a line
    for h in gpio_hooks.HOOKS:
        assert {"name": h["rows"]["gpiolat"], "talk": h["talk"]}.items() <= \
            next(m for m in methods if m["name"] == h["rows"]["gpiolat"]).items()


def test_the_rows_that_register_kprobes_are_marked():
    """--overhead --list --json's "kprobes": a row's switches wait for the kprobe optimizer only
    where it is true (loader/providers/kopt.c), so it must be true exactly where the row registers
    a kprobe, by what the row is: the kprobe events provider, a GPIO program on the hook of the
    kprobe family, a script whose probe is a kprobe (its own text, in ply/); on a target test 93
    sees the kernel's list of kprobes while each lasting row's change is in place."""
    p = run("--overhead", "--list", "--json")
    assert p.returncode == 0, p.stderr
    family = {h["name"]: h["family"] for h in json.loads(run("--list", "--json").stdout)["hooks"]}
    marked = 0
    for m in json.loads(p.stdout)["methods"]:
        registers = m["provider"] == "kprobe events" or \
            (m["hook"] is not None and family[m["hook"]] == "kprobe")
        if m["script"]:
            with open(os.path.join(ROOT, m["script"])) as f:
                registers = registers or any(ln.startswith(("kprobe:", "kretprobe:"))
                                             for ln in f)
        assert m["kprobes"] == registers, m
        marked += registers
    # kprobe, kprobes-1..10, the four GPIO programs of the kprobe hook, two scripts
    assert marked >= 17, marked
