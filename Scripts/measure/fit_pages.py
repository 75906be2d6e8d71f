#!/usr/bin/env python3
"""Fits the document gate's reading predictor (`ReadingPredictor`, Models/text.json) on page
corpora (Scripts/corpus/PAGES.md) and reports how it ranks and gates pages it was not fitted on.

    Scripts/corpus/make-page-corpus.sh --out CORPUS
    Scripts/corpus/score-page-corpus.sh CORPUS            # CORPUS/score.jsonl, with the layout probe
    Scripts/corpus/read-page-corpus.py CORPUS             # CORPUS/labels-imgquality.csv: what imgquality reads
    imgquality score --probe --format jsonl --languages en Datasets/documents > DOCS.jsonl
    Scripts/measure/fit_pages.py CORPUS [CORPUS ...] --documents DOCS.jsonl [--report LABELS RECORDS] [--write-model]

What it fits, on the train documents of the project's two generated document sets (split by
source document, never by degradation): the corpora's, to the word F1 imgquality's recognizer
(Tesseract through libtesseract, on the page's luma) reaches on each page (`score` of
labels-imgquality.csv), and Datasets/documents' train split, to its `word_f1`, each of its
pages counted as many times as make the set weigh as much as the corpora (`--documents-weight`;
0 fits on the corpora alone, as earlier models were). Datasets/documents renders other
text in other fonts and degrades it by other means (Gaussian and motion blur by known widths,
downscaling); fitted on the corpora alone, every model that ranked the corpora better let more
of its misreads through. By the
binomial likelihood, a logistic model in one of two forms: by default (`--knots 0`, the
bundled model's form) each measure weighed as it is, with a ridge of `--smoothing` (1) on
standardised measures; with `--knots K` each measure entering through a monotone curve
(piecewise linear through K knots at quantiles of the train pages, straight on beyond them,
rising or falling as physics says; a ridge of `--smoothing` on the squared steps between
knots), written as the `shapes` of the model file (`DetectorModel.Shape`); with `--either K`
the selection offers each measure both ways, straight (a monotone line) or through a K-knot
curve, and takes whichever form its criterion prefers; with `--trees N`, N gradient-boosted
regression trees on the same likelihood, monotone in each measure (scikit-learn; written as the
evidence's `trees`). The two models:

- `accuracy`: the image's measures alone;
- `accuracyWithLayout`: those and the layout probe's (Tesseract's layout analysis,
  `imgquality score` without --no-probe): the log of `gate.probe.laidOutShare` and the log of
  the characters a laid-out line holds (`characters / lines`), when the selection takes them.

Each model's reference is the median of its measures over train pages read at 0.9 or better:
the gate names the measure falling furthest below it. `minimumPredictedAccuracy` is the
largest threshold that rejects at most `--loss` (5%) of each fitted set's train pages read at
0.9 or better, each page predicted by the layout model (the command line's default) fitted
without its document, in the selection's 5 folds: a page the model has not seen. Only pages the gate judges as documents are
fitted and counted (the others are judged as photos, and the number is printed).

Which measures each model weighs is chosen here, each time: forward selection over the measures
`ReadingPredictor` computes (CANDIDATES), each entering with the sign physics gives it (bigger
and sharper text reads better; skew, blur, noise read worse). The criterion is the mean of two
Spearman correlations on the project's two generated document sets, each over its own train
pages predicted out of fold (5 folds of the documents of both sets; with --documents-weight 0,
Datasets/documents' with the weights fitted on the corpora). A measure enters when it raises
the mean by 0.01: a cue that helps one set and hurts the other does not.

`--report LABELS RECORDS` prints the same figures on other labeled sets (a `score` column):
fitted on nothing, chosen on nothing. Datasets/documents' test split is reported by CER as its
"Done when" states it: misreads (CER > 0.3) rejected, good pages (CER < 0.05) lost.
"""
import argparse
import csv
import json
import math
import os
import sys

import numpy as np

from measurelib import MODELS, fit_logistic, fit_monotone_additive, load_records, shape_value, spearman, write_model

