#!/usr/bin/env python3
"""Fits the blur, exposure, smudge, noise and compression models on the camera-simulator corpus and chooses each
default threshold for a stated cost.

    Scripts/corpus/make-camera-corpus.sh --out CORPUS
    imgquality score --format jsonl --all-files CORPUS/images > CORPUS/score.jsonl
    Scripts/measure/fit_camera.py CORPUS CORPUS/score.jsonl [--cost 0.015] [--write-model]

Everything is fitted and chosen on the corpus's train photos (its `split` column: by source
photo, never by degradation) and reported on its held-out test photos. No other set is read.

- blur: the logistic evidence of ln `edgeWidth` and ln `spread` (the two widths where the
  frame is sharpest) and `cepstralDip` (the blur kernel's dip in the cepstrum of the sharpest
  tiles), `defocus` and `motion` rows of label 1 against every row the blur labels call fine.
  The dip's form (tile selection, lags) was chosen by a 4-fold cross-validation over the train
  photos (folds by source photo; docs/experiments.md). Beside it, the `motion` evidence: which
  kind a blur is, the logistic of `dipIsotropy` (how evenly the dip runs round its circle),
  `motion` rows of label 1 against `defocus` rows of label 1; the detector names a blur motion
  when it is above 0 (`blur.kind`).
- exposure: three logistic evidences, each of two measures, `under`, `over` and `backlit`
  rows of label 1 against every row the exposure labels call fine (clean photos, scenes
  dark or bright on purpose, other defects, mild exposure errors); the detector takes the
  largest. Under: the median and the detail's 90th percentile in stops; over: the median
  in stops and colourClip; backlit: the median and the 90th percentile in stops. Over
  and backlit were chosen among the record's measures by a 4-fold cross-validation over
  the train photos (folds by source photo); for under that cross-validation preferred
  lights in the frame (log10(colourClip)), which the corpus separates only because its
  under-exposed images lose their lamps with the rest of the scene while its night
  scenes have them: real under-exposed photos keep them, so the cue was dropped
  (docs/experiments.md).
  With --physics-signs a measure whose exposure weight takes the sign physics forbids
  (EXPOSURE_SIGNS: a brighter frame is not more under-exposed, nor a darker one more
  over-exposed) is left out of its evidence and the rest refitted; the bundled model was
  fitted without it (its under evidence weighs the median +0.25 a stop).
- smudge: the logistic evidence of the two veil measures, `smudge` rows of label 1 against
  every row the smudge labels call fine (fog, haze and blur among them).
- noise: the logistic evidence of ln `sigma` (sensor noise in linear light), `noise` rows of
  label 1 against every other row.
- compression: the logistic evidence of ln `dcStep` (the DC quantizer step of the last
  coarse JPEG compression), `jpeg` rows of label 1 against every other row.

The cost: each detector's threshold is the lowest that rejects at most `--cost` of the
corpus's fine photos (labels.csv label 0: clean, on-purpose and mild) of the train split.
The five together then reject at most five times that. With --write-model the fitted
weights or mapping and the thresholds, with their rule, go into
Sources/QualityMetrics/Models/{blur,exposure,smudge,noise,compression}.json.
"""
import argparse
import csv
import math
import os
from collections import defaultdict

import numpy as np

from measurelib import MODELS, auc, fit_logistic, load_records, write_model


def stops(level):
    """An 8-bit level as stops from mid-grey, as ExposureDetector's `stops` computes it."""
    u = max(level, 0.5) / 255
    linear = u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4
    return math.log2(linear / 0.18)


def sigmoid(z):
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))


class Row:
    """One corpus image: its labels-*.csv columns and its record."""

    def __init__(self, row, record):
        self.row, self.record = row, record
        self.split, self.source, self.defect = row["split"], row["source"], row["defect"]
        self.kind, self.intent = row["kind"], row["intent"]
        self.fine = row["label"] == "0"
        self.strength = float(row["strength"] or 0)


