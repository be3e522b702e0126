#!/usr/bin/env python3
"""Walks through the REST API with the simulated-world demo data, using the stepwiser package.

1. lists the runs;
2. waits for the demo's annotate run to finish (it works in the background after a first start),
   pulls its chunk labels into rows (a list of dicts) and prints the first few;
3. launches a judge run on the demo dataset and waits for it to finish;
4. reads the judge run's predictions.

Settings come from the environment: STEPWISER_URL (the app's address) and
STEPWISER_TOKEN (an API token, Settings → API tokens, from a researcher or admin).
Exit status: 0 when the judge run completed, 1 on an HTTP error, a failed run or
the timeout, 2 when a setting is missing or wrong.

The package is used as installed (pip install clients/python); from a checkout
without it, the checkout's clients/python is imported.
"""

import argparse
import sys
import time
from pathlib import Path

try:
    import stepwiser
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    import stepwiser

DEMO_ANNOTATE = "Demo: Monte-Carlo labels (sim-policy), M=8"


def print_table(rows, columns):
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))


def demo_annotate_run(client, deadline):
    """The demo's annotate run once it has finished, polling until the deadline (time.monotonic())."""
    announced = False
    while True:
        found = [r for r in client.runs(kind="annotate", search=DEMO_ANNOTATE) if r["name"] == DEMO_ANNOTATE]
        if found and found[-1]["status"] in stepwiser.TERMINAL_STATUSES:
            run = found[-1]
            if run["status"] in stepwiser.FAILED_STATUSES:
                raise stepwiser.RunFailedError(client.run(run["id"]))
            return run
        if time.monotonic() > deadline:
            state = f"is still {found[-1]['status']}" if found else "does not exist (is the demo data seeded?)"
            raise stepwiser.StepwiserError(f'no finished annotate run to read labels from: "{DEMO_ANNOTATE}" {state}')
        if not announced:
            print(f'waiting for the annotate run "{DEMO_ANNOTATE}" to finish …')
            announced = True
        time.sleep(1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="Simulated world (demo)", help="name of the dataset to judge (default: %(default)s)")
    parser.add_argument("--judge-endpoint", default="sim-judge-strong", help="judge endpoint name (default: %(default)s)")
    parser.add_argument("--samples", type=int, default=2, help="judge samples per chunk (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for the demo annotate run and then for the judge run, in all (default: %(default)s)")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout

    try:
        client = stepwiser.Client()

        runs = list(client.runs())
        print(f"runs: {len(runs)}")
        print_table(runs[:10], ["id", "kind", "status", "progress", "name"])

        annotate = demo_annotate_run(client, deadline)
        rows = stepwiser.label_rows(client.labels(annotate["id"]))
        print(f"labels: {len(rows)} chunks from annotate run {annotate['id']}")
        if rows:
            print_table(rows[:5], [c for c in rows[0] if not c.endswith("_confidence")])

        dataset = client.dataset(args.dataset)
        run = client.launch(
            "judge",
            {"datasetId": dataset["id"], "judgeEndpoint": args.judge_endpoint, "samples": args.samples, "temperature": 1},
            name=f"{args.judge_endpoint}, K={args.samples} (Python example)",
            tags=["python-example"],
        )
        print(f"launched judge run {run['id']} \"{run['name']}\" on {dataset['name']} ({dataset['solutionCount']} solutions)")

        while run["status"] not in stepwiser.TERMINAL_STATUSES:
            if time.monotonic() > deadline:
                print(f"judge run {run['id']} is still {run['status']} after {args.timeout:g} s", file=sys.stderr)
                return 1
            time.sleep(1)
            run = client.run(run["id"])
            print(f"  {run['status']}: {run['unitsDone']}/{run['unitsTotal']} units")
        print(f"judge run {run['id']} {run['status']}: {run['requests']} requests, {run['promptTokens'] + run['completionTokens']} tokens")
        if run["status"] != "completed":
            print(f"judge run {run['id']} ended {run['status']}: {run.get('error') or 'see its page'}", file=sys.stderr)
            return 1

        predictions = list(client.predictions(run["id"]))
        flagged = sum(1 for p in predictions if p["prediction"] is not None and p["prediction"] >= 0)
        print(f"predictions: {len(predictions)} solutions, {flagged} with a first error")
        return 0
    except stepwiser.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except stepwiser.StepwiserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
