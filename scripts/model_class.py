#!/usr/bin/env python3
"""Held-out recall at a pooled 1% false-positive rate for model classes other than the linear one.

    TRAIN_FEATURES=/tmp/feats.tsv target/release/examples/train_scorer   # the rows, then exit
    FOLDS=8 python3 scripts/model_class.py /tmp/feats.tsv lr1 gb300_31_0.1 mlp64_12

Needs `pip install numpy scipy scikit-learn lightgbm` (an experiment, not part of the build).
Every model sees the same hashed features of `lint/src/score.rs` (as `train_scorer` computes
them), the same folds (`FOLDS=K`: the training sets dealt round-robin into K groups, each held
out in turn; unset: one set at a time), the same class weights and the same threshold picking,
so the figures compare model classes, not pipelines. The picking is a simplification of the
trainer's: thresholds per language and per rule/plain line, at most 1% of the pooled held-out
legitimate lines of the calibrated sets flagged. `lr<C>` is scikit-learn's logistic regression,
`gb<trees>_<leaves>_<rate>` LightGBM, `mlp<hidden>_<epochs>` a one-hidden-layer network.
Results of stop 35 are in `lint/tests/blind/RESULTS.md` ("Other model classes").
"""
import sys, time
import numpy as np
import scipy.sparse as sp

NOT_CAL = {"own-8", "own-9", "own-10", "own-11", "own-12", "own-13"}
DIM = 1 << 18


def load(path):
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        set_, attack, rule, zh, concept, decisive, must, view = f[:8]
        feats = [int(x) for x in f[8].split(",") if x]
        views = [[int(x) for x in v.split(",") if x] for v in f[9].split(";") if v] if len(f) > 9 else []
        rows.append(dict(set=set_, attack=attack == "1", rule=rule == "1", zh=zh == "1",
                         concept=concept == "1", decisive=decisive == "1", must=must == "1",
                         view=view == "1", feats=feats, views=views))
    return rows


def csr(list_of_feats):
    indptr = [0]
    idx = []
    for fs in list_of_feats:
        idx.extend(fs)
        indptr.append(len(idx))
    data = np.ones(len(idx), dtype=np.float32)
    m = sp.csr_matrix((data, np.array(idx, dtype=np.int64), np.array(indptr)), shape=(len(list_of_feats), DIM))
    m.sum_duplicates()
    return m


def weights(rows):
    pos = sum(r["attack"] for r in rows)
    neg = len(rows) - pos
    pw = min(max(neg / max(pos, 1), 1.0), 4.0)
    w = []
    for r in rows:
        if r["attack"]:
            w.append(pw * (4.0 if r["must"] else 1.0))
        elif r["set"] != "-":
            w.append(2.0)
        else:
            w.append(1.0)
    return np.array(w)


def pick(held, rate=0.01):
    """held: list of (score, rule, attack, zh). Best catch with <= rate of legit flagged;
    thresholds per (zh, rule)."""
    legit = [h for h in held if not h[2]]
    allowed = int(len(legit) * rate)
    groups = {}
    for key in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        ls = sorted([h[0] for h in legit if (h[3], h[1]) == key], reverse=True)
        ats = np.sort(np.array([h[0] for h in held if h[2] and (h[3], h[1]) == key]))
        # best[k] = attacks caught with k legit flagged in this group
        best = []
        for k in range(allowed + 1):
            t = ls[k] + 1e-6 if k < len(ls) else -np.inf
            caught = len(ats) - np.searchsorted(ats, t, side="left")
            best.append(caught)
        groups[key] = best
    # combine four groups within allowance (dynamic programming)
    dp = [0] + [-1] * allowed
    for key, best in groups.items():
        nd = [-1] * (allowed + 1)
        for used in range(allowed + 1):
            if dp[used] < 0:
                continue
            for k in range(allowed + 1 - used):
                v = dp[used] + best[k]
                if v > nd[used + k]:
                    nd[used + k] = v
        dp = nd
    return max(dp), sum(1 for h in held if h[2]), allowed, len(legit)


FOLDS = int(__import__("os").environ.get("FOLDS", "0"))