# What each detector's evidence reads of the record, and how its confidence is made.
# Measures are in the units the Swift detectors read: tone levels as stops from mid-grey.
EXPOSURE_EVIDENCE = {
    "under": (["median", "detailP90"], lambda e: [stops(e["median"]), stops(e["detailP90"])]),
    "over": (["median", "colourClip"], lambda e: [stops(e["median"]), e["colourClip"]]),
    "backlit": (["median", "p90", "detailP90"], lambda e: [stops(e["median"]), stops(e["p90"]), stops(e["detailP90"])]),
}
SMUDGE_EVIDENCE = {"smudge": (["veilFraction", "veilShare"], lambda s: [s["veilFraction"], s["veilShare"]])}
# BlurDetector.logOdds: the natural logarithm of each width, at least 0.001 px, and the cepstral dip as it is.
BLUR_EVIDENCE = {"blur": (["edgeWidth", "spread", "cepstralDip"], lambda b: [
    math.log(max(b["edgeWidth"], 1e-3)), math.log(max(b["spread"], 1e-3)), b["cepstralDip"]])}
# NoiseDetector and CompressionDetector: the natural logarithm of sigma (at least 1e-5) and of dcStep.
NOISE_EVIDENCE = {"noise": (["logSigma"], lambda n: [math.log(max(n["sigma"], 1e-3))])}
COMPRESSION_EVIDENCE = {"compression": (["logDCStep"], lambda c: [math.log(max(c["dcStep"], 1))])}
DEFECTS = {"blur": {"defocus", "motion"}, "exposure": {"under", "over", "backlit"}, "smudge": {"smudge"},
           "noise": {"noise"}, "compression": {"jpeg"}}


def evidence_of(models, observation):
    """The largest of the fitted evidences (log-odds)."""
    return max(i + float(np.dot(w, features(observation))) for features, i, w, _ in models.values())


# The sign physics gives each exposure measure's weight (--physics-signs): a brighter frame is
# not more under-exposed, nor a darker one more over-exposed; a backlit subject is dark in a
# bright frame. None: either sign.
EXPOSURE_SIGNS = {"under": [-1, -1], "over": [1, 1], "backlit": [-1, 1, None]}


def fit_with_signs(X, y, signs, ridge):
    """A logistic fit in which a measure whose weight takes the sign physics forbids is left
    out (weight 0) and the others fitted again, until every weight is allowed or one measure
    is left (which keeps its fitted weight, whatever its sign)."""
    X = np.asarray(X, float)
    kept = list(range(X.shape[1]))
    while True:
        intercept, w = fit_logistic(X[:, kept].tolist(), y, ridge=ridge)
        wrong = [k for k, v in zip(kept, w) if signs[k] is not None and np.sign(v) == -signs[k]]
        if not wrong or len(kept) == 1:
            weights = [0.0] * X.shape[1]
            for k, v in zip(kept, w):
                weights[k] = float(v)
            return intercept, weights
        kept.remove(wrong[0])


def fit_evidences(rows, detector, spec, ridge, physics_signs=False):
    """Fits one logistic evidence per defect direction on the train rows; with `physics_signs`,
    an exposure evidence keeps only measures whose weights take the sign physics allows."""
    train = [r for r in rows if r.split == "train"]
    negatives = [r for r in train if not (r.defect in DEFECTS[detector] and not r.fine)]
    models = {}
    for name, (names, features) in spec.items():
        positives = [r for r in train if not r.fine and (r.defect == name if detector == "exposure" else r.defect in DEFECTS[detector])]
        X = [features(r.record[detector]) for r in negatives + positives]
        y = [0] * len(negatives) + [1] * len(positives)
        if physics_signs and detector == "exposure":
            intercept, weights = fit_with_signs(X, y, EXPOSURE_SIGNS[name], ridge)
        else:
            intercept, weights = fit_logistic(X, y, ridge=ridge)
        models[name] = (features, intercept, weights, names)
        print(f"  {name}: intercept {intercept:.4f}", *(f"{n} {w:.4f}" for n, w in zip(names, weights)),
              f"({len(positives)} defective, {len(negatives)} fine)")
    return models


