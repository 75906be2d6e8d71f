#!/usr/bin/env python3
"""Fits the smudge detector's combination of cues on the train split of Datasets/smudge.

    imgquality score --detectors smudge --format jsonl Datasets/smudge/images > smudge.jsonl
    Scripts/measure/fit_smudge.py Datasets/smudge/labels.csv smudge.jsonl [--write-model] [CUE ...]

Logistic regression (Newton–Raphson, ridge 0.01 on standardised features) of the
label on the smudge record's cues (by default the ones SmudgeDetector combines; name
others to compare). Prints the weights on the raw scale and the AUC on train and on the
held-out test split; with --write-model (default cues only) writes them as the evidence of
the bundled model file Sources/QualityMetrics/Models/smudge.json, keeping its mapping and
threshold.
"""
import csv
import json
import os
import sys

import numpy as np

from measurelib import MODELS, auc, fit_logistic, write_model

FEATURES = ["veilFraction", "veilShare"]


def main(labels_path, records_path, features=FEATURES, write=False):
    base = os.path.dirname(os.path.abspath(labels_path))
    records = {os.path.abspath(json.loads(l)["path"]): json.loads(l) for l in open(records_path)}
    X = {"train": [], "test": []}
    Y = {"train": [], "test": []}
    for row in csv.DictReader(open(labels_path)):
        smudge = records[os.path.abspath(os.path.join(base, row["path"]))]["smudge"]
        X[row["split"]].append([smudge[f] for f in features])
        Y[row["split"]].append(int(row["label"]))
    X = {k: np.array(v) for k, v in X.items()}
    Y = {k: np.array(v) for k, v in Y.items()}
    intercept, raw = fit_logistic(X["train"], Y["train"])
    print("intercept", round(intercept, 4))
    for name, value in zip(features, raw):
        print(name, round(float(value), 4))
    figures = {}
    for split in ("train", "test"):
        z = intercept + X[split] @ raw
        figures[f"{split}AUC"] = auc(z[Y[split] == 1], z[Y[split] == 0])
        print(split, "AUC", round(figures[f"{split}AUC"], 3))
    if write:
        if features != FEATURES:
            sys.exit("--write-model takes the detector's own cues only")
        write_model(
            os.path.join(MODELS, "smudge.json"), "smudge", f"{os.path.relpath(labels_path)}, train split ({len(Y['train'])} images)",
            figures, evidence={"smudge": (intercept, dict(zip(features, raw)))},
            mapping={"midpoint": 0, "slope": 1, "logarithmic": False})


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--write-model"]
    if len(args) < 2:
        sys.exit(__doc__)
    main(args[0], args[1], args[2:] or FEATURES, write="--write-model" in sys.argv)
