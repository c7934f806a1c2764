#!/usr/bin/env python3
"""Two or more evokb builds' imports, alternated, each build on its own copy of a knowledge base.

    python3 scripts/import_ab.py --kb DIR --runs 3 OLD/evokb NEW/evokb            # fresh imports
    python3 scripts/import_ab.py --kb DIR --runs 9 --one-file OLD/evokb NEW/evokb # one-file edits

DIR is a knowledge base without its store (e.g. one `evokb-synth --files-per-topic` made, as
scripts/cost.py does). Each build gets a copy of DIR in a temporary directory, so no build
reads a store another build wrote (a store's derived caches are keyed by the build's formats).

--fresh (the default): each run removes the copy's store, runs `init`, and times `import`,
printing wall time, CPU (user + sys) and the peak RSS of the import (from wait4).
--one-file: each build first imports its copy once; then each run flips one entry's status in
the first topic file, waits 1.2 s (so the file's mtime is not too close to the last sync to be
trusted) and times `import`.

Builds run alternately (A, B, A, B, ...), so the machine's drift hits both alike. Medians are
printed at the end. Nothing is asserted.
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def flip_status(kb):
    """Flips the first `status: verified`/`status: stale` in the first topic file."""
    files = sorted(glob.glob(os.path.join(kb, ".agents/skills/*/references/pattern-library/*.md")))
    topic = next(p for p in files if not p.endswith("INDEX.md"))
    with open(topic, encoding="utf-8") as f:
        text = f.read()
    a, b = "status: verified", "status: stale"
    if a not in text:
        a, b = b, a
    with open(topic, "w", encoding="utf-8") as f:
        f.write(text.replace(a, b, 1))


def timed(cmd):
    """Runs cmd; returns (wall s, cpu s, peak RSS MiB) of the child."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--one-file", action="store_true")
    ap.add_argument("builds", nargs="+")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="evokb-import-ab-")
    try:
        copies = {}
        for i, build in enumerate(args.builds):
            copy = os.path.join(work, f"kb{i}")
            shutil.copytree(args.kb, copy, ignore=shutil.ignore_patterns(".evokb"))
            copies[build] = copy
            if args.one_file:
                subprocess.run([build, "--root", copy, "init"], stdout=subprocess.DEVNULL, check=True)
                timed([build, "--root", copy, "import"])
        results = {b: [] for b in args.builds}
        for run in range(args.runs):
            for build in args.builds:
                kb = copies[build]
                if args.one_file:
                    flip_status(kb)
                    time.sleep(1.2)
                else:
                    shutil.rmtree(os.path.join(kb, ".evokb"), ignore_errors=True)
                    subprocess.run([build, "--root", kb, "init"], stdout=subprocess.DEVNULL, check=True)
                wall, cpu, rss = timed([build, "--root", kb, "import"])
                results[build].append((wall, cpu, rss))
                print(f"run {run + 1}  {build}: {wall * 1000:9.1f} ms wall  {cpu * 1000:9.1f} ms cpu  "
                      f"{rss:6.0f} MiB", flush=True)
        for build, rs in results.items():
            med = lambda k: statistics.median(r[k] for r in rs)
            print(f"median  {build}: {med(0) * 1000:9.1f} ms wall  {med(1) * 1000:9.1f} ms cpu  "
                  f"{med(2):6.0f} MiB peak (runs: {', '.join(f'{r[2]:.0f}' for r in rs)})")
        print("load", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
