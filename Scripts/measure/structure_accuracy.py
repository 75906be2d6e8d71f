#!/usr/bin/env python3
"""Scores `imgquality ocr --format document` records against the truth of the structure
dataset (Datasets/structure/truth.jsonl): tables, row and column counts, cell text, list
items, barcodes and detected data, per capture (clean render / phone photo).

Usage:
  structure_accuracy.py --truth Datasets/structure/truth.jsonl RECORDS.jsonl
                        [--split train|test|all] [--capture clean|phone] [--by-gate] [--markdown]
  structure_accuracy.py --truth Datasets/structure/truth.jsonl --self-check

RECORDS.jsonl holds one JSON record per image as the CLI prints it; a record is matched to a
truth image when its path ends with the truth path (so paths as given on the command line,
e.g. Datasets/structure/phone/x.jpg, work). Images without a record, with an "error", or
rejected by the gate ("document": null) count as finding nothing.

Rules (Datasets/structure/README.md):
- tables found: truth table matched one-to-one (greedy by IoU) by a predicted table of box
  IoU >= 0.5;
- row and column counts exact: over all truth tables, the matched table has the same rows
  and columns;
- cell text right: over all truth cells, a predicted cell of the matched table -- by
  (row, column) when the counts are exact, else by box IoU >= 0.5 -- whose text has
  CER <= 0.1 (Levenshtein over the truth's length, after Unicode NFKC, typographic quotes
  and dashes folded to ASCII, whitespace collapsed; case kept);
- list items: truth items matched one-to-one by predicted items of any list of the image
  with CER <= 0.1;
- barcodes: same symbology and exact payload (a UPC-A read as EAN-13 with a leading 0, as
  ZBar and Vision report it, counts); the headline leaves out pdf417, which ZBar cannot read;
- detected data: a prediction is right when it matches a not yet matched truth datum of the
  same kind whose normalised text or value is equal; recall over truth data, precision
  over predictions. Predictions on the planted near misses are counted as such (they are
  false positives like any other).
Plain Python 3, standard library only.
"""

import argparse
import copy
import json
import sys
import unicodedata
from decimal import Decimal, InvalidOperation

TARGETS = {"tables": 0.95, "rowcol": 0.90, "cells": 0.90, "items": 0.90, "barcodes": 0.95,
           "precision": 0.90, "recall": 0.85}
FOLD = str.maketrans({"«": '"', "»": '"', "„": '"', "“": '"', "”": '"', "‘": "'", "’": "'",
                      "‚": "'", "—": "-", "–": "-", "‑": "-", "‐": "-", "−": "-", "…": "..."})
SYMBOLOGIES = ("qr", "ean13", "ean8", "upca", "code128", "code39", "pdf417")
KINDS = ("date", "money", "phone", "email", "url", "measurement", "postalAddress",
         "flightNumber", "trackingNumber")


# --------------------------------------------------------------------------- text

def norm(s):
    s = unicodedata.normalize("NFKC", s or "").translate(FOLD)
    return " ".join(s.split())


def levenshtein(a, b):
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(truth, pred):
    t, p = norm(truth), norm(pred)
    return levenshtein(t, p) / max(1, len(t))


# --------------------------------------------------------------------------- boxes

def iou(a, b):
    if not a or not b:
        return 0.0
    ax1, ay1 = a["x"] + a["width"], a["y"] + a["height"]
    bx1, by1 = b["x"] + b["width"], b["y"] + b["height"]
    iw = min(ax1, bx1) - max(a["x"], b["x"])
    ih = min(ay1, by1) - max(a["y"], b["y"])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / (a["width"] * a["height"] + b["width"] * b["height"] - inter)


def greedy(pairs):
    """pairs: (score, i, j), higher is better; one-to-one, best first."""
    used_i, used_j, out = set(), set(), {}
    for s, i, j in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if i in used_i or j in used_j:
            continue
        used_i.add(i)
        used_j.add(j)
        out[i] = j
    return out


# --------------------------------------------------------------------------- values

def dec(x):
    try:
        return Decimal(str(x))
    except (InvalidOperation, ValueError):
        return None


UNIT_ALIASES = {"°c": "celsius", "degc": "celsius", "c": "celsius", "celsius": "celsius",
                "ml": "ml", "milliliter": "ml", "millilitre": "ml", "kg": "kg", "cm": "cm",
                "ft": "ft", "feet": "ft", "km": "km", "mph": "mph", "mi/h": "mph"}


