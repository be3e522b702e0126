"""Unit tests of the client, against a real HTTP server on a local port (no StepWiser server needed).

Run: PYTHONPATH=<where stepwiser is> python3 -m unittest discover -s clients/python/tests -p 'test_client.py'
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import stepwiser  # noqa: E402
from fake_server import FakeServer, json_answer  # noqa: E402


def run_state(status: str, **extra):
    return {"id": "r1", "kind": "judge", "status": status, "unitsDone": 1, "unitsTotal": 4, "error": None, **extra}


class ConfigurationTest(unittest.TestCase):
    def test_url_and_token_come_from_the_environment_and_a_missing_one_is_named(self):
        with mock.patch.dict(os.environ, {"STEPWISER_URL": "http://studio:3000/", "STEPWISER_TOKEN": "sw_abc"}):
            client = stepwiser.Client()
        self.assertEqual(client.url, "http://studio:3000")
        self.assertEqual(client.token, "sw_abc")
        self.assertNotIn("sw_abc", repr(client))
        with mock.patch.dict(os.environ, {"STEPWISER_URL": "http://studio:3000"}, clear=True):
            with self.assertRaises(stepwiser.ConfigError) as raised:
                stepwiser.Client()
        self.assertIn("STEPWISER_TOKEN is not set", str(raised.exception))
        self.assertNotIn("STEPWISER_URL", str(raised.exception).split(" is not set")[0])
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaises(stepwiser.ConfigError) as raised:
                stepwiser.Client()
        self.assertIn("STEPWISER_URL and STEPWISER_TOKEN are not set", str(raised.exception))

    def test_a_url_that_is_not_http_is_refused(self):
        for url in ("localhost:3000", "ftp://studio", "http://"):
            with self.assertRaises(stepwiser.ConfigError, msg=url) as raised:
                stepwiser.Client(url, "sw_x")
            self.assertIn("is not an http(s) address", str(raised.exception))
        with self.assertRaises(stepwiser.ConfigError):
            stepwiser.Client("http://studio", "sw_x", timeout=0)


class UrlTest(unittest.TestCase):
    def test_urls_are_under_api_v1_with_encoded_ids_and_query(self):
        client = stepwiser.Client("https://studio.example/base/api/v1/", "sw_x")
        self.assertEqual(client.url_for("/runs"), "https://studio.example/base/api/v1/runs")
        self.assertEqual(
            client.url_for("/runs", {"kind": "judge", "status": None, "search": "M=8 & more", "includeDataJobs": True, "limit": 5}),
            "https://studio.example/base/api/v1/runs?kind=judge&search=M%3D8+%26+more&includeDataJobs=true&limit=5",
        )
        with self.assertRaises(ValueError):
            client.url_for("runs")
        with self.assertRaises(TypeError):
            client.url_for("/runs", {"tag": ["a", "b"]})

    def test_snake_case_options_are_sent_camel_case(self):
        self.assertEqual(stepwiser.camel_case("max_invalid_share"), "maxInvalidShare")
        self.assertEqual(stepwiser.camel_case("datasetId"), "datasetId")
        self.assertEqual(stepwiser.camel_keys({"dataset_id": "d", "on_invalid": "skip", "name": None}), {"datasetId": "d", "onInvalid": "skip"})


class HttpTest(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer().__enter__()
        self.client = stepwiser.Client(self.server.url, "sw_test", timeout=5)

    def tearDown(self):
        self.server.__exit__()

    def test_the_token_is_sent_and_an_id_stays_one_path_segment(self):
        self.server.route("GET", "/api/v1/runs/a%2Fb%3Fc", lambda r: json_answer(run_state("completed", id="a/b?c")))
        self.assertEqual(self.client.run("a/b?c")["id"], "a/b?c")
        request = self.server.requests[-1]
        self.assertEqual(request.headers["authorization"], "Bearer sw_test")
        self.assertTrue(request.headers["user-agent"].startswith("stepwiser-python/"))

    def test_an_api_refusal_becomes_the_error_of_its_status_with_code_message_and_field(self):
        self.server.route(
            "POST", "/api/v1/runs", lambda r: json_answer({"error": {"code": "BAD_REQUEST", "message": "Number must be at most 64", "field": "config.samples"}}, 400)
        )
        with self.assertRaises(stepwiser.BadRequestError) as raised:
            self.client.launch("judge", {"samples": 1000})
        error = raised.exception
        self.assertIsInstance(error, stepwiser.StepwiserError)
        self.assertEqual((error.status, error.code, error.field, error.message), (400, "BAD_REQUEST", "config.samples", "Number must be at most 64"))
        self.assertEqual(str(error), 'POST /runs: HTTP 400 BAD_REQUEST: Number must be at most 64 (field "config.samples")')
        self.server.route("GET", "/api/v1/runs/gone", lambda r: json_answer({"error": {"code": "NOT_FOUND", "message": "Run gone not found"}}, 404))
        with self.assertRaises(stepwiser.NotFoundError) as raised:
            self.client.run("gone")
        self.assertIsNone(raised.exception.field)
        self.server.route("GET", "/api/v1/exports/e1/files", lambda r: json_answer({"error": {"code": "CONFLICT", "message": "export e1 is running"}}, 409))
        with self.assertRaises(stepwiser.ConflictError):
            self.client.export_files("e1")

    def test_a_refusal_that_is_not_the_api_json_keeps_its_text(self):
        self.server.route("GET", "/api/v1/datasets", lambda r: (502, {"content-type": "text/html"}, b"<html><body>Bad   gateway</body></html>"))
        with self.assertRaises(stepwiser.StepwiserError) as raised:
            self.client.datasets()
        self.assertEqual((raised.exception.status, raised.exception.code), (502, "HTTP_ERROR"))
        self.assertIn("Bad gateway", raised.exception.message)

    def test_an_unreachable_server_is_a_connection_error(self):
        port = self.server.httpd.server_address[1]
        self.server.__exit__()
        self.server = FakeServer().__enter__()
        with self.assertRaises(stepwiser.ConnectionFailedError) as raised:
            stepwiser.Client(f"http://127.0.0.1:{port}", "sw_x", timeout=2).datasets()
        self.assertEqual(raised.exception.status, 0)
        self.assertIn(f"cannot reach http://127.0.0.1:{port}", str(raised.exception))

    def test_launch_sends_the_body_the_api_takes(self):
        self.server.route("POST", "/api/v1/runs", lambda r: json_answer(run_state("queued"), 201))
        self.client.launch("judge", {"datasetId": "d1", "samples": 2}, name="K=2", tags=("a", "b"), notes="n")
        self.assertEqual(self.server.requests[-1].json(), {"kind": "judge", "config": {"datasetId": "d1", "samples": 2}, "offline": False, "name": "K=2", "tags": ["a", "b"], "notes": "n"})
        self.assertEqual(self.server.requests[-1].headers["content-type"], "application/json")
        with self.assertRaises(TypeError):
            self.client.launch("judge", {}, tags="one")

    def test_runs_follow_next_offset_with_the_filters_and_stop_at_the_limit(self):
        def page(request):
            offset, limit = int(request.query["offset"]), int(request.query["limit"])
            ids = [f"r{i}" for i in range(offset, min(offset + limit, 5))]
            return json_answer({"runs": [{"id": i} for i in ids], "nextOffset": offset + limit if offset + limit < 5 else None})

        self.server.route("GET", "/api/v1/runs", page)
        self.assertEqual([r["id"] for r in self.client.runs(kind="annotate", dataset_id="d1")], ["r0", "r1", "r2", "r3", "r4"])
        self.assertEqual(self.server.requests[-1].query, {"kind": "annotate", "datasetId": "d1", "limit": "200", "offset": "0"})
        self.server.requests.clear()
        self.assertEqual([r["id"] for r in self.client.runs(limit=3, status="completed")], ["r0", "r1", "r2"])
        self.assertEqual(len(self.server.requests), 1)
        self.server.requests.clear()
        # Pages smaller than asked for (the server's own cap) are followed too.
        self.server.route("GET", "/api/v1/runs", lambda r: page(type(r)(r.method, r.path, {"offset": [r.query["offset"]], "limit": ["2"]}, r.headers, r.body)))
        self.assertEqual(len(list(self.client.runs())), 5)
        self.assertEqual([r.query["offset"] for r in self.server.requests], ["0", "2", "4"])

    def test_json_lines_are_yielded_as_they_arrive(self):
        second_line_may_go = threading.Event()

        def lines(request):
            yield b'{"id": "a", "prediction": 2}\n'
            # The second line is sent only once the client has the first: a client that read the whole answer first would wait here.
            second_line_may_go.wait(5)
            yield b'\n{"id": "b", "prediction": null}\n'

        self.server.route("GET", "/api/v1/runs/j1/predictions", lambda r: (200, {"content-type": "application/x-ndjson"}, lines(r)))
        stream = self.client.predictions("j1")
        self.assertEqual(next(stream), {"id": "a", "prediction": 2})
        self.assertFalse(second_line_may_go.is_set())
        second_line_may_go.set()
        self.assertEqual(list(stream), [{"id": "b", "prediction": None}])

    def test_a_line_that_is_not_json_is_named(self):
        self.server.route("GET", "/api/v1/runs/a1/labels", lambda r: (200, {}, [b'{"chunk_index": 0}\n', b"{oops\n"]))
        stream = self.client.labels({"id": "a1"})
        self.assertEqual(next(stream), {"chunk_index": 0})
        with self.assertRaises(stepwiser.StepwiserError) as raised:
            next(stream)
        self.assertIn("line 2 of the answer is not JSON", str(raised.exception))


class WaitTest(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer().__enter__()
        self.client = stepwiser.Client(self.server.url, "sw_test", timeout=5)

    def tearDown(self):
        self.server.__exit__()

    def serve_states(self, *states):
        queue = list(states)
        self.server.route("GET", "/api/v1/runs/r1", lambda r: json_answer(queue.pop(0) if len(queue) > 1 else queue[0]))

    def test_wait_polls_until_the_run_completes(self):
        self.serve_states(run_state("queued"), run_state("running"), run_state("completed_with_failures"))
        self.assertEqual(self.client.wait("r1", timeout=5, poll=0.01)["status"], "completed_with_failures")
        self.assertEqual(len(self.server.requests), 3)

    def test_wait_raises_with_the_run_error_on_failed_and_cancelled(self):
        for status in ("failed", "cancelled"):
            self.serve_states(run_state("running"), run_state(status, error="endpoint sim-judge-strong answered 500"))
            with self.assertRaises(stepwiser.RunFailedError) as raised:
                self.client.wait({"id": "r1"}, timeout=5, poll=0.01)
            self.assertEqual(raised.exception.run["status"], status)
            self.assertIn(f"ended {status}: endpoint sim-judge-strong answered 500", str(raised.exception))

    def test_wait_gives_up_after_its_timeout(self):
        self.serve_states(run_state("running", error="retrying unit 3"))
        with self.assertRaises(stepwiser.WaitTimeoutError) as raised:
            self.client.wait("r1", timeout=0.05, poll=0.01)
        self.assertIsInstance(raised.exception, TimeoutError)
        self.assertIn("is still running after 0.05 s: 1/4 units done (error: retrying unit 3)", str(raised.exception))


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer().__enter__()
        self.client = stepwiser.Client(self.server.url, "sw_test", timeout=5)
        self.dir = tempfile.TemporaryDirectory()
        self.out = Path(self.dir.name)

    def tearDown(self):
        self.server.__exit__()
        self.dir.cleanup()

    def serve_export(self, files, contents):
        self.server.route("POST", "/api/v1/exports", lambda r: json_answer({**run_state("queued"), "id": "e1", "kind": "export"}, 201))
        self.server.route("GET", "/api/v1/runs/e1", lambda r: json_answer({**run_state("completed"), "id": "e1", "kind": "export"}))
        self.server.route("GET", "/api/v1/exports/e1/files", lambda r: json_answer({"files": files}))
        for file_id, content in contents.items():
            self.server.route("GET", f"/api/v1/files/{file_id}", lambda r, c=content: (200, {"content-type": "application/octet-stream"}, [c[:3], c[3:]]))

    def test_an_export_is_queued_waited_for_and_every_file_downloaded_and_checked(self):
        train, card = b'{"prompt": "p"}\n' * 3, b"# card\n"
        self.serve_export(
            [
                {"fileId": "f1", "name": "train.jsonl", "sizeBytes": len(train), "sha256": hashlib.sha256(train).hexdigest()},
                {"fileId": "f2", "name": "README.md", "sizeBytes": len(card)},
            ],
            {"f1": train, "f2": card},
        )
        paths = self.client.export_training_set("a1", self.out / "set", label_rule={"rule": "abs-q"}, held_out_fraction=0.1, poll=0.01)
        self.assertEqual([p.name for p in paths], ["train.jsonl", "README.md"])
        self.assertEqual(paths[0].read_bytes(), train)
        self.assertEqual((paths.run["id"], paths.run["status"]), ("e1", "completed"))
        export_request = next(r for r in self.server.requests if r.method == "POST")
        self.assertEqual(export_request.json(), {"kind": "training-set", "runId": "a1", "options": {"labelRule": {"rule": "abs-q"}, "heldOutFraction": 0.1}})

    def test_a_file_whose_digest_differs_is_refused_and_not_left_behind(self):
        self.serve_export([{"fileId": "f1", "name": "train.jsonl", "sizeBytes": 6, "sha256": "0" * 64}], {"f1": b"abcdef"})
        with self.assertRaises(stepwiser.IntegrityError) as raised:
            self.client.export("labels", "a1", self.out, poll=0.01)
        self.assertIn("train.jsonl: SHA-256", str(raised.exception))
        self.assertEqual(list(self.out.iterdir()), [])

    def test_a_file_name_leaving_the_folder_is_refused(self):
        self.serve_export([{"fileId": "f1", "name": "../evil.sh", "sizeBytes": 1}], {"f1": b"x"})
        with self.assertRaises(stepwiser.IntegrityError) as raised:
            self.client.export("labels", "a1", self.out / "inner", poll=0.01)
        self.assertIn("outside its folder", str(raised.exception))
        self.assertFalse((self.out / "evil.sh").exists())

    def test_import_file_uploads_the_bytes_then_imports_and_waits(self):
        data = b'[{"id": "gsm8k-0"}]'
        source = self.out / "tiny.json"
        source.write_bytes(data)
        self.server.route("POST", "/api/v1/uploads", lambda r: json_answer({"fileId": "u1", "fileName": r.query["fileName"], "sizeBytes": len(r.body), "sha256": hashlib.sha256(r.body).hexdigest()}, 201))
        self.server.route("POST", "/api/v1/imports", lambda r: json_answer({"runs": [{**run_state("queued"), "id": "r1", "kind": "import"}]}, 201))
        self.server.route("GET", "/api/v1/runs/r1", lambda r: json_answer({**run_state("completed"), "kind": "import"}))
        runs = self.client.import_file("processbench", source, name="tiny", on_invalid="skip", poll=0.01)
        self.assertEqual([r["status"] for r in runs], ["completed"])
        upload, imported = self.server.requests[0], self.server.requests[1]
        self.assertEqual((upload.query, upload.body, upload.headers["content-type"]), ({"fileName": "tiny.json"}, data, "application/octet-stream"))
        self.assertEqual(imported.json(), {"format": "processbench", "fileIds": ["u1"], "name": "tiny", "onInvalid": "skip"})
        with self.assertRaises(FileNotFoundError):
            self.client.import_file("processbench", self.out / "missing.json")


class FramesTest(unittest.TestCase):
    LINE = {
        "external_id": "sim-3",
        "chunk_index": 1,
        "q_value": 0.25,
        "rollouts": 8,
        "labels": [{"rule": "abs-q", "params": {}, "name": "abs-q", "label": "Positive", "confidence": 0.9}, {"rule": "rel-ratio", "params": {"gamma": 0.7}, "name": "rel-ratio γ=0.7", "label": "Negative", "confidence": None}],
    }

    def test_label_rows_are_one_flat_dict_per_chunk(self):
        self.assertEqual(
            stepwiser.label_rows([self.LINE]),
            [{"solution": "sim-3", "chunk": 1, "q": 0.25, "rollouts": 8, "abs-q": "Positive", "abs-q_confidence": 0.9, "rel-ratio γ=0.7": "Negative", "rel-ratio γ=0.7_confidence": None}],
        )

    def test_to_pandas_without_pandas_says_to_install_it(self):
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaises(ImportError) as raised:
                stepwiser.to_pandas(stepwiser.label_rows([self.LINE]))
        self.assertIn("needs pandas, which is not installed: pip install pandas", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
