"""Tests against a running StepWiser Studio with its simulated-world demo data (STEPWISER_DEMO_DATA=sim or 1).

Needs STEPWISER_URL and STEPWISER_TOKEN (a researcher's or admin's read-write token); without them every
test here is skipped. `e2e/tests/python-example.spec.ts` runs them against the app it starts, with the
package installed into a folder of its own:

    STEPWISER_URL=… STEPWISER_TOKEN=sw_… PYTHONPATH=<install target> python3 clients/python/tests/test_live.py -v

STEPWISER_TEST_INSTALLED_AT, when set, must be the folder the imported package comes from.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
import unittest
import uuid
from pathlib import Path

import stepwiser

LIVE = bool(os.environ.get("STEPWISER_URL") and os.environ.get("STEPWISER_TOKEN"))
DEMO_DATASET = "Simulated world (demo)"
DEMO_ANNOTATE = "Demo: Monte-Carlo labels (sim-policy), M=8"
WAIT_SECONDS = float(os.environ.get("STEPWISER_TEST_WAIT_SECONDS", "180"))


def demo_annotate_run(client: stepwiser.Client) -> dict:
    """The demo's annotate run, once it has finished (it works in the background after a first start)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = [r for r in client.runs(kind="annotate", search=DEMO_ANNOTATE) if r["name"] == DEMO_ANNOTATE]
        if found:
            return client.wait(found[-1]["id"], timeout=max(0.0, deadline - time.monotonic()), poll=1)
        if time.monotonic() > deadline:
            raise AssertionError(f'no annotate run named "{DEMO_ANNOTATE}" after {WAIT_SECONDS:g} s: is the demo data seeded?')
        time.sleep(1)


