"""How well a score follows the graded distortion ladders (Scripts/corpus/ladders.py).

Within a ladder (one source photo, one distortion kind, rungs 0–5 where 0 is the clean
reference) every rung is worse than the one before it, so a quality score should fall along
it: a ladder's figure is the Spearman correlation of the score with −rung. Two summaries:

- `within`: the mean over ladders of that correlation (does the score fall with the
  distortion, photo by photo);
- `pooled`: per kind, the Spearman of the score with −rung over all the kind's ladders
  together (are the rungs comparable across scenes), then the mean over kinds.

Beside the ladders, each photo's intent renderings (ladders.py's INTENT: the photo in black
and white) are clean scenes with no rungs: `intent_auc` says whether a score ranks them above
the ladders' fourth and fifth rungs, as it should rank a clean photo.
"""
import csv
import os
from collections import defaultdict

from measurelib import auc, spearman


# The kinds of ladders.csv that are clean intent renderings, not ladders (ladders.py's INTENT).
INTENT_KINDS = ("monochrome",)


def ladder_rows(folder, split=None, intent=False):
    """The rows of ladders.csv (of `split` when given), each with `file`, the absolute path:
    the ladders' rungs, or with `intent` the intent renderings."""
    rows = []
    for row in csv.DictReader(open(os.path.join(folder, "ladders.csv"))):
        if split and row["split"] != split:
            continue
        if (row["kind"] in INTENT_KINDS) != intent:
            continue
        row["file"] = os.path.abspath(os.path.join(folder, row["path"]))
        row["level"] = int(row["level"])
        rows.append(row)
    return rows


def ladder_figures(rows, value):
    """{'within': mean per-ladder Spearman, 'pooled': mean per-kind pooled Spearman,
    'kinds': {kind: (within, pooled)}} of `value(row)` (None rows are skipped) with −rung."""
    ladders = defaultdict(list)
    kinds = defaultdict(list)
    for row in rows:
        v = value(row)
        if v is None:
            continue
        ladders[(row["source"], row["kind"])].append((row["level"], v))
        kinds[row["kind"]].append((row["level"], v))
    per_kind = defaultdict(list)
    for (_, kind), points in ladders.items():
        if len(points) >= 3:
            rho = spearman([-p[0] for p in points], [p[1] for p in points])
            per_kind[kind].append(0.0 if rho != rho else rho)
    result = {}
    for kind in sorted(kinds):
        points = kinds[kind]
        pooled = spearman([-p[0] for p in points], [p[1] for p in points])
        within = sum(per_kind[kind]) / len(per_kind[kind]) if per_kind[kind] else float("nan")
        result[kind] = (within, pooled)
    within_all = [rho for values in per_kind.values() for rho in values]
    return {
        "within": sum(within_all) / len(within_all) if within_all else float("nan"),
        "pooled": sum(p for _, p in result.values()) / len(result) if result else float("nan"),
        "kinds": result,
    }


def intent_auc(intent, rows, value):
    """The AUC of `value` for the intent renderings over the ladders' fourth and fifth rungs
    (every kind, every photo of `rows`): 1 when every black-and-white photo outranks them."""
    return auc([value(r) for r in intent], [value(r) for r in rows if r["level"] >= 4])