def value_equal(kind, t, p):
    if p is None:
        return False
    try:
        if kind == "date":
            return str(p)[:10] == t
        if kind == "money":
            return dec(p.get("amount")) == dec(t["amount"]) and \
                str(p.get("currency", "")).upper() == t["currency"]
        if kind == "phone":
            digits = "".join(ch for ch in str(p) if ch.isdigit())
            return digits == t.lstrip("+") and str(p).startswith("+")
        if kind == "measurement":
            pu = UNIT_ALIASES.get(str(p.get("unit", "")).lower().replace(" ", ""), str(p.get("unit")).lower())
            tu = UNIT_ALIASES.get(t["unit"].lower(), t["unit"].lower())
            return abs(float(p.get("value")) - float(t["value"])) < 1e-6 and pu == tu
        if kind == "url":
            def u(x):
                x = str(x).strip().lower()
                for sch in ("https://", "http://"):
                    if x.startswith(sch):
                        x = x[len(sch):]
                return x.rstrip("/")
            return u(p) == u(t)
        if kind in ("flightNumber", "trackingNumber"):
            return str(p).replace(" ", "").upper() == t.replace(" ", "").upper()
        return norm(str(p)).casefold() == norm(t).casefold()
    except (AttributeError, TypeError, ValueError):
        return False


def datum_match(t, p):
    if p.get("kind") != t["kind"]:
        return False
    if norm(p.get("text", "")) == norm(t["text"]):
        return True
    return value_equal(t["kind"], t["value"], p.get("value"))


def barcode_match(t, p):
    sym, pay = p.get("symbology", ""), p.get("payload", "")
    if sym == t["symbology"] and pay == t["payload"]:
        return True
    return t["symbology"] == "upca" and sym == "ean13" and pay == "0" + t["payload"]


# --------------------------------------------------------------------------- scoring

def new_counts():
    c = {k: 0 for k in ("images", "missing", "errors", "rejected", "tables", "tables_found",
                        "rowcol", "cells", "cells_right", "items", "items_right",
                        "paragraphs", "pred_paragraphs", "data", "data_found", "pred_data",
                        "pred_right", "near_misses", "near_hits")}
    c["sym"] = {s: [0, 0] for s in SYMBOLOGIES}
    c["kind"] = {k: [0, 0, 0, 0] for k in KINDS}     # truth, found, predicted, predicted right
    c["ruling"] = {}
    return c