# The measures ReadingPredictor computes, by name, as it computes them, each with the sign it
# must enter a model with.
CANDIDATES = {
    "logLegibility": (1, lambda r: math.log(max(r["text"]["legibility"], 0.5))),
    "skew": (-1, lambda r: r["text"]["skew"]),
    "logLaidOutShare": (1, lambda r: math.log(max(r["gate"]["probe"]["laidOutShare"], 0.01))),
    "logLaidOutLineLength": (1, lambda r: math.log(max(1, r["gate"]["probe"]["characters"] / max(1, r["gate"]["probe"]["lines"])))),
    "logSoftEdgeOverXHeight": (-1, lambda r: math.log(max(r["text"]["softEdgeWidth"] / max(r["text"]["xHeight"], 1), 0.01))),
    "logXHeight": (1, lambda r: math.log(max(r["text"]["xHeight"], 1))),
    "logXHeightP10": (1, lambda r: math.log(max(r["text"]["xHeightP10"], 1))),
    "logLineBlur": (-1, lambda r: math.log(max(r["text"]["lineBlur"], 0.02))),
    "logLineBlurP90": (-1, lambda r: math.log(max(r["text"]["lineBlurP90"], 0.02))),
    "lineContrast": (1, lambda r: r["text"]["lineContrast"] / 100),
    "lineContrastP10": (1, lambda r: r["text"]["lineContrastP10"] / 100),
    "contrast": (1, lambda r: r["text"]["contrast"] / 100),
    "logLineNoise": (-1, lambda r: math.log(max(r["text"]["lineNoise"], 0.003))),
    "logSkewSpread": (-1, lambda r: math.log(r["text"]["skewSpread"] + 0.1)),
    "ungrouped": (-1, lambda r: r["text"]["ungrouped"]),
    "logEdgeAnisotropy": (-1, lambda r: math.log(max(r["text"]["edgeAnisotropy"], 1))),
    "binarized": (1, lambda r: r["text"]["binarized"]),
    "logBinarized": (1, lambda r: math.log(max(r["text"]["binarized"], 0.02))),
    "logXHeightSpread": (-1, lambda r: math.log(max(r["text"]["lineXHeight"], 1) / max(r["text"]["xHeightP10"], 1))),
    "logLineBlurSpread": (-1, lambda r: math.log(max(r["text"]["lineBlurP90"], 0.02) / max(r["text"]["lineBlur"], 0.02))),
    "lineContrastSpread": (-1, lambda r: (r["text"]["lineContrast"] - r["text"]["lineContrastP10"]) / 100),
    "logMarkOverXHeight": (1, lambda r: min(0.0, math.log(max(r["text"].get("markHeight", 0), 1) / max(r["text"]["xHeight"], 1)))),
}
FEATURES = {name: f for name, (_, f) in CANDIDATES.items()}
# The measures only a layout probe gives.
PROBE = {"logLaidOutShare", "logLaidOutLineLength"}


def pages(labels, records, prefix=""):
    """(row, record) for each labeled page the gate judged as a document; and how many it did not."""
    records = load_records(records)
    base = os.path.dirname(os.path.abspath(labels))
    out, photos = [], 0
    for row in csv.DictReader(open(labels)):
        record = records.get(os.path.abspath(os.path.join(base, row["path"])))
        if record is None or "error" in record:
            continue
        if record["gate"].get("content") != "document" or "text" not in record:
            photos += 1
            continue
        row = dict(row, document=prefix + row.get("document", row.get("page", row["path"])))
        out.append((row, record))
    return out, photos


def has_probe(record):
    probe = record["gate"].get("probe")
    return probe is not None and probe.get("error") is None


# A name ending in CURVED is its measure entering through a monotone curve (`--knots`,
# `--either`); an unmarked name enters straight.
CURVED = "~"


def measure_of(name):
    return name[:-len(CURVED)] if name.endswith(CURVED) else name


def matrix(pairs, names, table=None):
    table = table or FEATURES
    return np.array([[table[measure_of(n)](record) for n in names] for _, record in pairs])


def truth(pairs):
    return np.array([float(row["score"]) for row, _ in pairs])


def term(curve, column):
    """A measure's term: a weight times the measure, or a curve (knots, values) of it."""
    if isinstance(curve[0], str):
        return curve[1] * column
    return shape_value(curve, column)


