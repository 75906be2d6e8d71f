#!/usr/bin/env python3
"""`imgquality serve` under load: wrk posting one document image to images:annotate over many
connections, against `imgquality ocr --jobs N` reading the same image as many times, in one run.

    Benchmarks/server_load.py [--image PATH] [--seconds 60] [--connections 16] [--workers 2] [--binary PATH]

The image defaults to a 102 KB rendered page (Datasets/documents, page05 at 60%: 744 × 1052
pixels, which the gate passes and Tesseract reads at 98% word F1). The server runs with
`--workers` workers (default 2, the machine's cores) and its default queue of 32; wrk (Debian's
`wrk`) keeps `--connections` requests in flight for `--seconds`. Before, the same load for
`--warm-up` seconds (default 15) starts every worker's Tesseract engine; the server's resident
memory is read then (/proc/PID/status, VmRSS) and again after the load: growth under sustained
load is what it measures, not a worker's first use. The baseline is `imgquality ocr --format gcv --jobs WORKERS --quiet` over as many copies
of the image as the server answered per worker-minute, capped at 200, timed whole (its
Tesseract start included, as a batch pays it).

Prints a Markdown table: requests, errors (non-2xx answers and socket errors), requests per
second, latency p50 / p99, the ocr baseline's images per second, the ratio (aim: at least 0.8),
and resident memory before and after (aim: after within 10% of before).
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from benchlib import DEFAULT_BINARY

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_IMAGE = os.path.join(ROOT, "Datasets", "documents", "images", "page05_downscale-0.6.png")


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def post(url, body):
    """One request; the image must be read (the gate passes it), or the load measures nothing."""
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.loads(response.read())["responses"][0]
        if "error" in answer:
            raise RuntimeError(f"the image was not read: {answer['error']}")


def wrk_figures(output):
    """Requests, errors, requests per second, p50 and p99 latency (ms) from wrk --latency's report."""
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    errors = 0
    if match := re.search(r"Non-2xx or 3xx responses: (\d+)", output):
        errors += int(match.group(1))
    if match := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        errors += sum(int(n) for n in match.groups())
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))

    def milliseconds(percentile):
        value, unit = re.search(rf"\s{percentile}%\s+([\d.]+)(us|ms|s)", output).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    return requests, errors, rate, milliseconds(50), milliseconds(99)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", default=DEFAULT_IMAGE)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--warm-up", type=int, default=15, help="seconds of the same load before memory is first read")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("server_load.py: wrk is not installed (Debian: apt-get install wrk)")

    with open(args.image, "rb") as f:
        image = f.read()
    body = json.dumps(
        {"requests": [{"image": {"content": base64.b64encode(image).decode()}, "features": [{"type": "DOCUMENT_TEXT_DETECTION"}]}]}
    ).encode()
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    work = tempfile.mkdtemp(prefix="imgquality-load.")
    server = subprocess.Popen(
        [args.binary, "serve", "--port", "0", "--workers", str(args.workers)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        url = re.search(r"(http://\S+)", server.stderr.readline()).group(1)
        # The per-request log lines are not kept: a thread drains them so the pipe never fills.
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        while True:
            try:
                with urllib.request.urlopen(url + "/readyz") as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.05)
        post(url + "/v1/images:annotate", body)

        body_path = os.path.join(work, "body.json")
        with open(body_path, "wb") as f:
            f.write(body)
        script = os.path.join(work, "post.lua")
        with open(script, "w") as f:
            f.write(
                'wrk.method = "POST"\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
                f'local file = io.open("{body_path}", "rb")\n'
                "wrk.body = file:read(\"*a\")\n"
                "file:close()\n"
            )
        def load(seconds):
            return subprocess.run(
                ["wrk", "-t", "2", "-c", str(args.connections), "-d", f"{seconds}s", "--timeout", "60s", "--latency", "-s", script,
                 url + "/v1/images:annotate"],
                capture_output=True, text=True, check=True,
            ).stdout

        # The warm-up loads every worker's Tesseract engine and its thread's allocator arena:
        # what is measured is growth under sustained load, not the first use of a worker.
        load(args.warm_up)
        time.sleep(1)
        before = resident_kib(server.pid)
        requests, errors, rate, p50, p99 = wrk_figures(load(args.seconds))
        time.sleep(1)
        after = resident_kib(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)

    # The baseline: the same image read by ocr as a batch, as many times as is worth timing.
    count = max(20, min(200, int(rate * 60)))
    copies = []
    for index in range(count):
        path = os.path.join(work, f"page-{index:03d}.png")
        os.symlink(os.path.abspath(args.image), path)
        copies.append(path)
    start = time.monotonic()
    subprocess.run([args.binary, "ocr", "--format", "gcv", "--jobs", str(args.workers), "--quiet", *copies],
                   stdout=subprocess.DEVNULL, env=env, check=True)
    baseline = count / (time.monotonic() - start)
    shutil.rmtree(work)

    print(f"| requests | errors | requests/s | p50 ms | p99 ms | ocr --jobs {args.workers} images/s | ratio | RSS before MiB | RSS after MiB | RSS change |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {requests} | {errors} | {rate:.2f} | {p50:.0f} | {p99:.0f} | {baseline:.2f} | {rate / baseline:.2f} | "
        f"{before / 1024:.0f} | {after / 1024:.0f} | {100 * (after - before) / before:+.1f}% |"
    )


if __name__ == "__main__":
    main()
