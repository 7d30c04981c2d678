"""The loader's GPIO hooks (loader/providers/gpio_hooks.h, the one table of them), for the host
scripts: read from out/gpio-hooks.json, which make writes at build time with host/gpio_hooks.c
(the same listing as `gpiolat --list --json` on the target); built here with make when it is
missing or older than the table. HOOKS: each hook's entry, in the table's order."""
import json
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PATH = os.path.join(ROOT, "out", "gpio-hooks.json")
TABLE = [os.path.join(ROOT, "loader", "providers", f) for f in ("gpio_hooks.h", "gpio_hooks.c")]


def _load():
    if not os.path.exists(PATH) or any(os.path.getmtime(t) > os.path.getmtime(PATH)
                                       for t in TABLE):
        subprocess.run(["make", "-s", "-C", ROOT, "out/gpio-hooks.json"], check=True,
                       stdout=subprocess.DEVNULL)
    with open(PATH) as f:
        return json.load(f)["hooks"]


HOOKS = _load()
NAMES = [h["name"] for h in HOOKS]
BY_NAME = {h["name"]: h for h in HOOKS}