def logit(intercept, curves, X):
    """The model's log-odds for the rows of X, one column per curve, or by the trees of a
    boosted fit (curves [("trees", trees, names)], X a column per name)."""
    if curves and curves[0][0] == "trees":
        return intercept + trees_value(curves[0][1], X, curves[0][2])
    return intercept + sum(term(curve, X[:, j]) for j, curve in enumerate(curves))


def predict(model, pairs):
    intercept, weights = model[0], model[1]
    if len(model) > 4 and model[4]:
        names = tree_measures(model[4])
        z = intercept + trees_value(model[4], matrix(pairs, names), names)
        return 1 / (1 + np.exp(-np.clip(z, -60, 60)))
    names = list(weights)
    shapes = model[3] if len(model) > 3 else {}
    curves = [shapes[n] if n in shapes else ("linear", weights[n]) for n in names]
    z = logit(intercept, curves, matrix(pairs, names))
    return 1 / (1 + np.exp(-np.clip(z, -60, 60)))


# The boosted form's settings (--trees, --depth, --learning-rate, --leaf); None for the
# logistic forms.
TREES = None


def trees_value(trees, X, names):
    """The sum of the leaves each row of X (a column per name) reaches, tree by tree, as
    `DetectorModel.LinearModel.treesValue` walks them: a value at or below a split's
    threshold goes to `atOrBelow`."""
    column = {measure_of(n): j for j, n in enumerate(names)}
    total = np.zeros(len(X))

    def walk(tree, index, rows):
        node = tree[index]
        if "value" in node:
            total[rows] += node["value"]
            return
        below = X[rows, column[node["measure"]]] <= node["threshold"]
        walk(tree, node["atOrBelow"], rows[below])
        walk(tree, node["above"], rows[~below])

    for tree in trees:
        walk(tree, 0, np.arange(len(X)))
    return total


