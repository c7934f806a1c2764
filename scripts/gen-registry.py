#!/usr/bin/env python3
"""Generate a synthetic model-iteration registry for the analytics timings (issue 3, "Speed").

Writes OUT/results/error_registry.jsonl and OUT/results/iteration_log.jsonl in the shape of
tests/data/model-iteration/results/ (see that folder's README): one object per round R0..R{n-1}
with an `intervention` from R1 on, and one object per error case that failed in at least one
round, with `case_hash`, `query`, `gold`, `subset`, `pattern`, `evaluated` and `failed_rounds`.

The output depends only on the arguments (a fixed-seed random.Random), so two runs give the same
bytes. A small share of cases (--no-hash-share, default 1%) has no `case_hash`, so the
normalised-query keying path is exercised too.

    scripts/gen-registry.py [--cases 100000] [--rounds 20] [--seed 7] OUT
"""

import argparse
import json
import os
import random

PATTERNS = [
    "nav_agent_vs_ct",
    "travel_agent_vs_ct",
    "multiturn_ct_inherit",
    "weather_city_slot",
    "music_intent_slot",
    "multi_command_vs_complextask",
    "vehicle_control_scope",
    "phone_contact_slot",
    "chitchat_vs_task",
    "time_expression_slot",
    "poi_category_confusion",
    "negation_ignored",
]
GOLDS = ["Travel", "Navigation", "Music", "Weather", "VehicleControl", "Phone", "Chat", "ComplexTask"]
SUBSETS = ["大盘车载", "specific_test", "导航bvt", "可聊可控", "需求集合:icl_test"]
QUERIES = [
    "找个附近的停车场",
    "继续刚才的路线",
    "把空调调到24度再打开座椅加热",
    "明天去杭州的高铁票",
    "上海明天下雨吗",
    "播放周杰伦的晴天",
    "导航去最近的加油站",
    "给妈妈打电话",
    "Open the sunroof and play some jazz",
    "下午三点提醒我开会",
    "不要走高速",
    "附近有什么好吃的川菜",
]
VERDICTS = ["regressed", "mixed", "improved", "improved", "flat"]
TYPES = ["augment", "relabel", "augment", "rebalance"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="directory; results/ is created inside it")
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-hash-share", type=float, default=0.01)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    rounds = [f"R{i}" for i in range(args.rounds)]
    results = os.path.join(args.out, "results")
    os.makedirs(results, exist_ok=True)

    # Iteration log: R0 is the baseline; each later round targets one to three patterns.
    injected_at = {}
    with open(os.path.join(results, "iteration_log.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for i, r in enumerate(rounds):
            line = {"round": r, "runDic": 17793 + i, "hypothesis": f"H{i}"}
            if i == 0:
                line["verdict"] = "baseline"
            else:
                line["verdict"] = rng.choice(VERDICTS)
                pats = rng.sample(PATTERNS, rng.randint(1, 3))
                for p in pats:
                    injected_at.setdefault(p, i)
                line["intervention"] = {"type": rng.choice(TYPES), "patterns": pats}
            f.write(json.dumps(line, ensure_ascii=False) + "\n")

    # Error registry: each case enters the evaluation set at some round and stays in it (with
    # an occasional gap); it fails with a per-case base rate, lower once its pattern is injected,
    # and with persistence (a case that failed is likelier to fail again). Only cases that
    # failed at least once are written, as in the real registry.
    n = 0
    seq = 0
    with open(os.path.join(results, "error_registry.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        while n < args.cases:
            seq += 1
            pattern = rng.choice(PATTERNS)
            start = 0 if rng.random() < 0.7 else rng.randrange(args.rounds)
            evaluated = [r for k, r in enumerate(rounds) if k >= start and rng.random() > 0.05]
            if not evaluated:
                continue
            base = rng.uniform(0.05, 0.5)
            failed = []
            prev = False
            for r in evaluated:
                k = int(r[1:])
                p = base
                if pattern in injected_at and k >= injected_at[pattern]:
                    p *= 0.5
                if prev:
                    p = min(0.95, p + 0.3)
                prev = rng.random() < p
                if prev:
                    failed.append(r)
            if not failed:
                continue
            n += 1
            case = {}
            if rng.random() >= args.no_hash_share:
                case["case_hash"] = f"{rng.getrandbits(64):016x}"
            case["query"] = f"{rng.choice(QUERIES)}#{seq}"
            case["gold"] = rng.choice(GOLDS)
            case["subset"] = rng.choice(SUBSETS)
            case["pattern"] = pattern
            case["evaluated"] = evaluated
            case["failed_rounds"] = failed
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"wrote {n} cases x {args.rounds} rounds to {results}/")


if __name__ == "__main__":
    main()
