#!/usr/bin/env python3
"""What reading pages as documents costs over reading their text: `imgquality ocr --format
document` against `ocr --format jsonl` on the same pages, in one run.

    Benchmarks/document_cost.py [INPUTS…] [--rounds 3] [--binary PATH]

INPUTS default to the document-structure set (Datasets/structure: clean renders and simulated
phone photos). Both commands run with `--force` (every page recognized, whatever the gate
says), `--jobs 1` and OMP_THREAD_LIMIT=1, interleaved round by round; the medians of the
whole batch's wall time are compared, and of its CPU time (user and system, of the process
and its threads): the CPU time moves less with what else the machine runs. The document path adds ZBar's scan, the page's
rectification, the grid search, the painting out of rules, the re-reading of cells the page's
reading left empty, and the structure and data found from the words; `structureMs` in its
records is that time, and `recognitionMs` the page's reading.

Prints a Markdown table: pages, median seconds of each command, their ratio (the aim: at most
1.25), the same for CPU seconds, and the document path's median structure time per page. Machines are shared and noisy:
compare the ratio within one run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import resource
import time

from benchlib import DEFAULT_BINARY, find_images

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cpu_of_children():
    """User and system seconds of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, fmt, images, env):
    """Wall seconds and CPU seconds of one batch, and its records."""
    start, cpu = time.perf_counter(), cpu_of_children()
    done = subprocess.run([binary, "ocr", "--force", "--quiet", "--jobs", "1", "--format", fmt] + images,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    elapsed, cpu = time.perf_counter() - start, cpu_of_children() - cpu
    return elapsed, cpu, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="*", default=[os.path.join(ROOT, "Datasets", "structure", "clean"),
                                                       os.path.join(ROOT, "Datasets", "structure", "phone")])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    images = find_images(args.inputs)
    if not images:
        sys.exit("document_cost.py: no images")
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    times = {"jsonl": [], "document": []}
    cpu = {"jsonl": [], "document": []}
    structure = []
    for _ in range(args.rounds):
        for fmt in ("jsonl", "document"):
            elapsed, seconds, records = run(args.binary, fmt, images, env)
            times[fmt].append(elapsed)
            cpu[fmt].append(seconds)
            if fmt == "document":
                structure = [r["timing"]["structureMs"] for r in records if "structureMs" in r.get("timing", {})]
    text, document = statistics.median(times["jsonl"]), statistics.median(times["document"])
    text_cpu, document_cpu = statistics.median(cpu["jsonl"]), statistics.median(cpu["document"])
    print("| pages | `ocr --format jsonl` | `ocr --format document` | ratio (aim ≤ 1.25) | CPU: jsonl | CPU: document | CPU ratio | structure per page (median) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(images)} | {text:.1f} s | {document:.1f} s | {document / text:.2f} | "
          f"{text_cpu:.1f} s | {document_cpu:.1f} s | {document_cpu / text_cpu:.2f} | {statistics.median(structure):.0f} ms |")


if __name__ == "__main__":
    main()