def run(rows, fit, label):
    sets = sorted({r["set"] for r in rows if r["set"] != "-"})
    groups = [[s] for s in sets] if not FOLDS else [sets[i::FOLDS] for i in range(FOLDS)]
    t0 = time.time()
    held = []
    per_set = {}
    for gi, g in enumerate(groups):
        gs = set(g)
        tr = [r for r in rows if r["set"] not in gs]
        te = [r for r in rows if r["set"] in gs and not r["view"]]
        s = g[0] if len(g) == 1 else f"fold{gi}"
        model = fit(tr)
        # score = max(line, each sentence)
        lines = [r["feats"] for r in te]
        z = model(csr(lines))
        owner, views = [], []
        for i, r in enumerate(te):
            for v in r["views"]:
                owner.append(i)
                views.append(v)
        if views:
            zv = model(csr(views))
            for i, zz in zip(owner, zv):
                z[i] = max(z[i], zz)
        h = []
        for r, zi in zip(te, z):
            if not r["concept"]:
                zi = -np.inf
            if r["decisive"]:
                zi = np.inf
            h.append((zi, int(r["rule"]), r["attack"], int(r["zh"])))
        per_set[s] = h
        held.extend(x for x, r in zip(h, te) if r["set"] not in NOT_CAL)
        print(f"  {label}: fold {gi + 1}/{len(groups)} done, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    caught, atk, allowed, nlegit = pick(held)
    print(f"{label}: pooled held-out recall at 1% FPR: {caught}/{atk} = {caught/atk:.3f} "
          f"(allowed {allowed} of {nlegit}); {time.time()-t0:.0f}s", flush=True)
    return per_set


def fit_logistic(C):
    from sklearn.linear_model import LogisticRegression

    def fit(tr):
        X = csr([r["feats"] for r in tr])
        y = np.array([r["attack"] for r in tr])
        m = LogisticRegression(C=C, max_iter=300, solver="liblinear")
        m.fit(X, y, sample_weight=weights(tr))
        return lambda X: m.decision_function(X)
    return fit


def on_used_columns(tr):
    """The training matrix restricted to the columns its rows use, the labels, and a function
    that maps a matrix of all columns onto those (columns the fold never saw are dropped)."""
    X = csr([r["feats"] for r in tr])
    used = np.unique(X.indices)
    y = np.array([r["attack"] for r in tr]).astype(int)
    remap = np.full(DIM, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))

    def narrow(Xt):
        Xt = Xt.tocoo()
        keep = remap[Xt.col] >= 0
        return sp.csr_matrix((Xt.data[keep], (Xt.row[keep], remap[Xt.col[keep]])),
                             shape=(Xt.shape[0], len(used)), dtype=np.float32)
    return X[:, used].astype(np.float32), y, narrow


def fit_lgbm(n, leaves, lr, mcs=5):
    import lightgbm as lgb

    def fit(tr):
        X, y, narrow = on_used_columns(tr)
        m = lgb.LGBMClassifier(n_estimators=n, num_leaves=leaves, learning_rate=lr,
                               min_child_samples=mcs, colsample_bytree=0.5, subsample=0.8,
                               subsample_freq=1, reg_lambda=1.0, verbose=-1, n_jobs=2)
        m.fit(X, y, sample_weight=weights(tr))
        return lambda Xt: m.predict(narrow(Xt), raw_score=True)
    return fit


def fit_mlp(hidden, epochs):
    from sklearn.neural_network import MLPClassifier

    def fit(tr):
        X, y, narrow = on_used_columns(tr)
        m = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=1e-3, max_iter=epochs,
                          batch_size=256, learning_rate_init=1e-3, random_state=0)
        m.fit(X, y, sample_weight=weights(tr))

        def score(Xt):
            p = np.clip(m.predict_proba(narrow(Xt))[:, 1], 1e-7, 1 - 1e-7)
            return np.log(p / (1 - p))
        return score
    return fit


if __name__ == "__main__":
    rows = load(sys.argv[1])
    which = sys.argv[2:] or ["lr"]
    print(len(rows), "rows;", sum(r["attack"] for r in rows), "attacks", flush=True)
    for w in which:
        if w.startswith("lr"):
            C = float(w[2:] or 1.0)
            run(rows, fit_logistic(C), f"logistic C={C}")
        elif w.startswith("mlp"):
            h, e = w[3:].split("_")
            run(rows, fit_mlp(int(h), int(e)), f"mlp hidden={h} epochs={e}")
        elif w.startswith("gb"):
            n, leaves, lr = w[2:].split("_") if "_" in w else (400, 31, 0.05)
            run(rows, fit_lgbm(int(n), int(leaves), float(lr)), f"lightgbm n={n} leaves={leaves} lr={lr}")