def fit_trees(X, y, names, counts):
    """(intercept, [("trees", trees, names)]): gradient-boosted regression trees on the
    binomial likelihood of the word F1 (each page a read, counted y times its weight, and an
    unread, counted 1 − y times), each tree at most TREES["depth"] deep with leaves of at
    least TREES["leaf"] pages, monotone in each measure the way physics says
    (scikit-learn's HistGradientBoostingClassifier). The trees are taken out as the model
    file holds them, numbers at 4 decimals, and the sum checked against scikit-learn's."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
    except ImportError:
        sys.exit("--trees needs scikit-learn: pip install -r Scripts/measure/requirements.txt")
    counts = np.ones(len(y)) if counts is None else counts
    signs = [CANDIDATES[measure_of(n)][0] for n in names]
    # Each page is two rows (read and unread), which reach the same leaf.
    model = HistGradientBoostingClassifier(
        max_iter=TREES["trees"], max_depth=TREES["depth"], learning_rate=TREES["rate"], min_samples_leaf=2 * TREES["leaf"],
        l2_regularization=1.0, monotonic_cst=signs, early_stopping=False, random_state=0)
    model.fit(np.r_[X, X], np.r_[np.ones(len(y)), np.zeros(len(y))], sample_weight=np.r_[counts * y, counts * (1 - y)])
    intercept = float(np.ravel(model._baseline_prediction)[0])
    trees = []
    for (grown,) in model._predictors:
        tree = []
        for node in grown.nodes:
            if node["is_leaf"]:
                tree.append({"value": float(node["value"])})
            else:
                tree.append({"measure": measure_of(names[int(node["feature_idx"])]), "threshold": float(node["num_threshold"]),
                             "atOrBelow": int(node["left"]), "above": int(node["right"])})
        trees.append(tree)
    # As the model file holds them: thresholds as they are (scikit-learn may split at a
    # measured value itself, which a rounded threshold would send the other way), values and
    # the intercept at 4 decimals; the sum checked against scikit-learn's to within that.
    trees = [[{k: round(v, 4) if k == "value" else v for k, v in node.items()} for node in tree] for tree in trees]
    rounded = round(intercept, 4)
    if not np.allclose(rounded + trees_value(trees, X, names), model.decision_function(X), atol=5e-5 * (len(trees) + 1)):
        difference = np.abs(rounded + trees_value(trees, X, names) - model.decision_function(X))
        sys.exit(f"the trees taken out of scikit-learn do not sum as it does (its node layout changed?): {int((difference > 5e-5 * (len(trees) + 1)).sum())} rows, by up to {difference.max():.6f}")
    return rounded, [("trees", trees, names)]


def counts_of(pairs):
    """How many times each page counts in a fit (a row's `weight`, 1 unless set)."""
    return np.array([float(row.get("weight", 1)) for row, _ in pairs])


def fit_curves(X, y, names, knots, smoothing, counts=None):
    """(intercept, curves). With knots 0 each measure is weighed as it is (a logistic
    regression with a ridge of `smoothing` on standardised measures; the curve ("linear", w));
    else the measures named as curved enter through monotone curves of that many knots and
    the others through straight monotone lines (two knots), fitted together. Row i counts
    counts[i] times."""
    if TREES:
        return fit_trees(X, y, names, counts)
    if knots == 0:
        intercept, weights = fit_logistic(X, y, ridge=smoothing, weights=counts)
        return intercept, [("linear", float(w)) for w in weights]
    signs = [CANDIDATES[measure_of(n)][0] for n in names]
    columns = [knots if n.endswith(CURVED) else 2 for n in names]
    return fit_monotone_additive(X, y, signs, knots=columns, ridge=smoothing, weights=counts)


def against_physics(names, curves):
    """Whether a weight has the sign physics forbids (curves are monotone by construction)."""
    return any(c[0] == "linear" and np.sign(c[1]) != CANDIDATES[measure_of(n)][0] for n, c in zip(names, curves))


def fit(pairs, names, knots, smoothing):
    """(intercept, weights, reference[, shapes]): a curved measure is weighed 1 through its curve."""
    intercept, curves = fit_curves(matrix(pairs, names), truth(pairs), names, knots, smoothing, counts_of(pairs))
    good = [p for p in pairs if float(p[0]["score"]) >= 0.9]
    if not good:
        sys.exit("no train page is read at 0.9 or better: the models' reference cannot be taken")
    reference = {measure_of(n): float(np.median(matrix(good, [n])[:, 0])) for n in names}
    if TREES:
        # The reference of the measures the trees split on (a selected measure no split
        # reads is not part of the model).
        used = set(tree_measures(curves[0][1]))
        return intercept, {}, {k: v for k, v in reference.items() if k in used}, {}, curves[0][1]
    if knots == 0:
        return intercept, {n: c[1] for n, c in zip(names, curves)}, reference
    weights, shapes = {}, {}
    for n, (grid, values) in zip(names, curves):
        if not n.endswith(CURVED):
            # A straight line through two knots: its slope, the rest into the intercept.
            slope = float((values[1] - values[0]) / (grid[1] - grid[0]))
            weights[n] = slope
            intercept += float(values[0] - slope * grid[0])
        else:
            weights[measure_of(n)], shapes[measure_of(n)] = 1.0, (grid, values)
    return intercept, weights, reference, shapes


def out_of_fold(pairs, names, knots, smoothing):
    """Each page's log-odds by the model of `names` fitted on the other pages' documents, in 5
    folds of documents (the selection's and the threshold's)."""
    documents = sorted({row["document"] for row, _ in pairs})
    fold = {d: i % 5 for i, d in enumerate(documents)}
    folds = np.array([fold[row["document"]] for row, _ in pairs])
    X, y, counts = matrix(pairs, names), truth(pairs), counts_of(pairs)
    out = np.zeros(len(pairs))
    for k in range(5):
        intercept, curves = fit_curves(X[folds != k], y[folds != k], names, knots, smoothing, counts[folds != k])
        out[folds == k] = logit(intercept, curves, X[folds == k])
    return out


def tree_measures(trees):
    """The measures the trees split on."""
    return sorted({node["measure"] for tree in trees for node in tree if "measure" in node})


def threshold_for(predicted, scores, loss):
    """The largest threshold rejecting at most `loss` of the pages read at 0.9 or better."""
    good = np.sort(predicted[scores >= 0.9])
    if len(good) == 0:
        return 0.5
    allowed = int(math.floor(loss * len(good)))
    return float(good[allowed]) if allowed < len(good) else float(good[-1])


def figures(name, pairs, predicted, threshold, by_cer=False):
    scores = truth(pairs)
    gate = np.array([record["gate"]["score"] for _, record in pairs])
    pixels = np.array([record["width"] * record["height"] for _, record in pairs])
    out = {"spearman": spearman(predicted, scores), "gateScoreSpearman": spearman(gate, scores), "pixelSpearman": spearman(pixels, scores)}
    line = (f"  {name} ({len(pairs)} pages): Spearman with the score: predicted {out['spearman']:.3f}, "
            f"gate.score of the records {out['gateScoreSpearman']:.3f}, pixel count {out['pixelSpearman']:.3f}")
    if by_cer:
        cer = np.array([float(row["cer"]) for row, _ in pairs])
        bad, good = cer > 0.3, cer < 0.05
        label_bad, label_good = "misreads (CER > 0.3)", "good pages (CER < 0.05)"
    else:
        bad, good = scores < 0.5, scores >= 0.9
        label_bad, label_good = "read below 0.5", "read at 0.9 or better"
    rejected = predicted < threshold
    out["badRejected"] = float(rejected[bad].mean()) if bad.any() else float("nan")
    out["goodRejected"] = float(rejected[good].mean()) if good.any() else float("nan")
    line += (f"; at {threshold:.3f}: rejects {int(rejected[bad].sum())}/{int(bad.sum())} {label_bad}, "
             f"{int(rejected[good].sum())}/{int(good.sum())} {label_good}")
    print(line)
    return out


def select(train, secondary, knots, smoothing, allow_probe, either=False):
    """The forward selection the module docstring describes; prints each step. `train` may hold
    the second set's train pages (rows with `set` "documents"): then both sets' Spearman are
    taken over the same 5 folds of documents, out of fold; otherwise the second set's is
    taken with the weights fitted on the corpus's train pages."""
    pooled = any(row.get("set") == "documents" for row, _ in train)
    second_rows = np.array([row.get("set") == "documents" for row, _ in train])
    y, counts = truth(train), counts_of(train)

    def cross_validated(names):
        out = out_of_fold(train, names, knots, smoothing)
        if not pooled:
            return spearman(out, y), None
        return spearman(out[~second_rows], y[~second_rows]), spearman(out[second_rows], y[second_rows])

    chosen, best = [], -1.0
    candidates = [n for n in CANDIDATES if allow_probe or n not in PROBE]
    # Straight only (knots 0), curved only (--knots), or either form (--either).
    if knots:
        candidates = ([] if not either else candidates) + [n + CURVED for n in candidates]
    while True:
        scored = []
        for name in candidates:
            if measure_of(name) in {measure_of(c) for c in chosen}:
                continue
            names = chosen + [name]
            # A set scored without the probe (imgquality score without --probe) cannot judge
            # the probe's measures.
            if PROBE & {measure_of(n) for n in names} and not all(has_probe(record) for _, record in train + secondary):
                if allow_probe and not chosen:
                    print(f"  ({measure_of(name)} not offered: some records have no layout probe; score them with --probe)")
                continue
            intercept, curves = fit_curves(matrix(train, names), y, names, knots, smoothing, counts)
            if against_physics(names, curves):
                continue
            corpus, second = cross_validated(names)
            if second is None:
                second = spearman(logit(intercept, curves, matrix(secondary, names)), truth(secondary))
            scored.append(((corpus + second) / 2, corpus, second, name))
        if not scored:
            break
        both, corpus, second, name = max(scored)
        if both < best + 0.01:
            break
        best = both
        chosen.append(name)
        print(f"  + {name}: cross-validated Spearman {corpus:.3f} on the corpus, {second:.3f} on Datasets/documents train"
              + (" (out of fold)" if pooled else ""))
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", metavar="CORPUS", help="page corpora, each with labels.csv and score.jsonl")
    parser.add_argument("--documents", required=True, metavar="RECORDS", help="records of Datasets/documents (imgquality score --probe --languages en)")
    parser.add_argument("--report", nargs=2, action="append", default=[], metavar=("LABELS", "RECORDS"))
    parser.add_argument("--knots", type=int, default=0,
                        help="knots of each measure's curve, at quantiles of the train pages; 0 (the bundled model's form) weighs each measure as it is")
    parser.add_argument("--either", type=int, default=0, metavar="K",
                        help="each measure may enter straight or through a monotone curve of K knots, as the selection chooses (straight ones as monotone lines, fitted with the curves)")
    parser.add_argument("--trees", type=int, default=0, metavar="N",
                        help="fit N gradient-boosted regression trees, monotone in each measure, instead of a logistic model (needs scikit-learn)")
    parser.add_argument("--depth", type=int, default=2, help="with --trees: each tree's depth")
    parser.add_argument("--learning-rate", type=float, default=0.2, help="with --trees: the share of each tree's correction kept")
    parser.add_argument("--leaf", type=int, default=20, help="with --trees: the fewest pages a leaf holds")
    parser.add_argument("--smoothing", type=float, default=1.0,
                        help="the ridge: on the standardised weights (--knots 0), or on the squared steps between a curve's knots")
    parser.add_argument("--loss", type=float, default=0.05, help="share of train pages read at 0.9 or better the threshold may reject")
    parser.add_argument("--labels", default="labels-imgquality.csv", metavar="NAME",
                        help="each corpus's labels file: by default the pages as imgquality's own recognizer reads them "
                             "(Scripts/corpus/read-page-corpus.py); labels.csv for the tesseract program's reading")
    parser.add_argument("--documents-weight", type=float, default=None, metavar="W",
                        help="how many times each train page of Datasets/documents counts in the fit; by default as many "
                             "as make the set weigh as much as the corpora's train pages; 0 fits on the corpora alone")
    parser.add_argument("--write-model", action="store_true", help="write Sources/QualityMetrics/Models/text.json")
    args = parser.parse_args()
    if args.either:
        args.knots = args.either
    if args.trees:
        if args.knots:
            sys.exit("--trees fits trees on the measures as they are: it takes no --knots or --either")
        global TREES
        TREES = {"trees": args.trees, "depth": args.depth, "rate": args.learning_rate, "leaf": args.leaf}

    train, test, photos = [], [], 0
    for corpus in args.corpora:
        pairs, skipped = pages(os.path.join(corpus, args.labels), os.path.join(corpus, "score.jsonl"), prefix=os.path.basename(os.path.abspath(corpus)) + "/")
        photos += skipped
        train += [p for p in pairs if p[0]["split"] == "train"]
        test += [p for p in pairs if p[0]["split"] == "test"]
    unprobed = [p for p in train + test if not has_probe(p[1])]
    if unprobed:
        sys.exit(f"{len(unprobed)} pages have no layout probe result (score them with Scripts/corpus/score-page-corpus.sh)")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    documents_labels = os.path.join(root, "Datasets", "documents", "labels.csv")
    documents, _ = pages(documents_labels, args.documents, prefix="documents/")
    documents_test = [p for p in documents if p[0]["split"] == "test"]
    # The second set's train pages, labeled like the corpora's by word F1, fitted on with the
    # corpora's unless --documents-weight 0.
    documents_train = [(dict(row, score=row["word_f1"], set="documents"), record) for row, record in documents if row["split"] == "train"]
    weight = len(train) / max(1, len(documents_train)) if args.documents_weight is None else args.documents_weight
    documents_train = [(dict(row, weight=weight), record) for row, record in documents_train]
    fitted = train + (documents_train if weight > 0 else [])
    print(f"corpora: {len(train)} train pages ({len({r['document'] for r, _ in train})} documents), "
          f"{len(test)} test pages ({len({r['document'] for r, _ in test})} documents); {photos} pages judged as photos, not fitted")

    measures = {}
    for name, allow_probe in (("accuracy", False), ("accuracyWithLayout", True)):
        print(f"selection of {name}'s measures" + (" (the layout probe's among them):" if allow_probe else " (the image's alone):"))
        measures[name] = select(fitted, documents_train, args.knots, args.smoothing, allow_probe, either=args.either > 0)
    models = {name: fit(fitted, names, args.knots, args.smoothing) for name, names in measures.items()}
    # The threshold may reject at most --loss of the good train pages of each set fitted on,
    # each page predicted by the layout model fitted without its document (5 folds), as a
    # page the model has not seen would be: a flexible form predicts its own pages too well.
    unseen = 1 / (1 + np.exp(-np.clip(out_of_fold(fitted, measures["accuracyWithLayout"], args.knots, args.smoothing), -60, 60)))
    corpus = np.array([row.get("set") != "documents" for row, _ in fitted])
    # A set with no good train page says nothing of the threshold.
    sets = [rows for rows in (corpus, ~corpus) if (truth(fitted)[rows] >= 0.9).any()]
    threshold = min(threshold_for(unseen[rows], truth(fitted)[rows], args.loss) for rows in sets)
    results = {}
    for name, model in models.items():
        shapes = model[3] if len(model) > 3 else {}
        if len(model) > 4 and model[4]:
            print(f"{name}: {len(model[4])} trees on " + ", ".join(sorted(model[2])) + f"; intercept {model[0]:.4f}")
            print("  reference: " + "; ".join(f"{k} {v:.4f}" for k, v in sorted(model[2].items())))
        else:
            print(f"{name}: intercept {model[0]:.4f}; " + "; ".join(
                f"{n} " + (" ".join(f"{k:.3f}:{v:+.3f}" for k, v in zip(*shapes[n])) if n in shapes else f"{model[1][n]:.4f}") for n in model[1]))
        results[name] = {
            "train": figures("corpus train", train, predict(model, train), threshold),
            "test": figures("corpus test", test, predict(model, test), threshold),
        }
        if weight > 0:
            figures("Datasets/documents train", documents_train, predict(model, documents_train), threshold)
    # Datasets/documents and the reported sets have no probe in their records unless scored
    # with one; the image model stands for them when they have none.
    def best_model(pairs):
        return models["accuracyWithLayout"] if pairs and all(has_probe(r) for _, r in pairs) else models["accuracy"]

    print("reported (fitted on nothing):")
    results["documentsTest"] = figures("Datasets/documents test", documents_test, predict(best_model(documents_test), documents_test), threshold, by_cer=True)
    for labels, records in args.report:
        reported, _ = pages(labels, records)
        figures(os.path.relpath(labels), reported, predict(best_model(reported), reported), threshold)

    if args.write_model:
        figures_out = {}
        for name in measures:
            for split in ("train", "test"):
                for key, value in results[name][split].items():
                    figures_out[f"{name}.{split}.{key}"] = value
        for key, value in results["documentsTest"].items():
            figures_out[f"documentsTest.{key}"] = value
        def described(corpus):
            manifest = os.path.join(corpus, "manifest.json")
            if not os.path.exists(manifest):
                return os.path.basename(os.path.abspath(corpus))
            made = json.load(open(manifest))
            return f"--seed {made.get('seed')} --count {made.get('count')}"
        data = (f"page corpora made by Scripts/corpus/make-page-corpus.sh {'; '.join(described(c) for c in args.corpora)}, "
                f"train split: {len(train)} pages of {len({r['document'] for r, _ in train})} documents")
        if weight > 0:
            data += (f"; Datasets/documents train split: {len(documents_train)} pages of "
                     f"{len({r['document'] for r, _ in documents_train})} documents, each counted {weight:.2f} times")
        thresholds = {
            "minimumPredictedAccuracy": (threshold, f"the largest that rejects at most {args.loss:.0%} of the train pages Tesseract reads at word F1 0.9 or better"
                                         f"{' in each set fitted on' if weight > 0 else ''}, each predicted by the layout model fitted without its document (5 folds)"),
            "minimumLegibility": (0.0, "off: the predicted accuracy weighs legibility; a profile may set a floor"),
            "minimumLinePitch": (0.0, "off: the predicted accuracy weighs size; a profile may set a floor"),
        }
        write_model(os.path.join(MODELS, "text.json"), "text", data, {k: v for k, v in figures_out.items() if math.isfinite(v)},
                    evidence=models, thresholds=thresholds)


if __name__ == "__main__":
    main()
