"""No text a user reads cites the project's issue tracker (they have no such tracker): no
tracker number (the word with a number after it, a number in parentheses after a hash) nor the
word's possessive in any tracked file: the pages, the program's output and help, the docs, the
README, the scripts and the tests alike (history belongs in git)."""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# written in pieces so that this file does not match itself
WORD = "iss" + "ue"
# (the verb is allowed: "it issues 200 reads", "issue 5000 pulses")
CITE = re.compile(r"\b" + WORD + r"\s*#?\d{1,3}(?![\d-])|\b" + WORD + r"s\s*#\d|\b" + WORD
                  + r"'s\b|\(#\d+\)", re.IGNORECASE)


def tracked():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                         check=True).stdout.decode()
    return [p for p in out.split("\0") if p]


def test_no_file_cites_an_issue_number():
    hits = []
    for p in tracked():
        path = os.path.join(ROOT, p)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if CITE.search(line):
                hits.append(f"{p}:{n}: {line.strip()[:100]}")
    assert hits == []


def test_the_pattern_finds_what_it_should():
    for s in ("see " + WORD + " 13", WORD.title() + " 18 measured", "(" + "#27)",
              "the " + WORD + "'s two commands", WORD + " #4"):
        assert CITE.search(s), s
    for s in ("a worker " + WORD + "s 1-byte reads", "it " + WORD + "s 20000 pulses",
              WORD + " 5000 pulses", WORD + "s 13 reads"):
        assert not CITE.search(s), s
