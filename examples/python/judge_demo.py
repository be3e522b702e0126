#!/usr/bin/env python3
"""Walks through the REST API with the simulated-world demo data.

1. lists the runs;
2. pulls an annotate run's chunk labels into rows (a list of dicts) and prints the first few;
3. launches a judge run on the demo dataset and waits for it to finish;
4. reads the judge run's predictions.

Settings come from the environment: STEPWISER_URL (the app's address) and
STEPWISER_TOKEN (an API token, Settings → API tokens, from a researcher or admin).
Exit status: 0 when the judge run completed, 1 on an HTTP error, a failed run or
the timeout, 2 when a setting is missing or wrong.
"""

import argparse
import sys
import time

from stepwiser_api import TERMINAL_STATUSES, ApiError, Client, ConfigError


def print_table(rows, columns):
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))


def label_rows(client, run_id):
    """One dict per chunk of the run: solution, chunk index, Q-value, and each stored label by its rule's name."""
    rows = []
    for line in client.labels(run_id):
        row = {"solution": line["external_id"], "chunk": line["chunk_index"], "q": line["q_value"]}
        for label in line["labels"]:
            row[label["name"]] = label["label"]
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="Simulated world (demo)", help="name of the dataset to judge (default: %(default)s)")
    parser.add_argument("--judge-endpoint", default="sim-judge-strong", help="judge endpoint name (default: %(default)s)")
    parser.add_argument("--samples", type=int, default=2, help="judge samples per chunk (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for the judge run (default: %(default)s)")
    args = parser.parse_args(argv)

    try:
        client = Client.from_environment()

        runs = list(client.runs())
        print(f"runs: {len(runs)}")
        print_table(runs[:10], ["id", "kind", "status", "progress", "name"])

        annotate = next((r for r in runs if r["kind"] == "annotate" and r["status"] in ("completed", "completed_with_failures")), None)
        if annotate is None:
            print("no finished annotate run to read labels from", file=sys.stderr)
            return 1
        rows = label_rows(client, annotate["id"])
        print(f"labels: {len(rows)} chunks from annotate run {annotate['id']}")
        if rows:
            print_table(rows[:5], list(rows[0].keys()))

        dataset = next((d for d in client.datasets() if d["name"] == args.dataset), None)
        if dataset is None:
            print(f'no dataset named "{args.dataset}"', file=sys.stderr)
            return 1
        run = client.launch(
            "judge",
            {"datasetId": dataset["id"], "judgeEndpoint": args.judge_endpoint, "samples": args.samples, "temperature": 1},
            name=f"{args.judge_endpoint}, K={args.samples} (Python example)",
            tags=["python-example"],
        )
        print(f"launched judge run {run['id']} \"{run['name']}\" on {dataset['name']} ({dataset['solutionCount']} solutions)")

        deadline = time.monotonic() + args.timeout
        while run["status"] not in TERMINAL_STATUSES:
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
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ApiError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
