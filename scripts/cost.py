#!/usr/bin/env python3
"""Whole-process cost of every issue-15 figure, side by side with a baseline run alongside.

    python3 scripts/cost.py                      # 10k entries, 7 runs per figure
    python3 scripts/cost.py --entries 100000 --runs 5
    python3 scripts/cost.py --entries 1000 --entries 10000 --entries 100000

Builds the release binaries (evokb, evokb-synth) unless --evokb/--synth are given, generates a
synthetic knowledge base in the real format with evokb-synth, grows its search log to
--log-events lines, and times each command and its baseline alternately (evokb, baseline,
evokb, baseline, ...) so the machine's drift hits both alike. Prints medians, the ratio to the
baseline, CPU time (user+sys of the children) and peak RSS for the one-shot commands. Nothing
is asserted: the figures are printed, and the issue's targets next to them.

The short commands (search, the 4-facet query, the family query through `cat`) get a second
row, "warm": each timed run right after an untimed run of the same command, baseline likewise
(hyperfine's `--warmup`). This machine is a virtual one: a process started after the CPU
idled, or after another program's work, runs several times slower than the same process
started hot. The first lines printed measure that effect on `true` and `evokb --version`.

Baselines: `cat` of every managed file (the floor of anything that reads them all), `grep -rlE`
over the topic files (what an agent would do without evokb), a per-entry `awk` filter, a
naive BM25 in Python over the same entries (scripts/bm25_naive.py), and `true` (process start).
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG_REL = ".agents/evolution/kb_search_log.jsonl"
# The logged events `stats hits` and `search` are timed at a second time (issue 15's figure).
HIT_EVENTS = 100_000


def run(cmd, cwd=None, check=True, stdin=None):
    """Runs cmd; returns (wall seconds, child CPU seconds, peak RSS MiB, stdout bytes).

    Stdout is read in 1 MiB reads and stderr goes to a temporary file. `subprocess.run` with
    both piped reads 32 KiB at a time under `select`, and that reading is the harness's own
    work, sharing the two cores with the command timed: for the 6.6 MB answer of the family
    query at 100k it added about 2.8 ms (13.6 against 10.8 ms, medians of 31 alternated runs),
    while grep's few lines of output cost it nothing.
    """
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=err, stdin=stdin)
        chunks = []
        while True:
            chunk = os.read(p.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        p.stdout.close()
        # This child's own resource usage (with its children's, for `sh -c` pipelines).
        # `getrusage(RUSAGE_CHILDREN)` reports the largest peak of *any* child so far, so a
        # `cargo build` that compiled before the first figure (rustc at ~870 MiB) showed as
        # every import's peak.
        _, status, usage = os.wait4(p.pid, 0)
        returncode = os.waitstatus_to_exitcode(status)
        p.returncode = returncode
        wall = time.perf_counter() - t0
        err.seek(0)
        stderr = err.read()
    if check and returncode != 0:
        sys.exit(f"FAILED ({returncode}): {' '.join(cmd)}\n{stderr.decode(errors='replace')}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, b"".join(chunks)


def managed_files(kb):
    out = []
    for d, _, names in os.walk(os.path.join(kb, ".agents")):
        for n in names:
            if n.endswith((".md", ".jsonl")):
                out.append(os.path.join(d, n))
    return sorted(out)


def du(path):
    total = 0
    for d, _, names in os.walk(path):
        for n in names:
            total += os.path.getsize(os.path.join(d, n))
    return total


class Table:
    def __init__(self):
        self.rows = []

    def add(self, name, ev, base, base_name, target=""):
        m = statistics.median(t for t, _, _ in ev)
        cpu = statistics.median(c for _, c, _ in ev)
        rss = max(r for _, _, r in ev)
        row = {"figure": name, "median_ms": m * 1e3, "cpu_ms": cpu * 1e3, "runs": len(ev),
               "target": target, "baseline": base_name}
        if base:
            b = statistics.median(t for t, _, _ in base)
            row["baseline_ms"] = b * 1e3
            row["ratio"] = m / b if b else None
        self.rows.append(row)
        print(f"  {name:<44} {m*1e3:>10.1f} ms  cpu {cpu*1e3:>9.1f} ms"
              + (f"  | {base_name} {row['baseline_ms']:>8.1f} ms  x{row['ratio']:.2f}" if base else "")
              + (f"  [target {target}]" if target else ""), flush=True)


def alternate(runs, ev_cmd, base_cmd=None, cwd=None, prep=None, warm=False):
    """Times ev_cmd and base_cmd alternately, `runs` times each.

    With `warm`, each timed run is preceded by an untimed run of the same command, on both
    sides, as hyperfine's `--warmup` does: the timed run then starts on a CPU that has just
    run it. This machine is a virtual one whose processes run several times slower after the
    CPU idled or after another program's work (`machine_state` prints the effect), so a
    short command's time depends on what ran just before it as much as on the command.
    """
    ev, base = [], []
    for i in range(runs):
        if prep:
            prep(i)
        cmd = ev_cmd(i) if callable(ev_cmd) else ev_cmd
        if warm:
            run(cmd, cwd=cwd)
        w, c, r, _ = run(cmd, cwd=cwd)
        ev.append((w, c, r))
        if base_cmd:
            if warm:
                run(base_cmd, cwd=cwd, check=False)
            w, c, r, _ = run(base_cmd, cwd=cwd, check=False)
            base.append((w, c, r))
    return ev, base


def machine_state(evokb, runs):
    """Prints how much the state the CPU is in changes one fixed command's time: `true` and
    `evokb --version`, each timed right after a run of itself (hot) and after 2 s of idling."""
    print("  machine state: the same command, hot (after a run of itself) and after 2 s idle",
          flush=True)
    for name, cmd in (("true", ["true"]), ("evokb --version", [evokb, "--version"])):
        hot, idle = [], []
        for _ in range(runs):
            run(cmd)
            hot.append(run(cmd)[0])
            time.sleep(2)
            idle.append(run(cmd)[0])
        h, d = statistics.median(hot) * 1e3, statistics.median(idle) * 1e3
        print(f"    {name:<18} hot {h:6.1f} ms   after idle {d:6.1f} ms   x{d / h:.1f}", flush=True)


def grow_log(kb, events, ids):
    """Appends synthetic search events to the log (before import, so the store holds them)."""
    path = os.path.join(kb, LOG_REL)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    have = sum(1 for _ in open(path, encoding="utf-8")) if os.path.exists(path) else 0
    with open(path, "a", encoding="utf-8") as f:
        for i in range(have, events):
            ret = ", ".join(json.dumps(ids[(i * 7 + k) % len(ids)]) for k in range(5))
            f.write(f'{{"ts": "2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:{i % 60:02d}Z", '
                    f'"query": "q{i}", "returned": [{ret}], "task": "T-{i % 97}"}}\n')


def one_size(args, evokb, synth, n, table):
    work = tempfile.mkdtemp(prefix=f"evokb-cost-{n}-", dir=args.work)
    kb = os.path.join(work, "kb")
    print(f"\n== {n} entries (work dir {work})", flush=True)
    # ~20 entries per topic file, as the corpus (5,000 files at 100k).
    run([synth, "--entries", str(n), "--files-per-topic", str(max(1, n // 140)), kb])
    files = managed_files(kb)
    # Ids for the synthetic log, from the topic files' front-matter.
    ids = []
    for p in files:
        if "/pattern-library/" in p and not p.endswith("INDEX.md"):
            for line in open(p, encoding="utf-8"):
                if line.startswith("id: "):
                    ids.append(line[4:].strip())
    grow_log(kb, args.log_events, ids)
    files = managed_files(kb)
    corpus = sum(os.path.getsize(p) for p in files)
    print(f"  corpus: {len(files)} managed files, {corpus/1e6:.1f} MB, {len(ids)} entries, "
          f"{args.log_events} logged search events", flush=True)
    cat_all = ["cat", *files]
    run([evokb, "--root", kb, "init"])

    # Import into a fresh store: one-shot (each run starts from an empty store).
    def fresh(i):
        shutil.rmtree(os.path.join(kb, ".evokb"), ignore_errors=True)
        run([evokb, "--root", kb, "init"])
    ev, base = alternate(max(1, args.runs // 3), [evokb, "--root", kb, "import"], cat_all, prep=fresh)
    table.add(f"{n}: import into a fresh store", ev, base, "cat all files", "<= 10 s, <= 400 MB at 100k")
    print(f"    peak RSS of import: {max(r for _, _, r in ev):.0f} MiB", flush=True)
    store_bytes = du(os.path.join(kb, ".evokb"))
    print(f"    store on disk: {store_bytes/1e6:.1f} MB = {store_bytes/corpus:.2f}x the corpus [target <= 2x]")
    time.sleep(0.1)
    run([evokb, "--root", kb, "import"])  # takes fingerprints that vouch for every file

    # Import after editing one file.
    topic = next(p for p in files if "/pattern-library/" in p and p.endswith(".md") and not p.endswith("INDEX.md"))

    def edit(i):
        text = open(topic, encoding="utf-8").read()
        a, b = ("status: verified", "status: stale") if i % 2 == 0 else ("status: stale", "status: verified")
        if a not in text:
            a, b = b, a
        open(topic, "w", encoding="utf-8").write(text.replace(a, b, 1))
        time.sleep(0.05)
    ev, base = alternate(args.runs, [evokb, "--root", kb, "import"], ["cat", topic], prep=edit)
    table.add(f"{n}: import after editing one file", ev, base, "cat that file", "<= 100 ms")

    entry = ids[len(ids) // 2]
    ev, base = alternate(args.runs, lambda i: [evokb, "--root", kb, "set", entry, "status",
                                               "stale" if i % 2 == 0 else "verified"], ["true"])
    table.add(f"{n}: set ID status", ev, base, "true", "<= 30 ms")
    ev, base = alternate(args.runs, lambda i: [evokb, "--root", kb, "update", entry, "--set",
                                               f"origin_task=T-cost-{i}"], ["true"])
    table.add(f"{n}: update ID --set", ev, base, "true", "<= 30 ms")
    queue = json.loads(run([evokb, "--root", kb, "list", "--kind", "queue_item", "--json"])[3] or b"[]")
    queue_ids = [q["id"] if isinstance(q, dict) else q for q in (queue if isinstance(queue, list) else queue.get("records", []))]
    if queue_ids:
        vp = queue_ids[len(queue_ids) // 2]
        ev, base = alternate(args.runs, lambda i: [evokb, "--root", kb, "queue", "confirm", vp, "--task",
                                                   f"T-cost-confirm-{i}", "--lineage", f"L{i}"], ["true"])
        table.add(f"{n}: queue confirm", ev, base, "true", "<= 30 ms")

    add_target = os.path.relpath(topic, kb)

    def add_cmd(i):
        src = os.path.join(work, f"add-{i}.md")
        with open(src, "w", encoding="utf-8") as f:
            f.write(f"---\nid: PL-COST-{n}-{i}\nkind: pattern\nfamily: [cost{i}]\napis: [T.copy]\n"
                    f"dtype: [fp16]\ndevice: [910B]\nstatus: verified\norigin_task: T-cost-{i}\n"
                    f"toolchain: tilelang 0.1.2 + CANN 8.5.0\nrepro: repro-missing\n---\n"
                    f"# cost probe {i}: a distinct title about tile widths {i * 7919}\n\n"
                    f"Body {i} with enough words to be its own entry: block {i} stride {i * 3}.\n")
        return [evokb, "--root", kb, "add", "--file", add_target, src, "--task", f"T-cost-add-{i}"]
    ev, base = alternate(args.runs, add_cmd, ["true"])
    table.add(f"{n}: add one entry", ev, base, "true", "<= 50 ms")

    # Searches that record a hit, on the grown log.
    run([evokb, "--root", kb, "render", "--force"])
    time.sleep(0.1)
    run([evokb, "--root", kb, "import"])
    bm25 = [sys.executable, os.path.join(ROOT, "scripts", "bm25_naive.py"), kb, "tile width"]
    search = [evokb, "--root", kb, "search", "tile", "width", "--json"]
    ev, base = alternate(args.runs, search, bm25)
    table.add(f"{n}: search recording a hit ({args.log_events} events)", ev, base, "naive BM25", "<= 15 ms, flat")
    ev, base = alternate(args.runs, search, ["true"], warm=True)
    table.add(f"{n}: the same, warm", ev, base, "true, warm", "<= 15 ms, flat")
    ev, base = alternate(args.runs, [evokb, "--root", kb, "stats", "hits", "--json"], ["true"])
    table.add(f"{n}: stats hits --json ({args.log_events} events)", ev, base, "true", "<= 200 ms")
    run([evokb, "--root", kb, "render"])
    ev, base = alternate(args.runs, [evokb, "--root", kb, "render", "--check"], cat_all)
    table.add(f"{n}: render --check, nothing changed", ev, base, "cat all files", "<= 0.5 s")
    # Each run renders into a directory of its own, as a user renders into an empty one. The
    # directories are removed only at the end: on ext4 without a journal (this machine's /),
    # creating a file skips every inode freed in the last minute or more, so deleting 5,000
    # files just before a run made that run's creates quadratic (70% of the time in the
    # kernel's inode search in a profile) and measured the delete, not evokb.
    outs = [os.path.join(work, f"out-{i}") for i in range(max(1, args.runs // 2))]
    ev, base = alternate(len(outs), lambda i: [evokb, "--root", kb, "render", "--out", outs[i]], cat_all)
    table.add(f"{n}: render --out", ev, base, "cat all files", "<= 2 s")
    ev, base = alternate(max(1, args.runs // 2), [evokb, "--root", kb, "verify"], cat_all)
    table.add(f"{n}: verify", ev, base, "cat all files", "<= 2 s")

    topics = [p for p in files if "/pattern-library/" in p]
    awk = ["awk", "/^family: \\[.*attention/ && /^family:/ {print FILENAME}", *topics]
    ev, base = alternate(args.runs, [evokb, "--root", kb, "query", "--family", "attention", "--dtype", "fp16",
                                     "--api", "T.gemm", "--status", "stale", "--json"], ["true"])
    table.add(f"{n}: 4-facet query", ev, base, "true", "<= 5 ms")
    ev, base = alternate(args.runs, [evokb, "--root", kb, "query", "--family", "attention", "--dtype", "fp16",
                                     "--api", "T.gemm", "--status", "stale", "--json"], ["true"], warm=True)
    table.add(f"{n}: the same, warm", ev, base, "true, warm", "<= 5 ms")
    ev, base = alternate(args.runs, [evokb, "--root", kb, "query", "--family", "attention", "--json"],
                         ["grep", "-rlE", "^family: \\[.*attention", os.path.join(kb, ".agents")])
    table.add(f"{n}: query --family attention --json", ev, base, "grep -rlE", ">= 3x faster than grep")
    ev, base = alternate(args.runs, [evokb, "--root", kb, "query", "--family", "attention", "--json"], awk)
    table.add(f"{n}: query --family attention --json (vs awk)", ev, base, "awk per-entry filter", "")
    # The same query read through a pipe by `cat`, as an agent reads it, against grep read the
    # same way (the rows above are captured by this script, whose own reading of 6.5 MB of
    # JSON is part of their time).
    q = shlex.join([evokb, "--root", kb, "query", "--family", "attention", "--json"])
    g = shlex.join(["grep", "-rlE", "^family: \\[.*attention", os.path.join(kb, ".agents")])
    ev, base = alternate(args.runs, ["sh", "-c", f"{q} | cat >/dev/null"], ["sh", "-c", f"{g} | cat >/dev/null"])
    table.add(f"{n}: query --family attention --json | cat", ev, base, "grep -rlE | cat",
              ">= 3x faster than grep")
    ev, base = alternate(args.runs, ["sh", "-c", f"{q} | cat >/dev/null"], ["sh", "-c", f"{g} | cat >/dev/null"],
                         warm=True)
    table.add(f"{n}: the same, warm", ev, base, "grep -rlE | cat, warm", ">= 3x faster than grep")
    # The figures at 100k logged events, last so that every figure above is taken on the
    # corpus with its 20,000-line log: the log grown to 100k lines and imported (one changed
    # file), then a one-line append imported, the same search and `stats hits` again.
    if args.log_events < HIT_EVENTS:
        grow_log(kb, HIT_EVENTS, ids)
        run([evokb, "--root", kb, "import"])
        time.sleep(0.1)
        run([evokb, "--root", kb, "import"])  # fingerprints that vouch for the grown log
        log = os.path.join(kb, LOG_REL)

        def append_line(i):
            with open(log, "a", encoding="utf-8") as f:
                f.write(f'{{"ts": "2026-12-31T00:00:{i % 60:02d}Z", "query": "appended {i}", '
                        f'"returned": [{json.dumps(ids[i % len(ids)])}], "task": "T-append"}}\n')
            time.sleep(0.05)
        ev, base = alternate(args.runs, [evokb, "--root", kb, "import"], ["cat", log], prep=append_line)
        # The log is one file too: an import after a line appended to it by hand reads the log
        # (its earlier lines checked against the store's content mark) and parses the new line.
        table.add(f"{n}: import after appending a line to the log ({HIT_EVENTS} events)", ev, base,
                  "cat the log", "<= 100 ms (one file changed)")
        search = [evokb, "--root", kb, "search", "tile", "width", "--json"]
        ev, base = alternate(args.runs, search, bm25)
        table.add(f"{n}: search recording a hit ({HIT_EVENTS} events)", ev, base, "naive BM25",
                  "<= 15 ms, flat")
        ev, base = alternate(args.runs, search, ["true"], warm=True)
        table.add(f"{n}: the same, warm", ev, base, "true, warm", "<= 15 ms, flat")
        ev, base = alternate(args.runs, [evokb, "--root", kb, "stats", "hits", "--json"], ["true"])
        table.add(f"{n}: stats hits --json ({HIT_EVENTS} events)", ev, base, "true", "<= 200 ms")

    for o in outs:
        shutil.rmtree(o, ignore_errors=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, action="append")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--log-events", type=int, default=20000)
    ap.add_argument("--evokb")
    ap.add_argument("--synth")
    ap.add_argument("--work", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", help="also write the table as JSON to this file")
    args = ap.parse_args()
    if not args.evokb or not args.synth:
        subprocess.run(["cargo", "build", "--release", "-j2", "--quiet", "-p", "evokb", "-p", "evokb-synth"],
                       cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    # Private copies, so a concurrent rebuild cannot swap the binaries mid-run.
    bindir = tempfile.mkdtemp(prefix="evokb-cost-bin-")
    evokb = shutil.copy(args.evokb or os.path.join(target, "release", "evokb"), bindir)
    synth = shutil.copy(args.synth or os.path.join(target, "release", "evokb-synth"), bindir)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"evokb cost figures at {rev}, {os.cpu_count()} cores, {args.runs} runs per figure (alternated with the baseline)")
    table = Table()
    machine_state(evokb, 5)
    for n in args.entries or [10000]:
        one_size(args, evokb, synth, n, table)
    if args.json:
        json.dump(table.rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
