"""imgquality serve, called as its users call it: Google's own Cloud Vision client (REST
transport) pointed at the server on loopback, plain HTTP for what that client never sends
(hostile bodies, keys, a full queue), and SIGTERM under load.

Run by Scripts/server-tests.sh (which makes the virtual environment) after the package is
built: IMGQUALITY is the executable, default .build/release/imgquality.
"""

import base64
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import vision

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("IMGQUALITY", os.path.join(ROOT, ".build", "release", "imgquality"))
PAGES = [os.path.join(ROOT, "Datasets", "documents", "images", f"page0{n}_clean.png") for n in range(1, 6)]
# A page the gate rejects: 12 px of motion blur (Tesseract reads 0.6% of its words).
REJECTED = os.path.join(ROOT, "Datasets", "documents", "images", "page01_motion-12.jpg")
TRUNCATED = os.path.join(ROOT, "Tests", "Fixtures", "png", "truncated.png")
THREE_PAGES = os.path.join(ROOT, "Tests", "Fixtures", "pdf", "three-pages.pdf")


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Server:
    """An `imgquality serve` process on a free loopback port."""

    def __init__(self, *flags):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", *flags], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        line = self.process.stderr.readline()
        match = re.search(r"listening.*(http://[^\s\"]+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"imgquality serve did not start: {line}{self.process.stderr.read()}")
        self.url = match.group(1)
        deadline = time.monotonic() + 60
        while self.get("/readyz")[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("the server never became ready")
            time.sleep(0.05)

    def request(self, method, path, body=None, headers=None):
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def get(self, path):
        return self.request("GET", path)

    def post_json(self, path, value, headers=None):
        body = value if isinstance(value, bytes) else json.dumps(value).encode()
        return self.request("POST", path, body, {"Content-Type": "application/json", **(headers or {})})

    def client(self, api_key=None):
        options = ClientOptions(api_endpoint=self.url, api_key=api_key)
        return vision.ImageAnnotatorClient(
            transport="rest", client_options=options, credentials=None if api_key else AnonymousCredentials()
        )

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)
        self.process.stderr.close()


def ocr_text(path):
    """fullTextAnnotation.text as `imgquality ocr --format gcv` writes it."""
    run = subprocess.run([BINARY, "ocr", "--format", "gcv", path], capture_output=True, text=True)
    return json.loads(run.stdout)["responses"][0]["fullTextAnnotation"]["text"]


def annotate_body(content, features=({"type": "DOCUMENT_TEXT_DETECTION"},)):
    return {"requests": [{"image": {"content": base64.b64encode(content).decode()}, "features": list(features)}]}


class OfficialClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--workers", "2")
        cls.expected = {path: ocr_text(path) for path in PAGES}

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_document_text_detection_reads_what_ocr_reads(self):
        client = self.server.client()
        for path in PAGES:
            response = client.document_text_detection(image=vision.Image(content=read(path)))
            self.assertEqual(response.error.code, 0, response.error.message)
            self.assertEqual(response.full_text_annotation.text, self.expected[path], path)
            self.assertGreater(len(response.text_annotations), 50)
            self.assertEqual(response.text_annotations[0].description, self.expected[path])

    def test_batch_annotate_images_answers_four_images_in_order(self):
        client = self.server.client()
        requests = [
            vision.AnnotateImageRequest(
                image=vision.Image(content=read(path)),
                features=[vision.Feature(type_=vision.Feature.Type.TEXT_DETECTION)],
            )
            for path in PAGES[:4]
        ]
        responses = client.batch_annotate_images(requests=requests).responses
        self.assertEqual([r.full_text_annotation.text for r in responses], [self.expected[p] for p in PAGES[:4]])

    def test_a_rejected_page_gets_failed_precondition_with_its_reasons(self):
        response = self.server.client().document_text_detection(image=vision.Image(content=read(REJECTED)))
        self.assertEqual(response.error.code, 9)
        self.assertTrue(response.error.message.startswith("rejected by the quality gate: "), response.error.message)
        self.assertEqual(response.full_text_annotation.text, "")
        # Plain JSON shows the quality extension the client leaves out.
        status, _, body = self.server.post_json("/v1/images:annotate", annotate_body(read(REJECTED)))
        answer = json.loads(body)["responses"][0]
        self.assertEqual((status, answer["error"]["code"]), (200, 9))
        self.assertFalse(answer["imageQuality"]["gate"]["pass"])

    def test_image_quality_alone_assesses_without_reading(self):
        status, _, body = self.server.post_json(
            "/v1/images:annotate", annotate_body(read(PAGES[0]), features=({"type": "IMAGE_QUALITY"},))
        )
        answer = json.loads(body)["responses"][0]
        self.assertEqual(status, 200)
        self.assertEqual(list(answer), ["imageQuality"])
        self.assertTrue(answer["imageQuality"]["gate"]["pass"])

    def test_files_annotate_reads_the_pages_asked_for(self):
        body = {
            "requests": [
                {
                    "inputConfig": {"content": base64.b64encode(read(THREE_PAGES)).decode(), "mimeType": "application/pdf"},
                    "features": [{"type": "IMAGE_QUALITY"}],
                    "pages": [1, 3],
                }
            ]
        }
        status, _, answer = self.server.post_json("/v1/files:annotate", body)
        self.assertEqual(status, 200, answer)
        file = json.loads(answer)["responses"][0]
        self.assertEqual(file["totalPages"], 3)
        self.assertEqual([page["context"]["pageNumber"] for page in file["responses"]], [1, 3])

    def test_score_answers_the_score_record(self):
        status, _, body = self.server.request("POST", "/v1/score?name=page.png", read(PAGES[0]))
        record = json.loads(body)
        self.assertEqual((status, record["path"], record["format"]), (200, "page.png", "png"))
        status, _, body = self.server.request("POST", "/v1/score", read(TRUNCATED))
        self.assertEqual((status, json.loads(body)["error"]["code"]), (422, "decode.truncated"))


class HostileRequestTests(unittest.TestCase):
    """Each kind of bad request gets its documented answer, and the server goes on serving."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--workers", "1", "--max-request-size", "1M", "--max-image-size", "200K")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def assertServing(self):
        self.assertEqual(self.server.get("/healthz")[0], 200)

    def error(self, answer):
        status, _, body = answer
        return status, json.loads(body)["error"]

    def test_bad_json_is_400(self):
        status, error = self.error(self.server.post_json("/v1/images:annotate", b'{"requests": [{"image": '))
        self.assertEqual((status, error["status"]), (400, "INVALID_ARGUMENT"))
        self.assertTrue(error["message"].startswith("the body is not JSON"))
        self.assertServing()

    def test_bad_base64_is_the_items_error(self):
        body = {"requests": [{"image": {"content": "@@@"}, "features": [{"type": 11}]}, annotate_body(read(PAGES[0]))["requests"][0]]}
        status, _, answer = self.server.post_json("/v1/images:annotate", body)
        responses = json.loads(answer)["responses"]
        self.assertEqual(status, 200)
        self.assertEqual(responses[0]["error"], {"code": 3, "message": "image.content is not base64"})
        self.assertIn("fullTextAnnotation", responses[1])
        self.assertServing()

    def test_an_oversized_body_is_413(self):
        status, error = self.error(self.server.post_json("/v1/images:annotate", b" " * (2 << 20)))
        self.assertEqual(status, 413)
        self.assertEqual(error["message"], "the request body is larger than 1048576 bytes")
        self.assertServing()

    def test_an_oversized_image_is_the_items_error(self):
        status, _, answer = self.server.post_json("/v1/images:annotate", annotate_body(bytes(300 << 10)))
        self.assertEqual(json.loads(answer)["responses"][0]["error"], {"code": 3, "message": "image.content is larger than 204800 bytes"})
        self.assertServing()

    def test_a_truncated_image_is_the_items_error(self):
        status, _, answer = self.server.post_json("/v1/images:annotate", annotate_body(read(TRUNCATED)))
        error = json.loads(answer)["responses"][0]["error"]
        self.assertEqual((status, error["code"]), (200, 3))
        self.assertTrue(error["message"].startswith("decode.truncated: "), error["message"])
        self.assertServing()

    def test_unknown_routes_and_methods(self):
        status, error = self.error(self.server.post_json("/v1/images:classify", {}))
        self.assertEqual((status, error["status"]), (404, "NOT_FOUND"))
        status, error = self.error(self.server.get("/v1/images:annotate"))
        self.assertEqual((status, error["status"]), (404, "NOT_FOUND"))
        self.assertServing()

    def test_too_many_images_is_400(self):
        body = {"requests": [{"image": {"content": "AA=="}, "features": [{"type": 11}]}] * 17}
        status, error = self.error(self.server.post_json("/v1/images:annotate", body))
        self.assertEqual((status, error["message"]), (400, "17 requests in one call; at most 16 are taken"))


class LimitsTests(unittest.TestCase):
    def test_a_full_queue_answers_429_with_retry_after(self):
        server = Server("--workers", "1", "--queue", "0")
        try:
            body = json.dumps(annotate_body(read(PAGES[0]))).encode()
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                answers = list(pool.map(lambda _: server.post_json("/v1/images:annotate", body), range(4)))
            statuses = sorted(status for status, _, _ in answers)
            self.assertEqual(statuses[0], 200)
            refused = [(headers, body) for status, headers, body in answers if status == 429]
            self.assertGreaterEqual(len(refused), 1, statuses)
            self.assertEqual(set(statuses), {200, 429})
            headers, body = refused[0]
            self.assertEqual(headers.get("Retry-After"), "1")
            self.assertEqual(json.loads(body)["error"]["status"], "RESOURCE_EXHAUSTED")
        finally:
            server.stop()

    def test_api_keys_are_checked_as_google_checks_them(self):
        with tempfile.NamedTemporaryFile("w", suffix=".keys") as keys:
            keys.write("secret-key\n")
            keys.flush()
            server = Server("--api-key-file", keys.name)
            try:
                body = annotate_body(read(PAGES[1]))
                status, _, answer = server.post_json("/v1/images:annotate", body)
                self.assertEqual((status, json.loads(answer)["error"]["status"]), (403, "PERMISSION_DENIED"))
                status, _, answer = server.post_json("/v1/images:annotate?key=wrong", body)
                self.assertEqual((status, json.loads(answer)["error"]["message"]), (400, "API key not valid. Please pass a valid API key."))
                self.assertEqual(server.post_json("/v1/images:annotate", body, {"X-Goog-Api-Key": "secret-key"})[0], 200)
                self.assertEqual(server.get("/healthz")[0], 200)
                response = server.client(api_key="secret-key").document_text_detection(image=vision.Image(content=read(PAGES[1])))
                self.assertEqual(response.full_text_annotation.text, ocr_text(PAGES[1]))
            finally:
                server.stop()

    def test_beyond_loopback_without_keys_is_refused(self):
        run = subprocess.run([BINARY, "serve", "--host", "0.0.0.0", "--port", "0"], capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 64)
        self.assertIn("give --api-key-file, or --allow-unauthenticated", run.stderr)

    def test_a_port_in_use_is_exit_69(self):
        server = Server()
        try:
            port = server.url.rsplit(":", 1)[1]
            run = subprocess.run([BINARY, "serve", "--port", port], capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 69)
            self.assertIn(f"imgquality serve: cannot serve on 127.0.0.1:{port}: ", run.stderr)
            self.assertIn("Address already in use", run.stderr)
            self.assertEqual(server.get("/healthz")[0], 200)
        finally:
            server.stop()

    def test_sigterm_answers_what_was_taken_in_and_exits_0(self):
        server = Server("--workers", "1", "--queue", "8", "--log-format", "json")
        body = json.dumps(annotate_body(read(PAGES[2]))).encode()
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            futures = [pool.submit(server.post_json, "/v1/images:annotate", body) for _ in range(3)]
            time.sleep(0.3)
            server.process.send_signal(signal.SIGTERM)
            answers = [future.result() for future in futures]
        self.assertEqual([status for status, _, _ in answers], [200, 200, 200])
        self.assertEqual(server.process.wait(timeout=60), 0)
        lines = [json.loads(line) for line in server.process.stderr.read().splitlines() if line.startswith("{")]
        self.assertEqual(sum(1 for line in lines if line.get("path") == "/v1/images:annotate" and line.get("status") == "200"), 3)
        server.process.stderr.close()

    def test_metrics_count_requests_and_images_by_decision(self):
        server = Server()
        try:
            server.post_json("/v1/images:annotate", annotate_body(read(PAGES[3])))
            server.post_json("/v1/images:annotate", annotate_body(read(REJECTED)))
            status, headers, body = server.get("/metrics")
            text = body.decode()
            self.assertEqual(status, 200)
            self.assertIn('imgquality_images_total{decision="passed"} 1', text)
            self.assertIn('imgquality_images_total{decision="rejected"} 1', text)
            self.assertIn('imgquality_http_requests_total{route="/v1/images:annotate",method="POST",status="200"} 2', text)
            self.assertIn("imgquality_queue_depth_requests 0", text)
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
