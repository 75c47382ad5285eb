#!/usr/bin/env python3
"""Single-line mutations of a kernel's barrier statements, each checked.

For every statement of a role that waits, arrives or commits on a barrier
(wait, arrive, arrive_expect_tx, tcgen05_commit), three mutants: the line
deleted, its parity flipped (`parity E` -> `parity (E + 1) % 2`), and its
first non-zero barrier index made 0 (`s_cons[b]` -> `s_cons[0]`). Each mutant
is checked with check-kernel at the given parameters; a mutant that still
verifies is a bug the search does not see at that size, or a mutation that
changes nothing (a deleted wait that another wait covers). Prints one line
per mutant and a summary by outcome.

  harnesses/bench/checker/mutants.py KERNEL.bk [--param N=V ...] [--jobs J]
      [--check-kernel PATH] [--max-states N] [--timeout S]

Python 3 (Debian's python3); runs check-kernel on one thread per mutant,
J mutants at a time (default: every core).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

BARRIER_OP = re.compile(r"\b(wait|arrive|arrive_expect_tx|tcgen05_commit)\b")


def mutants(lines):
    out = []
    in_role = False
    for i, line in enumerate(lines):
        code = line.split("#")[0].rstrip()
        if code.startswith("role "):
            in_role = True
        if not in_role or not BARRIER_OP.search(code):
            continue
        out.append((i, "delete", None))
        m = re.search(r"parity (.+?)(\s+(acquire|relaxed)\b.*)?$", code)
        if m:
            expr = m.group(1).strip()
            out.append((i, "flip parity", code.replace("parity " + expr, "parity (" + expr + " + 1) % 2", 1)))
        for idx in re.finditer(r"(\w+)\[([^\]]+)\]", code):
            if idx.group(2).strip() != "0":
                out.append((i, "index of %s made 0" % idx.group(1), code[: idx.start(2)] + "0" + code[idx.end(2):]))
                break
    return out


def check(args, path):
    cmd = [args.check_kernel, path, "--threads", "1", "--json", "--max-states", str(args.max_states),
           "--timeout", str(args.timeout)]
    for p in args.param:
        cmd += ["--param", p]
    done = subprocess.run(cmd, capture_output=True, text=True)
    try:
        k = json.loads(done.stdout)["kernels"][0]
    except (ValueError, KeyError, IndexError):
        return "error", 0
    outcome = k.get("outcome", "error")
    if outcome == "violation":
        outcome = k.get("violation", outcome)
    return outcome, k.get("stats", {}).get("states", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--check-kernel", default="build/check-kernel")
    ap.add_argument("--max-states", type=int, default=20_000_000)
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    lines = open(args.kernel).read().split("\n")
    work = tempfile.mkdtemp()
    paths = []
    for n, (i, what, new) in enumerate(mutants(lines)):
        body = list(lines)
        if new is None:
            del body[i]
        else:
            body[i] = new
        path = os.path.join(work, "m%03d.bk" % n)
        with open(path, "w") as f:
            f.write("\n".join(body))
        paths.append((path, i + 1, what, lines[i].split("#")[0].strip()))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: check(args, p[0]), paths))
    counts = {}
    for (path, line, what, text), (outcome, states) in zip(paths, results):
        counts[outcome] = counts.get(outcome, 0) + 1
        print("%s line %d, %s: %-20s %9d states  | %s" % (os.path.basename(path), line, what, outcome, states, text))
    print("summary: %d mutants: %s" % (len(paths), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