def score_image(t, rec, c):
    c["images"] += 1
    doc = None
    if rec is None:
        c["missing"] += 1
    elif "error" in rec or "document" not in rec:
        c["errors"] += 1
    elif rec.get("document") is None:
        c["rejected"] += 1
    else:
        doc = rec["document"]
    doc = doc or {}
    # tables
    ptabs = doc.get("tables") or []
    m = greedy([(iou(tt["box"], pt.get("box")), i, j) for i, tt in enumerate(t["tables"])
                for j, pt in enumerate(ptabs) if iou(tt["box"], pt.get("box")) >= 0.5])
    for i, tt in enumerate(t["tables"]):
        r = c["ruling"].setdefault(tt["ruling"], [0, 0, 0, 0, 0])   # tables, found, exact, cells, right
        c["tables"] += 1
        r[0] += 1
        c["cells"] += len(tt["cells"])
        r[3] += len(tt["cells"])
        if i not in m:
            continue
        pt = ptabs[m[i]]
        c["tables_found"] += 1
        r[1] += 1
        exact = pt.get("rows") == tt["rows"] and pt.get("columns") == tt["columns"]
        if exact:
            c["rowcol"] += 1
            r[2] += 1
        pcells = pt.get("cells") or []
        if exact:
            by_rc = {(pc.get("row"), pc.get("column")): pc for pc in pcells}
            pairs = {k: by_rc.get((tc["row"], tc["column"])) for k, tc in enumerate(tt["cells"])}
        else:
            cm = greedy([(iou(tc["box"], pc.get("box")), k, j) for k, tc in enumerate(tt["cells"])
                         for j, pc in enumerate(pcells) if iou(tc["box"], pc.get("box")) >= 0.5])
            pairs = {k: pcells[j] for k, j in cm.items()}
        for k, tc in enumerate(tt["cells"]):
            pc = pairs.get(k)
            if pc is not None and cer(tc["text"], pc.get("text", "")) <= 0.1:
                c["cells_right"] += 1
                r[4] += 1
    # list items
    titems = [it for ls in t["lists"] for it in ls["items"]]
    pitems = [it for ls in (doc.get("lists") or []) for it in (ls.get("items") or [])]
    c["items"] += len(titems)
    pairs = []
    for i, ti in enumerate(titems):
        for j, pi in enumerate(pitems):
            e = cer(ti["text"], pi.get("text", ""))
            if e <= 0.1:
                pairs.append((-e, i, j))
    c["items_right"] += len(greedy(pairs))
    # barcodes
    pbars = list(doc.get("barcodes") or [])
    used = set()
    for tb in t["barcodes"]:
        c["sym"][tb["symbology"]][0] += 1
        for j, pb in enumerate(pbars):
            if j not in used and barcode_match(tb, pb):
                used.add(j)
                c["sym"][tb["symbology"]][1] += 1
                break
    # detected data
    pdata = list(doc.get("detectedData") or [])
    c["data"] += len(t["detectedData"])
    c["pred_data"] += len(pdata)
    c["near_misses"] += len(t["nearMisses"])
    for td in t["detectedData"]:
        c["kind"].setdefault(td["kind"], [0, 0, 0, 0])[0] += 1
    matched = set()
    for p in pdata:
        k = c["kind"].setdefault(p.get("kind", "?"), [0, 0, 0, 0])
        k[2] += 1
        hit = None
        for i, td in enumerate(t["detectedData"]):
            if i not in matched and datum_match(td, p):
                hit = i
                break
        if hit is not None:
            matched.add(hit)
            k[3] += 1
            c["kind"][t["detectedData"][hit]["kind"]][1] += 1
            c["pred_right"] += 1
            c["data_found"] += 1
        elif any(iou(nm["box"], p.get("box")) > 0 or norm(nm["text"]) in norm(p.get("text", ""))
                 for nm in t["nearMisses"]):
            c["near_hits"] += 1
    c["paragraphs"] += len(t["paragraphs"])
    c["pred_paragraphs"] += len(doc.get("paragraphs") or [])


def match_records(truth, records):
    by_path = {}
    for r in records:
        p = str(r.get("path", "")).replace("\\", "/")
        by_path.setdefault(p, r)
    out = {}
    for t in truth:
        tp = t["path"]
        rec = by_path.get(tp)
        if rec is None:
            for p, r in by_path.items():
                if p.endswith("/" + tp):
                    rec = r
                    break
        out[tp] = rec
    return out


def gate_passed(rec):
    """Whether the record's gate passed the image (a record without one, or an error, did not)."""
    return bool(rec and isinstance(rec.get("gate"), dict) and rec["gate"].get("pass") is True)


def score(truth, records, split="all", captures=("clean", "phone"), by_gate=False):
    """Counts per capture; with `by_gate`, per capture and gate decision (columns
    "phone, gate passes" and "phone, gate rejects"), each image judged by its record's
    `gate.pass` whether or not it was read with --force."""
    recs = match_records(truth, records)
    res = {}
    for cap in captures:
        groups = [(f"{cap}, gate passes", True), (f"{cap}, gate rejects", False)] if by_gate else [(cap, None)]
        for name, passed in groups:
            c = new_counts()
            for t in truth:
                if t["capture"] == cap and (split == "all" or t["split"] == split) \
                        and (passed is None or gate_passed(recs[t["path"]]) == passed):
                    score_image(t, recs[t["path"]], c)
            res[name] = c
    return res


# --------------------------------------------------------------------------- report

def pct(k, n):
    return f"{100.0 * k / n:.1f}%" if n else "–"


def headline(c):
    bars = [c["sym"][s] for s in SYMBOLOGIES if s != "pdf417"]
    bk, bn = sum(b[1] for b in bars), sum(b[0] for b in bars)
    return [
        ("tables found", c["tables_found"], c["tables"], "tables"),
        ("row+column counts exact", c["rowcol"], c["tables"], "rowcol"),
        ("cell text right (CER <= 0.1)", c["cells_right"], c["cells"], "cells"),
        ("list items (CER <= 0.1)", c["items_right"], c["items"], "items"),
        ("barcodes decoded (no pdf417)", bk, bn, "barcodes"),
        ("detected data precision", c["pred_right"], c["pred_data"], "precision"),
        ("detected data recall", c["data_found"], c["data"], "recall"),
    ]