def fit_kind(rows, ridge):
    """The blur's `motion` evidence: motion rows of label 1 against defocus rows of label 1 of
    the train split, by the logistic of `dipIsotropy`."""
    blurred = [r for r in rows if r.split == "train" and not r.fine and r.defect in DEFECTS["blur"]]
    X = [[r.record["blur"]["dipIsotropy"]] for r in blurred]
    y = [int(r.defect == "motion") for r in blurred]
    intercept, weights = fit_logistic(X, y, ridge=ridge)
    print(f"  motion: intercept {intercept:.4f} dipIsotropy {weights[0]:.4f} ({sum(y)} motion, {len(y) - sum(y)} defocus)")
    return intercept, weights


def report_kind(rows, motion_odds, confidence, threshold):
    """Per split, of the defocus and motion rows of label 1, how many are named by their kind:
    all of them, and those the threshold rejects."""
    figures = {}
    for split in ("train", "test"):
        blurred = [r for r in rows if r.split == split and not r.fine and r.defect in DEFECTS["blur"]]
        named = lambda r: (motion_odds(r) > 0) == (r.defect == "motion")
        parts = []
        for defect in ("defocus", "motion"):
            every = [r for r in blurred if r.defect == defect]
            rejected = [r for r in every if confidence(r) > threshold]
            figures[f"{split}Named_{defect}"] = sum(map(named, every)) / len(every)
            figures[f"{split}NamedRejected_{defect}"] = sum(map(named, rejected)) / max(1, len(rejected))
            parts.append(f"{defect} {sum(map(named, every))}/{len(every)} ({sum(map(named, rejected))}/{len(rejected)} rejected)")
        print(f"  {split}: kind named right: " + ", ".join(parts))
    return figures


def threshold_for_cost(confidences, cost):
    """The lowest threshold (confidence must exceed it to reject) under which at most `cost`
    of these fine photos are rejected, halfway to the next confidence above it: a measure
    of a few discrete values (a quantizer step) gives many photos the same confidence, and
    the threshold must not sit on them, where rounding the model's weights decides."""
    values = sorted(confidences)
    allowed = int(math.floor(cost * len(values)))
    if allowed >= len(values):
        return 0.0
    # Rejecting the `allowed` highest: the threshold lies above the next one down.
    kept = values[len(values) - allowed - 1]
    above = [v for v in values[len(values) - allowed:] if v > kept]
    return (kept + above[0]) / 2 if above else kept


