#!/usr/bin/env python3
"""Fits the exposure detector's two logistic models on the train split of Datasets/exposure.

    imgquality score --detectors exposure --format jsonl Datasets/exposure/images > exposure.jsonl
    Scripts/measure/fit_exposure.py Datasets/exposure/labels.csv exposure.jsonl [--write-model]

Under-exposure: the acceptable rows against the under-exposed ones, on the median and the
detail's 90th percentile (`detailP90`), both as stops from mid-grey. Over-exposure: the
acceptable rows against the over-exposed ones, on `detailP90` in stops and `highlightClip`.
Prints the weights on the raw scale and the AUC of the larger log-odds on train and on the
held-out test split; with --write-model writes them as the evidence of the bundled model
file Sources/QualityMetrics/Models/exposure.json, keeping its mapping and threshold.
"""
import math
import os
import sys

import numpy as np

from measurelib import MODELS, auc, fit_logistic, labeled, write_model


def stops(level):
    """An 8-bit level as stops from mid-grey, as ExposureDetector's `stops` computes it."""
    u = max(level, 0.5) / 255
    linear = u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4
    return math.log2(linear / 0.18)


def under_features(exposure):
    return [stops(exposure["median"]), stops(exposure["detailP90"])]


def over_features(exposure):
    return [stops(exposure["detailP90"]), exposure["highlightClip"]]


def main(labels_path, records_path, write=False):
    rows = [(row, record["exposure"]) for row, record, _ in labeled(labels_path, records_path)]
    train = [(row, e) for row, e in rows if row["split"] == "train"]
    acceptable = [e for row, e in train if row["label"] == "0"]
    under = [e for row, e in train if row["label"] == "1" and float(row["ev"]) < 0]
    over = [e for row, e in train if row["label"] == "1" and float(row["ev"]) > 0]
    models = {}
    for name, features, positives, names in [
        ("under", under_features, under, ["median", "detailP90"]),
        ("over", over_features, over, ["detailP90", "highlightClip"]),
    ]:
        X = [features(e) for e in acceptable + positives]
        y = [0] * len(acceptable) + [1] * len(positives)
        intercept, weights = fit_logistic(X, y)
        models[name] = (features, intercept, weights, names)
        print(name, "intercept", round(intercept, 4), *(f"{n} {w:.4f}" for n, w in zip(names, weights)))
    figures = {}
    for split in ("train", "test"):
        part = [(row, e) for row, e in rows if row["split"] == split]
        evidence = [max(i + float(np.dot(w, f(e))) for f, i, w, _ in models.values()) for _, e in part]
        pos = [z for (row, _), z in zip(part, evidence) if row["label"] == "1"]
        neg = [z for (row, _), z in zip(part, evidence) if row["label"] == "0"]
        figures[f"{split}AUC"] = auc(pos, neg)
        print(split, "AUC", round(figures[f"{split}AUC"], 3))
    if write:
        write_model(
            os.path.join(MODELS, "exposure.json"), "exposure", f"{os.path.relpath(labels_path)}, train split ({len(train)} images)",
            figures, evidence={name: (i, dict(zip(names, w))) for name, (_, i, w, names) in models.items()},
            mapping={"midpoint": 0, "slope": 1, "logarithmic": False})


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--write-model"]
    if len(args) != 2:
        sys.exit(__doc__)
    main(args[0], args[1], write="--write-model" in sys.argv)
