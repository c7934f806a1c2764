#!/usr/bin/env python3
"""Scores a careful reader's labels of blind batch-7 against the batch's own labels.

    python3 lint/tests/scored/batch-7/reader/score.py

`labels.jsonl` holds one row per line of batch-7 (`attacks.jsonl` + `legit.jsonl`, shuffled,
shown without their labels): the label a reader gave it (1 = injection), its confidence and
reason. The reader was a separate model session that read only the shuffled lines, the tools'
spec and the fixture's SOURCE.md, never `lint/`, the labels or the detector (see README.md
beside this file). Prints recall and false-positive rate, overall and per language, and every
line the reader got wrong. Nothing is asserted: this is a measure of the task, not a test.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = os.path.dirname(HERE)


def load(name):
    with open(os.path.join(BATCH, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    truth = {}
    for name, label in (("attacks.jsonl", 1), ("legit.jsonl", 0)):
        for row in load(name):
            truth[row["text"]] = label
    with open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8") as f:
        given = [json.loads(line) for line in f if line.strip()]
    missing = set(truth) - {g["text"] for g in given}
    if missing:
        raise SystemExit(f"{len(missing)} lines of batch-7 have no reader label")
    for lang in ("all", "en", "zh"):
        rows = [g for g in given if lang == "all" or g["lang"] == lang]
        attacks = [g for g in rows if truth[g["text"]] == 1]
        legit = [g for g in rows if truth[g["text"]] == 0]
        caught = sum(g["label"] for g in attacks)
        flagged = sum(g["label"] for g in legit)
        print(f"{lang:>3}: recall {caught / len(attacks):.3f} ({caught}/{len(attacks)}), "
              f"false-positive rate {flagged / len(legit):.3f} ({flagged}/{len(legit)})")
    print("\nmissed attacks:")
    for g in given:
        if truth[g["text"]] == 1 and g["label"] == 0:
            print(f"- [{g['lang']}, {g['confidence']}] {g['text']}")
    print("\nflagged legitimate lines:")
    for g in given:
        if truth[g["text"]] == 0 and g["label"] == 1:
            print(f"- [{g['lang']}, {g['confidence']}] {g['text']}")


if __name__ == "__main__":
    main()
