"""What the measurement scripts share: records keyed by path, labeled rows joined to them,
and the CER as the documents set's labels were computed (Scripts/datasets/build.py, imported
only by `cer`, so scripts that do not need it run without the datasets' packages)."""
import csv
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


def fit_logistic(X, y, ridge=1e-2):
    """Logistic regression by Newton–Raphson with a small ridge on standardised features.
    Returns (intercept, weights) on the raw scale of X's columns."""
    import numpy as np

    X, y = np.asarray(X, float), np.asarray(y, float)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.c_[np.ones(len(X)), (X - mu) / sd]
    w = np.zeros(Z.shape[1])
    for _ in range(200):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (y - p) - ridge * np.r_[0, w[1:]]
        H = (Z * (p * (1 - p))[:, None]).T @ Z + ridge * np.eye(len(w))
        w += np.linalg.solve(H, g)
    raw = w[1:] / sd
    return w[0] - float(np.sum(w[1:] * mu / sd)), raw


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
        # (intercept, weights), (intercept, weights, reference) or (intercept, weights, scale).
        def linear(fitted):
            out = {"intercept": r(fitted[0]), "weights": {k: r(v) for k, v in fitted[1].items()}}
            if len(fitted) > 2 and isinstance(fitted[2], dict):
                out["reference"] = {k: r(v) for k, v in fitted[2].items()}
            elif len(fitted) > 2:
                out["scale"] = r(fitted[2])
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