def report(res, split, markdown):
    out = []
    caps = list(res)
    head = ["metric"] + caps + ["target"]
    rows = []
    for idx, (name, _, _, key) in enumerate(headline(res[caps[0]])):
        cells = []
        for cap in caps:
            _, k, n, _ = headline(res[cap])[idx]
            cells.append(f"{k}/{n} {pct(k, n)}")
        rows.append([name] + cells + [f">= {TARGETS[key]:.0%}" if key not in ("precision", "recall")
                                     else f">= {TARGETS[key]:.2f}"])
    for cap in caps:
        pass
    rows.append(["images (missing / error / rejected)"] +
                [f"{res[cap]['images']} ({res[cap]['missing']} / {res[cap]['errors']} / {res[cap]['rejected']})"
                 for cap in caps] + [""])
    rows.append(["paragraphs truth / predicted (not scored)"] +
                [f"{res[cap]['paragraphs']} / {res[cap]['pred_paragraphs']}" for cap in caps] + [""])
    rows.append(["predictions on near misses"] +
                [f"{res[cap]['near_hits']} of {res[cap]['near_misses']} planted" for cap in caps] + [""])
    out.append(table(head, rows, markdown, f"Structure accuracy, split {split}"))
    # per ruling
    rul = sorted({r for cap in caps for r in res[cap]["ruling"]})
    rows = []
    for r in rul:
        row = [r]
        for cap in caps:
            v = res[cap]["ruling"].get(r, [0] * 5)
            row.append(f"found {v[1]}/{v[0]}, exact {v[2]}/{v[0]}, cells {v[4]}/{v[3]} {pct(v[4], v[3])}")
        rows.append(row)
    out.append(table(["table ruling"] + caps, rows, markdown, "Tables by ruling"))
    rows = []
    for s in SYMBOLOGIES:
        row = [s + (" (not in headline: ZBar cannot decode it)" if s == "pdf417" else "")]
        for cap in caps:
            n, k = res[cap]["sym"][s]
            row.append(f"{k}/{n} {pct(k, n)}")
        rows.append(row)
    out.append(table(["barcodes"] + caps, rows, markdown, "Barcodes decoded, per symbology"))
    rows = []
    kinds = list(KINDS) + sorted({k for cap in caps for k in res[cap]["kind"]} - set(KINDS))
    for k in kinds:
        row = [k]
        for cap in caps:
            n, f, p, pr = res[cap]["kind"].get(k, [0, 0, 0, 0])
            row.append(f"recall {f}/{n} {pct(f, n)}, precision {pr}/{p} {pct(pr, p)}")
        rows.append(row)
    out.append(table(["detected data"] + caps, rows, markdown, "Detected data, per kind"))
    return "\n".join(out)


