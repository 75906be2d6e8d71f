"""What the measurement scripts share: records keyed by path, labeled rows joined to them,
and the CER as the documents set's labels were computed (Scripts/datasets/build.py, imported
only by `cer`, so scripts that do not need it run without the datasets' packages)."""
import csv
import math
import json
import os
import sys

DATASETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets")


def load_records(path):
    """JSON Lines records (`imgquality score` or `ocr` output) by absolute image path."""
    records = {}
    for line in open(path):
        record = json.loads(line)
        records[os.path.abspath(record["path"])] = record
    return records


def labeled(labels_path, records_path):
    """(label row, record, image path) for each row of LABELS.csv whose image has a record
    without an error; the others are named on stderr."""
    base = os.path.dirname(os.path.abspath(labels_path))
    records = load_records(records_path)
    for row in csv.DictReader(open(labels_path)):
        path = os.path.join(base, row["path"])
        record = records.get(os.path.abspath(path))
        if record is None or "error" in record:
            print(f"skipped (no record or an error): {row['path']}", file=sys.stderr)
            continue
        yield row, record, path


def cer(truth, text):
    """Levenshtein distance over ground-truth length, whitespace runs collapsed, capped at 1."""
    if DATASETS not in sys.path:
        sys.path.insert(0, DATASETS)
    from build import levenshtein, normalise

    gt = normalise(truth)
    return min(1.0, levenshtein(gt, normalise(text)) / max(1, len(gt)))


def fit_logistic(X, y, ridge=1e-2, weights=None):
    """Logistic regression by Newton–Raphson with a small ridge on standardised features,
    each row counting `weights[i]` times (once each without weights; the standardisation is
    of the rows as they are). Returns (intercept, weights) on the raw scale of X's columns."""
    import numpy as np

    X, y = np.asarray(X, float), np.asarray(y, float)
    counts = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.c_[np.ones(len(X)), (X - mu) / sd]
    w = np.zeros(Z.shape[1])
    for _ in range(200):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (counts * (y - p)) - ridge * np.r_[0, w[1:]]
        H = (Z * (counts * p * (1 - p))[:, None]).T @ Z + ridge * np.eye(len(w))
        w += np.linalg.solve(H, g)
    raw = w[1:] / sd
    return w[0] - float(np.sum(w[1:] * mu / sd)), raw


def fit_monotone_additive(X, y, signs, knots=5, ridge=1.0, weights=None):
    """A logistic model whose measures enter through monotone curves: logit = intercept +
    Σ f_j(x_j), each f_j piecewise linear through `knots` knots (one count, or one per column)
    at quantiles of its column
    (straight on beyond them, as `DetectorModel.Shape` reads it), rising with the measure where
    signs[j] is 1 and falling where it is −1, fitted by the binomial likelihood of y in
    [0, 1] with a ridge on the squared steps between neighbouring knots. Each curve is 0 at
    the column's median. Each row's likelihood counts `weights[i]` times (once each without
    weights; the knots and the median are the rows' as they are). Returns (intercept, shapes):
    shapes a list of (knots, values)."""
    import numpy as np
    from scipy.optimize import minimize

    X, y = np.asarray(X, float), np.asarray(y, float)
    row_weights = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    # One count for every column, or a count per column (2: a straight line through the
    # column's extremes, carried on beyond them).
    counts = list(knots) if isinstance(knots, (list, tuple)) else [knots] * X.shape[1]
    grids = []
    for j in range(X.shape[1]):
        # Knots at 4 decimals, as the model file carries them, so the file's curve is the fit's.
        grid = np.unique(np.round(np.quantile(X[:, j], np.linspace(0, 1, counts[j])), 4))
        grids.append(grid if len(grid) >= 2 else np.array([grid[0], grid[0] + 0.0001]))
    bases = [_hat_basis(X[:, j], grid) for j, grid in enumerate(grids)]
    sizes = [len(g) - 1 for g in grids]

    def unpack(theta):
        out, k = [], 0
        for m in sizes:
            out.append(theta[k:k + m])
            k += m
        return out, theta[k]

    def loss(theta):
        steps, intercept = unpack(theta)
        z = np.full(len(y), intercept)
        for basis, t, sign in zip(bases, steps, signs):
            z += basis @ (sign * np.r_[0, np.cumsum(np.logaddexp(0, t))])
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        eps = 1e-12
        value = -np.sum(row_weights * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))
        dz = row_weights * (p - y)
        grad = []
        for basis, t, sign in zip(bases, steps, signs):
            soft, slope = np.logaddexp(0, t), 1 / (1 + np.exp(-t))
            dv = basis.T @ dz
            # value k of the curve holds step m for every k > m.
            tail = np.cumsum(dv[::-1])[::-1][1:]
            value += ridge * np.sum(soft ** 2)
            grad.append(sign * slope * tail + ridge * 2 * soft * slope)
        grad.append(np.array([dz.sum()]))
        return value, np.concatenate(grad)

    start = np.r_[np.full(sum(sizes), -2.0), math.log(max(y.mean(), 1e-3) / max(1 - y.mean(), 1e-3))]
    theta = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 5000}).x
    steps, intercept = unpack(theta)
    shapes = []
    for j, (grid, t, sign) in enumerate(zip(grids, steps, signs)):
        values = sign * np.r_[0, np.cumsum(np.logaddexp(0, t))]
        centre = float((_hat_basis(np.array([np.median(X[:, j])]), grid) @ values)[0])
        shapes.append((grid, values - centre))
        intercept += centre
    return float(intercept), shapes