@unittest.skipUnless(LIVE, "STEPWISER_URL and STEPWISER_TOKEN are not set")
class LiveTest(unittest.TestCase):
    client: stepwiser.Client
    dataset: dict

    @classmethod
    def setUpClass(cls):
        cls.client = stepwiser.Client(timeout=30)
        cls.dataset = cls.client.dataset(DEMO_DATASET)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_package_is_the_installed_one(self):
        expected = os.environ.get("STEPWISER_TEST_INSTALLED_AT")
        if not expected:
            self.skipTest("STEPWISER_TEST_INSTALLED_AT is not set")
        self.assertEqual(Path(stepwiser.__file__).resolve().parent, (Path(expected) / "stepwiser").resolve())

    def test_lists_runs_datasets_endpoints_and_queues(self):
        runs = list(self.client.runs(limit=3))
        self.assertTrue(1 <= len(runs) <= 3)
        self.assertTrue(all({"id", "kind", "status", "name"} <= set(r) for r in runs))
        judges = list(self.client.runs(kind="judge", dataset_id=self.dataset["id"]))
        self.assertTrue(judges and all(r["kind"] == "judge" and r["datasetId"] == self.dataset["id"] for r in judges))
        self.assertEqual(self.dataset["solutionCount"], 24)
        endpoints = {e["name"]: e for e in self.client.endpoints()}
        self.assertEqual(endpoints["sim-judge-strong"]["role"], "judge")
        self.assertFalse([e["name"] for e in endpoints.values() if "apiKey" in e], "an endpoint carries its API key")
        queues = self.client.queues()
        self.assertIsInstance(queues, list)
        for queue in queues:
            self.assertEqual(self.client.queue(queue["id"])["id"], queue["id"])

    def test_refusals_carry_the_api_status_code_and_field(self):
        with self.assertRaises(stepwiser.NotFoundError) as raised:
            self.client.run(f"no-such-run-{uuid.uuid4().hex}")
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "NOT_FOUND"))
        with self.assertRaises(stepwiser.BadRequestError) as raised:
            self.client.launch("judge", {"datasetId": self.dataset["id"], "judgeEndpoint": "sim-judge-strong", "samples": 0})
        self.assertEqual((raised.exception.status, raised.exception.code, raised.exception.field), (400, "BAD_REQUEST", "config.samples"))
        with self.assertRaises(stepwiser.AuthenticationError):
            stepwiser.Client(token="sw_not-a-token").datasets()

    def test_launch_wait_and_predictions_of_a_judge_run(self):
        run = self.client.launch(
            "judge",
            {"datasetId": self.dataset["id"], "judgeEndpoint": "sim-judge-strong", "samples": 1, "temperature": 1},
            name="sim-judge-strong, K=1 (Python package test)",
            tags=["python-package"],
        )
        self.assertEqual((run["kind"], run["status"], run["tags"]), ("judge", "queued", ["python-package"]))
        done = self.client.wait(run["id"], timeout=WAIT_SECONDS, poll=0.5)
        self.assertEqual(done["status"], "completed")
        self.assertEqual(done["unitsDone"], done["unitsTotal"])
        predictions = list(self.client.predictions(run["id"]))
        self.assertEqual(len(predictions), 24)
        self.assertTrue(all(set(p) == {"id", "prediction"} and (p["prediction"] is None or p["prediction"] >= -1) for p in predictions))

    def test_labels_of_the_demo_annotate_run(self):
        annotate = demo_annotate_run(self.client)
        lines = list(self.client.labels(annotate["id"]))
        self.assertGreater(len(lines), 24)
        self.assertEqual({line["run_id"] for line in lines}, {annotate["id"]})
        self.assertEqual(len({line["solution_id"] for line in lines}), 24)
        rows = stepwiser.label_rows(lines)
        # Eight rollouts from every sampled prefix (M=8, fixed); a prefix without rollouts has no Q-value.
        self.assertEqual([row for row in rows if not (row["q"] is None or 0 <= row["q"] <= 1) or row["rollouts"] not in (None, 0, 8)], [])
        self.assertGreater(sum(1 for row in rows if row["rollouts"] == 8), 24)
        rules = {label["name"] for label in lines[0]["labels"]}
        self.assertTrue(rules and all(rules <= set(row) for row in rows))

    def test_import_of_a_tiny_processbench_file(self):
        name = f"python package import {uuid.uuid4().hex[:8]}"
        records = [
            {"id": "gsm8k-py-0", "generator": "test", "problem": "What is 2 + 3?", "steps": ["2 + 3 = 5.", "The answer is 5."], "final_answer_correct": True, "label": -1},
            {"id": "gsm8k-py-1", "generator": "test", "problem": "What is 4 * 2?", "steps": ["4 * 2 = 6.", "The answer is 6."], "final_answer_correct": False, "label": 0},
        ]
        source = Path(self.tmp.name) / "tiny-processbench.json"
        source.write_text(json.dumps(records))
        runs = self.client.import_file("processbench", source, name=name, timeout=WAIT_SECONDS, poll=0.5)
        self.assertEqual([r["status"] for r in runs], ["completed"])
        dataset = self.client.dataset(name)
        self.assertEqual((dataset["solutionCount"], dataset["importRunId"]), (2, runs[0]["id"]))
        self.assertEqual(list(self.client.import_report(runs[0]["id"])), [])

    def test_export_of_a_training_set_from_the_demo_annotate_run(self):
        annotate = demo_annotate_run(self.client)
        out = Path(self.tmp.name) / "training-set"
        paths = self.client.export_training_set(annotate["id"], out, label_rule={"rule": "abs-q"}, format="trl", timeout=WAIT_SECONDS, poll=0.5)
        names = sorted(p.relative_to(out).as_posix() for p in paths)
        self.assertIn("manifest.json", names)
        self.assertIn("README.md", names)
        self.assertTrue(all(p.is_file() for p in paths))
        self.assertGreater((out / "manifest.json").stat().st_size, 0)
        # Each file is what the export lists: the client checked its digest while downloading; check it again here.
        self.assertEqual(paths.run["status"], "completed")
        listed = {f["name"]: f for f in self.client.export_files(paths.run)}
        self.assertEqual(sorted(listed), names)
        for path in paths:
            entry = listed[path.relative_to(out).as_posix()]
            self.assertEqual(path.stat().st_size, entry["sizeBytes"])
            if entry.get("sha256"):
                self.assertEqual(hashlib.sha256(path.read_bytes()).hexdigest(), entry["sha256"])
        self.assertIsInstance(json.loads((out / "manifest.json").read_text()), dict)

if __name__ == "__main__":
    unittest.main()
