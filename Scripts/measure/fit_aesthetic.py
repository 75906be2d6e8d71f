#!/usr/bin/env python3
"""Fits the aesthetic score on the graded distortion ladders and writes its model file.

    Scripts/corpus/make-ladders.sh                     # the ladders (about 6 minutes)
    swift build -c release --product imgquality
    .venv-corpus/bin/python Scripts/measure/fit_aesthetic.py [--ladders DIR] [--records FILE]

The score is a product of penalties, one per distortion a photo suffers, each read from
one measurement of the record:

    L = −Σ_k scale_k · softplus(intercept_k + weight_k · m_k),   score = 1 / (1 + e^−slope·(L − midpoint))

with the measures (the same transforms in `AestheticsDetector`):

| penalty | measure m | from |
|---|---|---|
| sharpness | ln(blur.edgeWidth + 0.5) | wide edges where the image is sharpest |
| shake | ln(blur.spread + 0.1) | a shake that dwells: sharp copies, each with its share of the gradient |
| noise | ln(aesthetic.noise + 0.1) | sensor noise |
| blocking | aesthetic.blockiness | JPEG blocks |
| underExposure, overExposure | exposure.underEvidence, overEvidence | exposure |
| colour | ln(max(0, aesthetic.colourfulness − 0.3 · colourCast) + 1) | washed-out colour (the spread of the chroma) |
| cast | aesthetic.colourCast | a white-balance cast (the mean chroma) |

Each penalty is a soft hinge: flat on the good side of a knee, rising with slope `c` past it,
its smoothness `s` shared. The fit minimises a ranking loss on the train photos' ladders
(for every two rungs of one ladder, the milder should score higher; and, at half weight, as
many pairs of one kind's rungs two or more apart on different photos, so scores compare
across scenes; and as many again putting a photo rendered in black and white, a clean scene,
above rungs two and up of any photo), from several starts. The smoothness, and whether the colour penalty's knee is
fitted or held at a quantile of the clean photos' colour (so that a distortion that adds
colour, as over-exposure does, earns nothing), are chosen by cross-validation over the train
photos (folds by photo), on the mean of the within-ladder, pooled and monochrome figures. The test
photos are scored once, at the end. The logistic map puts the clean photos and the first rung
(label 1) against the fourth and fifth (label 0), so 0.5 lies between them; it does not
change the order.

Figures written to the model: `cvWithin`, `cvPooled` and `cvMonochrome` (the chosen
variant's cross-validated figures), `trainWithin`, `testWithin`, `testPooled`,
`testMonochrome` and each kind's test `within` (ladder_measure.py says what they are).
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy.optimize import minimize

from ladder_measure import intent_auc, ladder_figures, ladder_rows
from measurelib import MODELS, fit_logistic, load_records, write_model

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Penalty → (measure name in the model, how it is read from a record, direction: +1 when a
# larger value is worse, −1 when a smaller one is).
PENALTIES = {
    "sharpness": ("logEdgeWidth", lambda r: math.log(r["blur"]["edgeWidth"] + 0.5), 1),
    "shake": ("logSpread", lambda r: math.log(r["blur"]["spread"] + 0.1), 1),
    "noise": ("logNoise", lambda r: math.log(r["aesthetic"]["noise"] + 0.1), 1),
    "blocking": ("blockiness", lambda r: r["aesthetic"]["blockiness"], 1),
    "underExposure": ("underEvidence", lambda r: r["exposure"]["underEvidence"], 1),
    "overExposure": ("overEvidence", lambda r: r["exposure"]["overEvidence"], 1),
    "colour": ("logChromaSpread",
               lambda r: math.log(max(0.0, r["aesthetic"]["colourfulness"] - 0.3 * r["aesthetic"]["colourCast"]) + 1), -1),
    "cast": ("colourCast", lambda r: r["aesthetic"]["colourCast"], 1),
}
NAMES = list(PENALTIES)
TAU = 0.05      # the ranking loss's temperature on the log score
CROSS = 0.5     # the weight of pairs across photos (a kind's rungs two or more apart)
RIDGE = 1e-4    # on the fitted parameters (log slopes, knees), standardised units
STARTS = 4      # random starts per fit


class Fit:
    """Slopes (log), knees and the shared smoothness, in standardised units."""

    def __init__(self, smoothness, colour_quantile):
        self.smoothness = smoothness
        self.colour_quantile = colour_quantile

    def standardise(self, records, files, clean_files):
        values = np.array([[PENALTIES[k][1](records[f]) for k in NAMES] for f in files])
        self.mu, self.sd = values.mean(axis=0), values.std(axis=0) + 1e-9
        self.sign = np.array([PENALTIES[k][2] for k in NAMES], float)
        clean = np.array([[PENALTIES[k][1](records[f]) for k in NAMES] for f in clean_files])
        self.fixed = {}
        if self.colour_quantile is not None:
            j = NAMES.index("colour")
            u = self.sign[j] * (clean[:, j] - self.mu[j]) / self.sd[j]
            self.fixed[j] = float(np.quantile(u, self.colour_quantile))

    def u(self, values):
        return self.sign * (values - self.mu) / self.sd

    def log_score(self, theta, u):
        c, t = np.exp(theta[0::2]), theta[1::2].copy()
        for j, knee in self.fixed.items():
            t[j] = knee
        s = self.smoothness
        return -(c * np.logaddexp(0, s * (u - t)) / s).sum(axis=1)

    def fit(self, records, rows, intent):
        files = sorted({r["file"] for r in rows + intent})
        self.standardise(records, files, sorted({r["file"] for r in rows if r["level"] == 0}))
        u = {f: self.u(np.array([PENALTIES[k][1](records[f]) for k in NAMES])) for f in files}
        good, bad, weight = [], [], []
        for rungs in ladders(rows).values():
            for a, b in itertools.combinations(rungs, 2):
                if a["level"] != b["level"]:
                    g, w = (a, b) if a["level"] < b["level"] else (b, a)
                    good.append(u[g["file"]])
                    bad.append(u[w["file"]])
                    weight.append(1.0)
        # As many pairs again across photos, drawn per kind, so rungs compare across scenes.
        draw = np.random.default_rng(3)
        by_kind = {}
        for r in rows:
            by_kind.setdefault(r["kind"], []).append(r)
        per_kind = len(good) // len(by_kind)
        for kind in sorted(by_kind):
            members = by_kind[kind]
            for _ in range(per_kind):
                a, b = members[draw.integers(len(members))], members[draw.integers(len(members))]
                if a["source"] == b["source"] or abs(a["level"] - b["level"]) < 2:
                    continue
                g, w = (a, b) if a["level"] < b["level"] else (b, a)
                good.append(u[g["file"]])
                bad.append(u[w["file"]])
                weight.append(CROSS)
        # As many pairs again putting a photo in black and white (a clean scene) above any
        # photo's rungs two and up, so that no colour penalty reads a choice as a defect.
        worse = [r for r in rows if r["level"] >= 2]
        for _ in range(per_kind if intent else 0):
            a, b = intent[draw.integers(len(intent))], worse[draw.integers(len(worse))]
            good.append(u[a["file"]])
            bad.append(u[b["file"]])
            weight.append(CROSS)
        good, bad, weight = np.array(good), np.array(bad), np.array(weight)

        def loss(theta):
            d = (self.log_score(theta, good) - self.log_score(theta, bad)) / TAU
            return np.sum(weight * np.logaddexp(0, -d)) / weight.sum() + RIDGE * np.sum(theta ** 2)

        rng = np.random.default_rng(20261127)
        best = None
        for _ in range(STARTS):
            theta0 = np.array([v for _ in NAMES for v in (rng.uniform(-3, 1), rng.uniform(-2, 2))])
            result = minimize(loss, theta0, method="L-BFGS-B")
            if best is None or result.fun < best.fun:
                best = result
        self.theta = best.x
        return self

    def scores(self, records, files):
        values = np.array([[PENALTIES[k][1](records[f]) for k in NAMES] for f in files])
        return dict(zip(files, self.log_score(self.theta, self.u(values))))

    def penalties(self):
        """{penalty: (intercept, {measure: weight}, scale)} on the measures' raw scale."""
        out = {}
        s = self.smoothness
        for j, name in enumerate(NAMES):
            c = math.exp(self.theta[2 * j])
            t = self.fixed.get(j, self.theta[2 * j + 1])
            weight = s * self.sign[j] / self.sd[j]
            intercept = -s * self.sign[j] * self.mu[j] / self.sd[j] - s * t
            out[name] = (intercept, {PENALTIES[name][0]: weight}, c / s)
        return out