def table(head, rows, markdown, title):
    if markdown:
        lines = [f"**{title}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = [title, "  ".join(h.ljust(w[i]) for i, h in enumerate(head)),
             "  ".join("-" * x for x in w)]
    lines += ["  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)) for r in rows]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- self-check

def records_from_truth(truth):
    """The records a perfect reader would print."""
    out = []
    for t in truth:
        text = "\n".join(p["text"] for p in t["paragraphs"])
        data = [dict(kind=d["kind"], text=d["text"], range=dict(start=0, length=len(d["text"])),
                     value=d["value"], box=d["box"]) for d in t["detectedData"]]
        doc = dict(text=text, paragraphs=copy.deepcopy(t["paragraphs"]),
                   lists=copy.deepcopy(t["lists"]),
                   tables=[{k: v for k, v in tb.items() if k != "ruling"} for tb in copy.deepcopy(t["tables"])],
                   barcodes=[dict(symbology=b["symbology"], payload=b["payload"], box=b["box"])
                             for b in t["barcodes"]],
                   detectedData=data)
        out.append(dict(path="Datasets/structure/" + t["path"], width=t["width"], height=t["height"],
                        gate={"pass": True}, document=doc))
    return out


def self_check(truth):
    ok = True

    def check(name, got, want):
        nonlocal ok
        good = got == want
        ok &= good
        print(f"{'PASS' if good else 'FAIL'}  {name}: {got} (expected {want})")

    recs = records_from_truth(truth)
    res = score(truth, recs)
    for cap, c in res.items():
        for name, k, n, _ in headline(c):
            check(f"{cap}: {name} perfect", k, n)
        check(f"{cap}: pdf417 perfect", c["sym"]["pdf417"][1], c["sym"]["pdf417"][0])
    base = res
    # Perturbations, on the first clean image with a table.
    i = next(k for k, t in enumerate(truth) if t["capture"] == "clean" and t["tables"] and
             any(d for d in t["detectedData"]))
    t = truth[i]
    tb = t["tables"][0]
    r = copy.deepcopy(recs)
    del r[i]["document"]["tables"][0]
    c = score(truth, r)["clean"]
    check("drop a table: tables found", c["tables_found"], base["clean"]["tables"] - 1)
    check("drop a table: cells right", c["cells_right"], base["clean"]["cells"] - len(tb["cells"]))
    r = copy.deepcopy(recs)
    r[i]["document"]["tables"][0]["cells"][0]["text"] = "completely different text"
    c = score(truth, r)["clean"]
    check("change a cell: cells right", c["cells_right"], base["clean"]["cells"] - 1)
    r = copy.deepcopy(recs)
    r[i]["document"]["tables"][0]["rows"] += 1
    c = score(truth, r)["clean"]
    check("wrong row count: exact", c["rowcol"], base["clean"]["tables"] - 1)
    check("wrong row count: cells by box still right", c["cells_right"], base["clean"]["cells"])
    r = copy.deepcopy(recs)
    r[i]["document"] = None
    c = score(truth, r)["clean"]
    check("rejected image: rejected", c["rejected"], 1)
    check("rejected image: tables found", c["tables_found"], base["clean"]["tables"] - len(t["tables"]))
    r = copy.deepcopy(recs)
    d = r[i]["document"]["detectedData"].pop(0)
    nm = t["nearMisses"][0] if t["nearMisses"] else None
    if nm:
        r[i]["document"]["detectedData"].append(dict(kind="phone", text=nm["text"], value="+1",
                                                     range=dict(start=0, length=1), box=nm["box"]))
    c = score(truth, r)["clean"]
    check("drop a datum: recall", c["data_found"], base["clean"]["data"] - 1)
    if nm:
        check("near miss detected: precision numerator", c["pred_right"], base["clean"]["pred_right"] - 1)
        check("near miss detected: predictions", c["pred_data"], base["clean"]["pred_data"])
        check("near miss detected: near hits", c["near_hits"], 1)
    r = copy.deepcopy(recs)
    j = next(k for k, tt in enumerate(truth) if tt["barcodes"])
    b = r[j]["document"]["barcodes"][0]
    b["payload"] += "x"
    cap = truth[j]["capture"]
    c = score(truth, r)[cap]
    sym = truth[j]["barcodes"][0]["symbology"]
    check(f"wrong payload ({sym}): decoded", c["sym"][sym][1], base[cap]["sym"][sym][1] - 1)
    r = copy.deepcopy(recs)
    r[i]["gate"]["pass"] = False
    g = score(truth, r, by_gate=True)
    check("gate rejects one: images passed", g["clean, gate passes"]["images"], base["clean"]["images"] - 1)
    check("gate rejects one: images rejected", g["clean, gate rejects"]["images"], 1)
    check("gate rejects one: its tables counted there", g["clean, gate rejects"]["tables_found"], len(t["tables"]))
    check("gate rejects one: tables found in all", g["clean, gate passes"]["tables_found"] + g["clean, gate rejects"]["tables_found"],
          base["clean"]["tables_found"])
    r = copy.deepcopy(recs)
    del r[i]
    c = score(truth, r)["clean"]
    check("missing record: missing", c["missing"], 1)
    print("self-check", "passed" if ok else "FAILED")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--truth", required=True)
    ap.add_argument("records", nargs="?")
    ap.add_argument("--split", default="all", choices=("train", "test", "all"))
    ap.add_argument("--capture", choices=("clean", "phone"))
    ap.add_argument("--by-gate", action="store_true",
                    help="a column per capture and gate decision (the record's gate.pass), for pages read with --force")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    with open(args.truth, encoding="utf-8") as f:
        truth = [json.loads(l) for l in f if l.strip()]
    if args.self_check:
        sys.exit(0 if self_check(truth) else 1)
    if not args.records:
        ap.error("RECORDS.jsonl is required (or --self-check)")
    records = []
    with open(args.records, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    caps = (args.capture,) if args.capture else ("clean", "phone")
    res = score(truth, records, args.split, caps, by_gate=args.by_gate)
    print(report(res, args.split, args.markdown))


if __name__ == "__main__":
    main()
