#!/usr/bin/env python3
"""CER and time of OCR configurations on a labeled documents set, in one run on the same files.

    Scripts/measure/ocr_levels.py commands LABELS.csv NAME='COMMAND {}' [NAME='COMMAND {}' ...] [--jobs 2]
    Scripts/measure/ocr_levels.py records LABELS.csv NAME=RECORDS.jsonl [NAME=RECORDS.jsonl ...]

`commands` runs each command (`{}` is the image path) on every image of LABELS.csv and reads
its standard output as the text, e.g.
    accurate='tesseract {} - -l eng --psm 3'  noinvert='tesseract {} - -l eng -c tessedit_do_invert=0'
Time is the CPU time (user + system) of each process, taken from wait4, so running --jobs
processes at once on separate cores changes it little. OMP_THREAD_LIMIT=1 is set.

`records` reads `imgquality ocr --force --format jsonl` output: `text` for the CER and
`timing.recognitionMs` for the time.

    Scripts/measure/ocr_levels.py imgquality LABELS.csv BINARY accurate fast [--jobs 2]

runs `BINARY ocr --force --format jsonl --recognition-level LEVEL` on chunks of 10 images,
the levels taking turns, then summarises as `records` does (the records are kept in
ocr_levels-imgquality-LEVEL.jsonl). Each process starts its engine once, within the first
image's `recognitionMs`; both levels pay it alike.

    Scripts/measure/ocr_levels.py agreement ocr_levels-NAME.jsonl RECORDS.jsonl

compares, image by image, the words a `commands` run read (its detail file, written to the
current directory) with those of imgquality's records, in sequence (difflib's matching blocks
over whitespace-separated words), and counts the words that agree.

LABELS.csv needs `path` and `text_path` (relative to it). The CER is computed as the documents
set's labels were (Scripts/datasets/build.py): whitespace runs collapsed, trimmed, Levenshtein
distance over ground-truth length, capped at 1. Run it with the datasets' virtual environment
(`.venv-datasets/bin/python`, made by Scripts/datasets/make-datasets.sh), whose packages
build.py imports.
"""
import csv
import difflib
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from measurelib import DATASETS, cer, load_records

sys.path.insert(0, DATASETS)
from build import word_f1  # noqa: E402


@lru_cache(maxsize=None)
def text(path):
    return open(path, encoding="utf-8").read()


def rows(labels):
    base = os.path.dirname(os.path.abspath(labels))
    for row in csv.DictReader(open(labels)):
        yield os.path.join(base, row["path"]), text(os.path.join(base, row["text_path"]))


def run_command(template, path):
    argv = [path if a == "{}" else a for a in shlex.split(template)]
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as process:
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        print(f"{argv[0]} exited with {process.returncode} on {path}", file=sys.stderr)
    return out.decode("utf-8", "replace"), usage.ru_utime + usage.ru_stime


def summarise(name, results, baseline_time):
    if not results:
        print(f"{name:14s} no results")
        return baseline_time
    cers = [r[0] for r in results]
    f1s = [r[1] for r in results]
    seconds = sum(r[2] for r in results)
    ratio = seconds / baseline_time if baseline_time else 1.0
    print(f"{name:14s} n={len(results):4d}  CER mean {statistics.mean(cers):.4f}  median {statistics.median(cers):.4f}"
          f"  word F1 mean {statistics.mean(f1s):.4f}  time {seconds:8.1f} s (mean {seconds / len(results) * 1000:6.0f} ms)"
          f"  ratio {ratio:.3f}")
    return seconds