def ladders(rows):
    by = {}
    for r in rows:
        by.setdefault((r["source"], r["kind"]), []).append(r)
    return by


def within(fit, records, rows, intent):
    scores = fit.scores(records, sorted({r["file"] for r in rows + intent}))
    figures = ladder_figures(rows, lambda r: scores[r["file"]])
    figures["intent"] = intent_auc(intent, rows, lambda r: scores[r["file"]])
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ladders", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "imgquality", "ladders"))
    parser.add_argument("--records", help="`imgquality score` JSON Lines of the ladders' images (default: scored now)")
    parser.add_argument("--imgquality", default=os.path.join(ROOT, ".build", "release", "imgquality"))
    parser.add_argument("--out", default=os.path.join(MODELS, "aesthetic.json"))
    parser.add_argument("--folds", type=int, default=4)
    args = parser.parse_args()

    rows = ladder_rows(args.ladders)
    intent = ladder_rows(args.ladders, intent=True)
    if args.records:
        records = load_records(args.records)
    else:
        files = sorted({r["file"] for r in rows + intent})
        run = subprocess.run([args.imgquality, "score", "--jobs", "2", "--format", "jsonl", "-"],
                             input="\n".join(files) + "\n", capture_output=True, text=True)
        records = {os.path.abspath(json.loads(line)["path"]): json.loads(line) for line in run.stdout.splitlines()}
    missing = [r["path"] for r in rows + intent if r["file"] not in records or "error" in records[r["file"]]]
    if missing:
        sys.exit(f"{len(missing)} ladder images have no record, e.g. {missing[0]}")
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    intent_train = [r for r in intent if r["split"] == "train"]
    intent_test = [r for r in intent if r["split"] == "test"]

    # Cross-validation over the train photos, folds by photo.
    sources = sorted({r["source"] for r in train})
    fold_of = {s: i % args.folds for i, s in enumerate(sources)}
    variants = [(s, q) for s in (2.0, 4.0) for q in (None, 0.75)]
    cv, cv_within, cv_pooled, cv_intent = {}, {}, {}, {}
    for smoothness, quantile in variants:
        held_out = []
        for k in range(args.folds):
            fit = Fit(smoothness, quantile).fit(records, [r for r in train if fold_of[r["source"]] != k],
                                                [r for r in intent_train if fold_of[r["source"]] != k])
            held_out.append(within(fit, records, [r for r in train if fold_of[r["source"]] == k],
                                   [r for r in intent_train if fold_of[r["source"]] == k]))
        key = (smoothness, quantile)
        cv_within[key] = float(np.mean([f["within"] for f in held_out]))
        cv_pooled[key] = float(np.mean([f["pooled"] for f in held_out]))
        cv_intent[key] = float(np.mean([f["intent"] for f in held_out]))
        # Falling along each ladder, comparable across scenes, and black and white as clean
        # count alike.
        cv[key] = (cv_within[key] + cv_pooled[key] + cv_intent[key]) / 3
        print(f"smoothness {smoothness}, colour knee {'fitted' if quantile is None else f'clean p{quantile * 100:.0f}'}: "
              f"cross-validated within {cv_within[key]:.3f}, pooled {cv_pooled[key]:.3f}, "
              f"monochrome {cv_intent[key]:.3f}", flush=True)
    smoothness, quantile = max(cv, key=cv.get)

    fit = Fit(smoothness, quantile).fit(records, train, intent_train)
    on_train, on_test = within(fit, records, train, intent_train), within(fit, records, test, intent_test)
    # The map: clean and first rungs against fourth and fifth, on the train photos.
    scores = fit.scores(records, sorted({r["file"] for r in train}))
    labelled = [(scores[r["file"]], 1 if r["level"] <= 1 else 0) for r in train if r["level"] <= 1 or r["level"] >= 4]
    x = np.array([v for v, _ in labelled])
    y = np.array([label for _, label in labelled], float)
    intercept, (slope,) = fit_logistic(x[:, None], y)
    mapping = {"midpoint": -intercept / slope, "slope": slope, "logarithmic": False}

    figures = {"cvWithin": cv_within[(smoothness, quantile)], "cvPooled": cv_pooled[(smoothness, quantile)],
               "cvMonochrome": cv_intent[(smoothness, quantile)],
               "trainWithin": on_train["within"], "testWithin": on_test["within"],
               "testPooled": on_test["pooled"], "testMonochrome": on_test["intent"]}
    for kind, (rho, _) in on_test["kinds"].items():
        figures[f"testWithin.{kind}"] = rho
    choice = f"smoothness {smoothness}, colour knee {'fitted' if quantile is None else f'at the clean photos p{quantile * 100:.0f}'}"
    print(f"chosen: {choice}")
    print(json.dumps({k: round(v, 3) for k, v in figures.items()}, indent=1))
    write_model(
        args.out, "aesthetic",
        f"{args.ladders.replace(os.path.expanduser('~'), '~')}/ladders.csv (train photos; {choice}, by {args.folds}-fold cross-validation over them)",
        figures, evidence=fit.penalties(), mapping=mapping)


if __name__ == "__main__":
    main()
