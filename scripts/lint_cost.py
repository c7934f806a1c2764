#!/usr/bin/env python3
"""Whole-process cost of `evokb lint` against the reference `kb_lint.py` and a baseline binary
(issue 10 point 3, issue 15's last row).

    python3 scripts/lint_cost.py --evokb target/release/evokb \\
        [--baseline /tmp/evokb.before] [--reference-tools DIR] [--kb DIR ...] [--runs 9]

Each knowledge base (default: the real sample, tests/data/tilelang-kb) is copied into a
scratch directory, `evokb init` and `evokb import` run on the copy, and then every command is
run --runs times, alternated (evokb, baseline, reference, evokb, ...) so that the load of a
shared machine falls on each alike:

- `evokb lint` (the binary under test) and `baseline lint` (another build, e.g. the one before
  a change), each on a copy imported by itself: the import kept the text-check verdicts of every record it
  judged and (since 92532e7) every repro script's syntax verdict; the untimed warm-up run of
  `evokb lint` keeps whatever an older build's import left out, so the timed runs recall them,
  as a pre-commit lint after an earlier lint does;
- `lint after import` (and `baseline after import`): `evokb lint` on the store exactly as its
  import left it (put back before each run): what the import kept is all it recalls;
- `evokb lint --fresh`, every record checked again (the cost of the first lint after the checks
  changed, i.e. after a new evokb build, or of one on a store that kept no verdicts);
- `kb_lint.py`, the reference, run from the copy's root when --reference-tools names a
  directory holding `.agents/tools/kb_lint.py` (the reference tools are not part of this
  repository; they are copied into the scratch copy, as the old tool expects to live there).

Prints, per command, the median wall time and the median CPU time (user + sys of the child)
and the ratio of each to the reference's (or the baseline's when there is no reference), and
the machine's load. Nothing is asserted. CPU time is the figure to compare on a busy machine.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd):
    """Runs cmd; returns (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def prepare(kb, evokb, scratch, tools):
    """A copy of kb in scratch, initialised and imported, with the reference tools beside it."""
    dst = os.path.join(scratch, os.path.basename(os.path.normpath(kb)))
    os.makedirs(scratch, exist_ok=True)
    shutil.copytree(kb, dst, symlinks=True, ignore=shutil.ignore_patterns(".evokb"))
    if tools:
        shutil.copytree(os.path.join(tools, ".agents"), os.path.join(dst, ".agents"),
                        dirs_exist_ok=True)
    for step in (["init"], ["import"]):
        p = subprocess.run([evokb, "--root", dst, *step], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit(f"evokb {step[0]} failed on {dst}:\n{p.stderr.decode(errors='replace')}")
    return dst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evokb", default=os.path.join(ROOT, "target/release/evokb"))
    ap.add_argument("--baseline", help="another evokb binary, timed alongside")
    ap.add_argument("--reference-tools",
                    help="a directory holding .agents/tools/kb_lint.py (the reference)")
    ap.add_argument("--kb", action="append",
                    help="knowledge base to lint (repeatable; default: the real sample)")
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    kbs = a.kb or [os.path.join(ROOT, "tests/data/tilelang-kb")]
    with tempfile.TemporaryDirectory(prefix="evokb-lint-cost-") as scratch:
        for i, kb in enumerate(kbs):
            # Each knowledge base's stores as the imports left them, put back before each run.
            kept = os.path.join(scratch, f"imported-{i}")
            dst = prepare(kb, a.evokb, os.path.join(scratch, "evokb"), a.reference_tools)
            # The store as the import left it, put back before each run of "lint after
            # import", so every such run is the first lint of a freshly imported store.
            firsts = {"lint after import": (a.evokb, dst)}
            cmds = [("evokb lint", [a.evokb, "--root", dst, "lint"])]
            # The same lint checking every record again, as the first lint of a store does
            # (remembered verdicts ignored; a build without --fresh has none to ignore).
            helptext = subprocess.run([a.evokb, "lint", "--help"], capture_output=True, text=True).stdout
            if "--fresh" in helptext:
                cmds.append(("evokb --fresh", [a.evokb, "--root", dst, "lint", "--fresh"]))
            if a.baseline:
                # On a copy of its own, imported by itself: two builds that keep their
                # verdicts in different formats would each drop the other's as unreadable
                # and check everything on every run.
                base = prepare(kb, a.baseline, os.path.join(scratch, "baseline"),
                               a.reference_tools)
                cmds.append(("baseline lint", [a.baseline, "--root", base, "lint"]))
                firsts["baseline after import"] = (a.baseline, base)
            for name, (binary, root) in firsts.items():
                shutil.copytree(os.path.join(root, ".evokb"), os.path.join(kept, name))
            ref = os.path.join(dst, ".agents/tools/kb_lint.py")
            if a.reference_tools and os.path.isfile(ref):
                cmds.append(("kb_lint.py", [sys.executable, ref]))
            times = {name: [] for name, _ in cmds}
            times.update({name: [] for name in firsts})
            for name, cmd in cmds:  # one warm-up run each (page cache, first exec)
                timed(cmd, dst)
            for _ in range(a.runs):
                for name, (binary, root) in firsts.items():
                    shutil.rmtree(os.path.join(root, ".evokb"))
                    shutil.copytree(os.path.join(kept, name), os.path.join(root, ".evokb"))
                    times[name].append(timed([binary, "--root", root, "lint"], root))
                for name, cmd in cmds:
                    times[name].append(timed(cmd, dst))
            load = " ".join(open("/proc/loadavg").read().split()[:3])
            print(f"{kb}: {a.runs} alternated runs, {os.cpu_count()} cores, load {load}")
            med = {n: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
                   for n, t in times.items()}
            against = "kb_lint.py" if "kb_lint.py" in med else cmds[-1][0]
            bw, bc = med[against]
            print(f"  {'command':<22} {'wall ms':>9} {'cpu ms':>9}  {'wall/' + against:>18}"
                  f" {'cpu/' + against:>17}")
            for n, (w, c) in med.items():
                print(f"  {n:<22} {w * 1e3:>9.1f} {c * 1e3:>9.1f}  {w / bw:>18.2f}"
                      f" {c / max(bc, 1e-6):>17.2f}")


if __name__ == "__main__":
    main()