def report(rows, detector, confidence, threshold):
    """Per split: AUC, fine photos rejected, each defect kind rejected, each intent passed."""
    figures = {}
    for split in ("train", "test"):
        part = [r for r in rows if r.split == split]
        pos = [confidence(r) for r in part if r.defect in DEFECTS[detector] and not r.fine]
        neg = [confidence(r) for r in part if not (r.defect in DEFECTS[detector] and not r.fine)]
        figures[f"{split}AUC"] = auc(pos, neg)
        fine = [confidence(r) for r in part if r.fine]
        figures[f"{split}FineRejected"] = sum(c > threshold for c in fine) / len(fine)
        caught = defaultdict(list)
        for r in part:
            if r.defect in DEFECTS[detector] and not r.fine:
                caught[r.defect].append(confidence(r) > threshold)
        line = ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(caught.items()))
        for k, v in caught.items():
            figures[f"{split}Rejected_{k}"] = sum(v) / len(v)
        print(f"  {split}: AUC {figures[f'{split}AUC']:.4f}; fine rejected {sum(c > threshold for c in fine)}/{len(fine)}; defective rejected {line}")
        by_intent = defaultdict(list)
        for r in part:
            if r.fine and r.intent:
                by_intent[r.intent].append(confidence(r) > threshold)
        if by_intent:
            print("    on-purpose scenes rejected:", ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_intent.items())))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("records")
    parser.add_argument("--cost", type=float, default=0.015, help="share of fine train photos each detector may reject (default 0.015)")
    parser.add_argument("--ridge", type=float, default=1.0,
                        help="ridge on the standardised weights (default 1): where the corpus separates a defect "
                             "perfectly, a small ridge lets one measure's weight grow without bound")
    parser.add_argument("--physics-signs", action="store_true",
                        help="leave out of an exposure evidence a measure whose weight takes the sign physics forbids (EXPOSURE_SIGNS)")
    parser.add_argument("--write-model", action="store_true")
    parser.add_argument("--only", default="blur,exposure,smudge,noise,compression")
    args = parser.parse_args()

    records = load_records(args.records)
    labels = os.path.join(args.corpus, "labels.csv")
    rows = []
    for row in csv.DictReader(open(labels)):
        record = records.get(os.path.abspath(os.path.join(args.corpus, row["path"])))
        if record is None or "error" in record:
            raise SystemExit(f"no record for {row['path']}: score the whole corpus first")
        rows.append(Row(row, record))
    sources = {r.source for r in rows if r.split == "train"}
    data = f"camera-simulator corpus ({os.path.relpath(labels)}), train split: {sum(r.split == 'train' for r in rows)} images of {len(sources)} photos"
    percent = f"{100 * args.cost:g}%"
    rule = (f"the lowest threshold rejecting at most {percent} of the fine photos (clean, shot dark or bright on purpose, "
            f"mild defects) of the camera corpus's train split, halfway to the next fine photo's confidence above it "
            f"(Scripts/measure/fit_camera.py --cost {args.cost:g})")
    only = args.only.split(",")

    for detector, spec in (("blur", BLUR_EVIDENCE), ("exposure", EXPOSURE_EVIDENCE), ("smudge", SMUDGE_EVIDENCE),
                           ("noise", NOISE_EVIDENCE), ("compression", COMPRESSION_EVIDENCE)):
        if detector not in only:
            continue
        print(detector)
        models = fit_evidences(rows, detector, spec, args.ridge, args.physics_signs)
        # The confidence as the model file maps the evidence. BlurDetector also lowers it on
        # frames of fewer than 8 textured tiles, which this leaves out: the cost is an upper bound.
        confidence = lambda r, m=models, d=detector: sigmoid(evidence_of(m, r.record[d]))
        t = threshold_for_cost([confidence(r) for r in rows if r.split == "train" and r.fine], args.cost)
        print(f"  threshold {t:.4f}")
        figures = report(rows, detector, confidence, t)
        evidence = {name: (i, dict(zip(names, w))) for name, (_, i, w, names) in models.items()}
        if detector == "blur":
            intercept, weights = fit_kind(rows, args.ridge)
            evidence["motion"] = (intercept, {"dipIsotropy": weights[0]})
            figures.update(report_kind(rows, lambda r: intercept + weights[0] * r.record["blur"]["dipIsotropy"], confidence, t))
        thresholds = {detector: (t, rule)}
        if detector == "noise":
            # NoiseDetector judges only images as large as these photos: in a smaller copy,
            # texture fills every tile and reads as grain. Their full size is their decoded
            # size while none is 3 840 px or more (JPEG decodes at half size from there).
            smallest = min(max(int(r.row["width"]), int(r.row["height"])) for r in rows if r.split == "train")
            thresholds["minimumLongSide"] = (smallest, "the smallest long side of the camera corpus's train photos: smaller images are not judged")
            print(f"  judged from a long side of {smallest} px")
        if args.write_model:
            write_model(
                os.path.join(MODELS, f"{detector}.json"), detector, data, figures,
                evidence=evidence,
                mapping={"midpoint": 0, "slope": 1, "logarithmic": False}, thresholds=thresholds)


if __name__ == "__main__":
    main()
