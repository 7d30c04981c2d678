"""The measuring modes' providers: loader/providers/ is below the modes. No
provider includes a mode's header or uses a mode's symbol (arrows only downward: modes ->
providers -> core), none keeps mutable state at file scope (what a provider holds is its
struct probe's, handed by pointer), and every provider is in the one model (a struct provider
named prov_*, declared in provider.h). The arrows are test_include_graph's (a header included,
or a symbol of another object used).

    python3 tests/host/test_graph_measuring.py    prints the arrows of providers/ and the two
                                                  measuring modes, and their mutable data
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_include_graph as g  # noqa: E402

PROVIDERS = os.path.join(g.LOADER, "providers")


def part(name):
    """providers, overhead, syscall, core, ... : the folder of loader/NAME.c"""
    path = g.where()[name]
    top = path.split(os.sep)[0]
    return path.split(os.sep)[1] if top == "modes" else top


def is_provider(name):
    return part(name) == "providers"


def measuring(name):
    return part(name) in ("providers", "overhead", "syscall")


@pytest.fixture(scope="module")
def loader_graph():
    import subprocess
    r = subprocess.run(["make", "-s", "-C", g.ROOT, "loader"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return g.graph()


def test_no_provider_includes_a_mode_header():
    bad = []
    for f in sorted(os.listdir(PROVIDERS)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(PROVIDERS, f)) as fh:
                bad += [f + ": " + h for h in g.INCLUDE.findall(fh.read()) if
                        h.startswith("modes/")]
    assert bad == []


def test_providers_point_only_downward(loader_graph):
    arrows, _ = loader_graph
    up = {n: sorted(w for w in arrows[n] if part(w) not in ("providers", "core"))
          for n in arrows if is_provider(n)}
    assert {n: w for n, w in up.items() if w} == {}


def test_no_cycle_among_the_providers(loader_graph):
    arrows, _ = loader_graph
    assert g.cycles(arrows, is_provider) == []


def test_no_hidden_state_in_the_providers(loader_graph):
    _, data = loader_graph
    assert {n: sorted(d) for n, d in data.items()
            if is_provider(n) and d} == {}


def test_every_provider_in_the_one_model():
    """each family file defines its providers as const struct provider prov_*, and provider.h
    declares every one of them"""
    with open(os.path.join(PROVIDERS, "provider.h")) as fh:
        declared = set(re.findall(r"\bprov_\w+", fh.read()))
    defined = set()
    for f in sorted(os.listdir(PROVIDERS)):
        if f.endswith(".c"):
            with open(os.path.join(PROVIDERS, f)) as fh:
                defined |= set(re.findall(r"^const struct provider (prov_\w+) =", fh.read(),
                                          re.M))
    assert len(defined) >= 17 and defined <= declared, (defined, declared)


if __name__ == "__main__":
    arrows, data = g.graph()
    for n in sorted(arrows, key=lambda n: (part(n), n)):
        if measuring(n):
            print("%s/%s -> %s" % (part(n), n, " ".join(sorted(arrows[n])) or "-"))
            if data[n]:
                print("    mutable: %s" % " ".join(sorted(data[n])))
    for c in g.cycles(arrows, measuring):
        print("cycle: " + " <-> ".join(c))
