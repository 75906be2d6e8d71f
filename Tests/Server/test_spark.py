"""Scripts/spark/imgquality_spark.py in Spark's local mode: 1 000 paths scored into Parquet
with the command line's records, and pages read through `imgquality serve` from the executors.
Skipped, saying why, without a Java runtime or PySpark."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from test_server import BINARY, PAGES, REJECTED, ROOT, Server

SCRIPT = os.path.join(ROOT, "Scripts", "spark", "imgquality_spark.py")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")

try:
    import pyspark  # noqa: F401

    MISSING = None if shutil.which("java") else "no Java runtime on PATH (Debian: openjdk-17-jre-headless)"
except ImportError:
    MISSING = "PySpark is not installed (Tests/Server/requirements.txt)"


def without_time(line):
    record = json.loads(line)
    record.pop("elapsedMs", None)
    return record


@unittest.skipIf(MISSING, f"Spark tests skipped: {MISSING}")
class SparkTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from pyspark.sql import SparkSession

        cls.work = tempfile.mkdtemp(prefix="imgquality-spark.")
        cls.spark = SparkSession.builder.master("local[1]").appName("imgquality tests").getOrCreate()
        cls.spark.sparkContext.setLogLevel("ERROR")

    @classmethod
    def tearDownClass(cls):
        cls.spark.stop()
        shutil.rmtree(cls.work)

    def run_script(self, *arguments):
        run = subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        return run

    def test_a_thousand_paths_score_into_parquet_as_the_command_line_scores_them(self):
        # Every fixture but the slow ones (broken and multi-page files among them), under
        # distinct names, cycled to 1 000 paths.
        fixtures = sorted(
            os.path.join(folder, name)
            for folder, _, names in os.walk(FIXTURES)
            if os.path.basename(folder) not in ("slow", "document")
            for name in names
            if not name.endswith(".md")
        )
        folder = os.path.join(self.work, "images")
        os.mkdir(folder)
        paths = []
        for index in range(1000):
            source = fixtures[index % len(fixtures)]
            path = os.path.join(folder, f"{index:04d}-{os.path.basename(source)}")
            os.symlink(source, path)
            paths.append(path)
        out = os.path.join(self.work, "scores.parquet")
        run = self.run_script("score", folder, "--out", out, "--master", "local[2]", "--binary", BINARY)
        self.assertIn(f"for 1000 paths in {out}", run.stderr)

        rows = self.spark.read.parquet(out).collect()
        cli = subprocess.run([BINARY, "score", "--quiet", "-"], input="\n".join(paths) + "\n", capture_output=True, text=True)
        self.assertEqual(cli.returncode, 2)  # some fixtures are broken on purpose
        expected = [without_time(line) for line in cli.stdout.splitlines()]
        self.assertEqual(len({row.path for row in rows}), 1000)
        self.assertEqual(len(rows), len(expected))
        key = lambda record: (record["path"], record.get("page") or 0)
        self.assertEqual(sorted((without_time(row.record) for row in rows), key=key), sorted(expected, key=key))
        # The columns hold what the record says.
        for row in rows:
            record = json.loads(row.record)
            self.assertEqual(row["pass"], (record.get("gate") or {}).get("pass"))
            self.assertEqual(row.error_code, (record.get("error") or {}).get("code"))
        self.assertGreater(sum(1 for row in rows if row.error_code), 50)

    def test_pages_are_read_through_the_server_from_the_executors(self):
        server = Server("--workers", "2")
        try:
            listing = os.path.join(self.work, "pages.txt")
            with open(listing, "w") as f:
                f.write("\n".join(PAGES[:3] + [REJECTED, "/no/such/page.png"]) + "\n")
            out = os.path.join(self.work, "text.parquet")
            self.run_script("ocr", "@" + listing, "--out", out, "--server", server.url, "--master", "local[2]")
            rows = {row.path: row for row in self.spark.read.parquet(out).collect()}
        finally:
            server.stop()
        self.assertEqual(len(rows), 5)
        for path in PAGES[:3]:
            expected = subprocess.run([BINARY, "ocr", "--format", "gcv", path], capture_output=True, text=True)
            self.assertEqual(rows[path].text, json.loads(expected.stdout)["responses"][0]["fullTextAnnotation"]["text"])
            self.assertTrue(rows[path]["pass"])
        self.assertEqual((rows[REJECTED].text, rows[REJECTED]["pass"], rows[REJECTED].error_code), (None, False, "9"))
        self.assertEqual(rows["/no/such/page.png"].error_code, "input.unreadable")


if __name__ == "__main__":
    unittest.main()