def _hat_basis(x, grid):
    """The weights of piecewise-linear interpolation of x on the grid, carried on along the
    first and last segment beyond it."""
    import numpy as np

    x = np.asarray(x, float)
    index = np.clip(np.searchsorted(grid, x, side="right") - 1, 0, len(grid) - 2)
    lo, hi = grid[index], grid[index + 1]
    t = (x - lo) / (hi - lo)
    basis = np.zeros((len(x), len(grid)))
    basis[np.arange(len(x)), index] = 1 - t
    basis[np.arange(len(x)), index + 1] += t
    return basis


def shape_value(shape, x):
    """A (knots, values) curve at x, as `DetectorModel.Shape` computes it."""
    import numpy as np

    grid, values = shape
    return _hat_basis(np.atleast_1d(x), np.asarray(grid, float)) @ np.asarray(values, float)


def auc(pos, neg):
    """Mann–Whitney AUC of positives over negatives (ties count half)."""
    return sum(1 if p > n else 0.5 if p == n else 0 for p in pos for n in neg) / len(pos) / len(neg)


MODEL_FORMAT = 1
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "QualityMetrics", "Models")


def write_model(path, detector, data, figures, evidence=None, mapping=None, thresholds=None, fit=None):
    """Writes a detector model file (the format `DetectorModel` reads), replacing the parts
    given and keeping the others from the file already there. Numbers are rounded to 4
    decimals, as the detectors have always carried them. `fit` records the command that
    fitted the evidence or mapping (this one unless `fit` names another), the data, the date
    and the figures; with `data` None it is kept (a threshold alone was set)."""
    import datetime

    model = {"format": MODEL_FORMAT, "detector": detector, "evidence": {}, "thresholds": {}}
    if os.path.exists(path):
        model = json.load(open(path))
        if model.get("detector") != detector:
            sys.exit(f"{path} holds a model of {model.get('detector')!r}, not {detector!r}")
    r = lambda x: round(float(x), 4)
    if evidence is not None:
        # (intercept, weights), (intercept, weights, reference), (intercept, weights, scale),
        # (intercept, weights, reference, shapes), shapes by measure as (knots, values), or
        # (intercept, weights, reference, shapes, trees), trees as the model file holds them.
        def linear(fitted):
            out = {"intercept": r(fitted[0]), "weights": {k: r(v) for k, v in fitted[1].items()}}
            if len(fitted) > 2 and isinstance(fitted[2], dict):
                out["reference"] = {k: r(v) for k, v in fitted[2].items()}
            elif len(fitted) > 2:
                out["scale"] = r(fitted[2])
            if len(fitted) > 3 and (fitted[3] or len(fitted) == 4):
                out["shapes"] = {k: {"knots": [r(x) for x in knots], "values": [r(v) for v in values]}
                                 for k, (knots, values) in fitted[3].items()}
            if len(fitted) > 4 and fitted[4]:
                # Thresholds as they are (a split may sit on a measured value itself, which a
                # rounded threshold would send the other way); leaf values at 4 decimals.
                out["trees"] = [[{k: float(v) if k == "threshold" else r(v) if k == "value" else v for k, v in node.items()}
                                 for node in tree] for tree in fitted[4]]
            return out

        model["evidence"] = {name: linear(fitted) for name, fitted in evidence.items()}
    if mapping is not None:
        model["mapping"] = {"midpoint": r(mapping["midpoint"]), "slope": r(mapping["slope"]), "logarithmic": bool(mapping["logarithmic"])}
    if thresholds is not None:
        model["thresholds"] = {**model.get("thresholds", {}), **{k: {"value": r(v), "rule": rule} for k, (v, rule) in thresholds.items()}}
    if data is not None:
        model["fit"] = fit or {
            "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
            "data": data,
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "figures": {k: r(v) for k, v in figures.items()},
        }
    with open(path, "w") as out:
        json.dump(model, out, indent=2, sort_keys=True, ensure_ascii=False)
        out.write("\n")
    print("wrote", path)


def ranks(values):
    """Ranks from 1, ties sharing their average rank."""
    import numpy as np

    values = np.asarray(values, float)
    order = np.argsort(values, kind="mergesort")
    result = np.empty(len(values))
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        result[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a, b):
    """Spearman's rank correlation, ties at their average rank."""
    import numpy as np

    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])