def commands(labels, specs, jobs):
    images = list(rows(labels))
    baseline = None
    for spec in specs:
        name, template = spec.split("=", 1)
        with ThreadPoolExecutor(jobs) as pool:
            outputs = list(pool.map(lambda item: run_command(template, item[0]), images))
        results = [(cer(truth, text), word_f1(truth, text), seconds) for (_, truth), (text, seconds) in zip(images, outputs)]
        detail = f"ocr_levels-{name}.jsonl"
        with open(detail, "w") as out:
            for (path, _), (c, f, s), (text, _) in zip(images, results, outputs):
                out.write(json.dumps({"path": path, "cer": round(c, 4), "wordF1": round(f, 4), "seconds": round(s, 3), "text": text}) + "\n")
        total = summarise(name, results, baseline)
        baseline = baseline or total


def records(labels, specs):
    images = list(rows(labels))
    baseline = None
    for spec in specs:
        name, path = spec.split("=", 1)
        by_path = load_records(path)
        results = []
        for image, truth in images:
            record = by_path.get(os.path.abspath(image))
            if record is None or "error" in record or record.get("text") is None:
                print(f"{name}: no text for {image}", file=sys.stderr)
                continue
            results.append((cer(truth, record["text"]), word_f1(truth, record["text"]), record["timing"]["recognitionMs"] / 1000))
        total = summarise(name, results, baseline)
        baseline = baseline or total


def interleaved(labels, binary, levels, jobs, chunk=10):
    """`imgquality ocr --force` at each level, on chunks of `chunk` images, the levels taking
    turns (and turns about which goes first), so that a change in the machine's load over the
    run falls on every level alike. Writes ocr_levels-imgquality-LEVEL.jsonl and summarises."""
    images = [path for path, _ in rows(labels)]
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    outputs = {level: open(f"ocr_levels-imgquality-{level}.jsonl", "w") for level in levels}
    for index, start in enumerate(range(0, len(images), chunk)):
        order = levels if index % 2 == 0 else list(reversed(levels))
        for level in order:
            run = subprocess.run([binary, "ocr", "--force", "--format", "jsonl", "--jobs", str(jobs), "--recognition-level", level]
                                 + images[start:start + chunk], capture_output=True, text=True, env=env)
            if run.returncode not in (0, 1):  # 1: some rejected, still recognized with --force
                print(f"{level}: imgquality ocr exited with {run.returncode}: {run.stderr.strip()[-500:]}", file=sys.stderr)
            outputs[level].write(run.stdout)
    for out in outputs.values():
        out.close()
    records(labels, [f"{level}=ocr_levels-imgquality-{level}.jsonl" for level in levels])


def agreement(program_detail, records_path):
    """Word sequences of the program (a `commands` detail file) against imgquality's records."""
    ours = {path: record["text"].split() for path, record in load_records(records_path).items() if record.get("text") is not None}
    pages = identical = matched = longest = 0
    for line in open(program_detail):
        row = json.loads(line)
        words = ours.get(os.path.abspath(row["path"]))
        if words is None:
            print(f"no imgquality text for {row['path']}", file=sys.stderr)
            continue
        theirs = row["text"].split()
        same = sum(block.size for block in difflib.SequenceMatcher(None, theirs, words, autojunk=False).get_matching_blocks())
        pages += 1
        identical += theirs == words
        matched += same
        longest += max(len(theirs), len(words))
        if theirs != words:
            print(f"  {os.path.basename(row['path'])}: {same} of {max(len(theirs), len(words))} words in sequence")
    print(f"{pages} images, {identical} with identical word sequences; {matched} of {longest} words agree"
          f" ({longest - matched} differ, {matched / max(1, longest):.4%})")


def main():
    args = sys.argv[1:]
    jobs = 2
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) >= 3 and args[0] == "commands":
        start = time.time()
        commands(args[1], args[2:], jobs)
        print(f"({time.time() - start:.0f} s wall)")
    elif len(args) >= 3 and args[0] == "records":
        records(args[1], args[2:])
    elif len(args) >= 4 and args[0] == "imgquality":
        interleaved(args[1], args[2], args[3:], jobs)
    elif len(args) == 3 and args[0] == "agreement":
        agreement(args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
