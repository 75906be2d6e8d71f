#!/usr/bin/env python3
"""imgquality on Apache Spark: score or read many images as a Spark job, results as Parquet.

    imgquality_spark.py score PATHS... --out DIR [--master local[2]] [--partitions N] [--binary PATH]
    imgquality_spark.py ocr PATHS... --out DIR --server URL[,URL…] [--api-key KEY] [--master …]

PATHS are image files, directories (walked for every file in them, whatever its name) or, with
a leading @, files that list one path per line. Paths must be readable at the same
place on every executor (a shared file system); the driver only lists them.

`score` pipes each partition's paths through `imgquality score -` (Spark's RDD.pipe: one path
per line in, one JSON record per line out, in order) and writes one row per path: `path`,
`page`, `format`, `width`, `height`, `pass`, `score`, `reasons`, `error_code`,
`error_message`, and `record`, the score record as the command line prints it. Exit statuses 1
(some rejected) and 2 (some failed) are answers, not failures of the task.

`ocr` sends each image's bytes to `imgquality serve` (images:annotate, DOCUMENT_TEXT_DETECTION
with IMAGE_QUALITY), spreading partitions over the servers given, and writes one row per path:
`path`, `pass`, `score`, `text` (null when rejected or failed), `error_code`, `error_message`,
and `response`, the server's JSON answer for the image. The servers do the recognition; the
executors only read files and wait, so a few executor cores keep many server workers busy.

PySpark (pip install pyspark) and a Java runtime are needed; docs/server.md says what runs where.
"""
import argparse
import base64
import json
import os
import shlex
import sys
import time
import urllib.error
import urllib.request


def list_paths(inputs):
    """Every file under the inputs, in a stable order; @FILE reads a list of paths."""
    paths = []
    for item in inputs:
        if item.startswith("@"):
            with open(item[1:]) as listing:
                paths.extend(line.rstrip("\n") for line in listing if line.strip())
        elif os.path.isdir(item):
            for directory, folders, files in os.walk(item):
                folders.sort()
                paths.extend(os.path.join(directory, name) for name in sorted(files) if not name.startswith("."))
        else:
            paths.append(item)
    return paths


def number(value):
    return None if value is None else float(value)


def score_row(line):
    """A score record as a row: the fields a query wants, and the record itself."""
    record = json.loads(line)
    gate = record.get("gate") or {}
    error = record.get("error") or {}
    return (
        record["path"], record.get("page"), record.get("format"), record.get("width"), record.get("height"),
        gate.get("pass"), number(gate.get("score")), gate.get("reasons"), error.get("code"), error.get("message"), line,
    )


def post(url, body, headers, attempts=30):
    """The server's answer for one image. A full queue (429) is waited out as its Retry-After
    says; a network failure (a server restarting) is retried with a growing pause; what still
    fails becomes this image's error, so one image never fails the job."""
    pause = 1.0
    for attempt in range(attempts):
        last = attempt == attempts - 1
        try:
            request = urllib.request.Request(url, data=body, method="POST", headers=headers)
            with urllib.request.urlopen(request, timeout=300) as response:
                return json.loads(response.read())["responses"][0]
        except urllib.error.HTTPError as error:
            if error.code == 429 and not last:
                time.sleep(float(error.headers.get("Retry-After", "1")))
                continue
            return {"error": {"code": error.code, "message": error.read().decode(errors="replace")}}
        except (urllib.error.URLError, OSError, ValueError) as error:
            if last:
                return {"error": {"code": "unavailable", "message": f"{url}: {error}"}}
            time.sleep(pause)
            pause = min(pause * 2, 30.0)
    raise AssertionError("unreachable")


def annotate_partition(servers, api_key):
    """A function reading one partition's images through the servers (partition i → server i mod n)."""

    def annotate(index, paths):
        url = servers[index % len(servers)].rstrip("/") + "/v1/images:annotate"
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["X-Goog-Api-Key"] = api_key
        for path in paths:
            try:
                with open(path, "rb") as f:
                    content = base64.b64encode(f.read()).decode()
            except OSError as error:
                yield (path, None, None, None, "input.unreadable", str(error), None)
                continue
            body = json.dumps({"requests": [{"image": {"content": content},
                                             "features": [{"type": "DOCUMENT_TEXT_DETECTION"}, {"type": "IMAGE_QUALITY"}]}]}).encode()
            answer = post(url, body, headers)
            gate = (answer.get("imageQuality") or {}).get("gate") or {}
            error = answer.get("error") or {}
            text = (answer.get("fullTextAnnotation") or {}).get("text") if not error else None
            yield (path, gate.get("pass"), number(gate.get("score")), text, str(error["code"]) if error else None, error.get("message"),
                   json.dumps(answer))

    return annotate


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["score", "ocr"])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", required=True, help="the Parquet directory to write (replaced)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=None, help="default: 4 per executor core")
    parser.add_argument("--binary", default="imgquality", help="the imgquality executable on the executors")
    parser.add_argument("--server", help="ocr: the servers' base URLs, comma-separated")
    parser.add_argument("--api-key", help="ocr: the servers' API key")
    args = parser.parse_args()
    if args.mode == "ocr" and not args.server:
        parser.error("ocr needs --server")

    from pyspark.sql import SparkSession
    from pyspark.sql.types import ArrayType, BooleanType, DoubleType, IntegerType, StringType, StructField, StructType

    spark = SparkSession.builder.master(args.master).appName(f"imgquality {args.mode}").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    paths = list_paths(args.inputs)
    if not paths:
        sys.exit("imgquality_spark.py: no paths")
    partitions = args.partitions or 4 * spark.sparkContext.defaultParallelism
    rdd = spark.sparkContext.parallelize(paths, min(partitions, len(paths)))

    if args.mode == "score":
        # `score -` reads paths from standard input; its exit status 1 or 2 is an answer.
        command = ["/bin/sh", "-c", '"$0" score --quiet -; status=$?; [ $status -le 2 ]', args.binary]
        rows = rdd.pipe(shlex.join(command)).map(score_row)
        schema = StructType([
            StructField("path", StringType()), StructField("page", IntegerType()), StructField("format", StringType()),
            StructField("width", IntegerType()), StructField("height", IntegerType()), StructField("pass", BooleanType()),
            StructField("score", DoubleType()), StructField("reasons", ArrayType(StringType())),
            StructField("error_code", StringType()), StructField("error_message", StringType()), StructField("record", StringType()),
        ])
    else:
        rows = rdd.mapPartitionsWithIndex(annotate_partition(args.server.split(","), args.api_key))
        schema = StructType([
            StructField("path", StringType()), StructField("pass", BooleanType()), StructField("score", DoubleType()),
            StructField("text", StringType()), StructField("error_code", StringType()), StructField("error_message", StringType()),
            StructField("response", StringType()),
        ])
    frame = spark.createDataFrame(rows, schema)
    frame.write.mode("overwrite").parquet(args.out)
    # A file of several pages has a row per page: every path must have at least one.
    written = spark.read.parquet(args.out)
    rows, covered = written.count(), written.select("path").distinct().count()
    print(f"imgquality_spark.py: {rows} rows for {len(paths)} paths in {args.out}", file=sys.stderr)
    spark.stop()
    if covered != len(set(paths)):
        sys.exit(f"imgquality_spark.py: {len(set(paths)) - covered} paths have no row")


if __name__ == "__main__":
    main()
