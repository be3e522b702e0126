#!/usr/bin/env python3
"""Build real-outputs.jsonl: real final paragraphs of ProcessBench solutions
paired with the reference answers of their problems.

Inputs
------
* ProcessBench subsets already in this repository (Qwen team, Apache-2.0):
    packages/db/seed/processbench/gsm8k.json  (400 records)
    packages/db/seed/processbench/math.json   (1,000 records)
* Reference sets, NOT in this repository; pass their paths on the command line:
    --gsm8k-test  GSM8K test set, openai/grade-school-math (MIT),
                  grade_school_math/data/test.jsonl at commit
                  3101c7d5072418e28b9008a6636bde82a006892c (1,319 lines).
                  Reference answer = text after "####" in "answer", trimmed.
    --math-test   MATH test set (Hendrycks et al., MIT), all 5,000 test problems
                  as JSON lines, from ZubinGou/math-evaluation-harness (MIT),
                  data/math/test.jsonl at commit
                  db77bc6bb2a17c90ed2d63e88ebd8c40a82858c5 (blob 87d7931a).
                  Reference answer = contents of the last \\boxed{...} of
                  "solution" (braces matched), verbatim.
    --math500-test (optional, cross-check only) PRM800K's MATH-500 split,
                  openai/prm800k prm800k/math_splits/test.jsonl. In the
                  openai/prm800k mirror it is a Git LFS pointer
                  (sha256 35dc4108...); the byte-identical file (same sha256,
                  446,564 bytes) is data/math_oai/test.jsonl in
                  ZubinGou/math-evaluation-harness at the commit above. When
                  given, the script asserts that its "answer" field equals the
                  last-\\boxed{} extraction for every MATH-500 problem, and
                  names the PRM800K unique_id in the source of those pairs.

Matching: a ProcessBench record matches a reference problem when the problem
texts are equal after whitespace normalisation (" ".join(text.split())).

Selection (no grader involved, deterministic): records in id order; among the
matched ones, the first N with final_answer_correct true and the first N with
final_answer_correct false, per subset (N = 70 by default).

Usage:
  python3 build-real-outputs.py --gsm8k-test /tmp/refs/gsm8k_test.jsonl \
      --math-test /tmp/refs/math5000_test.jsonl \
      --math500-test /tmp/refs/math500_test.jsonl
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", "..", ".."))
PB_DIR = os.path.join(REPO, "packages", "db", "seed", "processbench")

GSM8K_REF = "openai/grade-school-math grade_school_math/data/test.jsonl"
MATH_REF = "ZubinGou/math-evaluation-harness data/math/test.jsonl"


def norm(text):
    return " ".join(text.split())


def last_boxed(solution):
    """Contents of the last \\boxed{...} in solution, braces matched."""
    start = solution.rfind("\\boxed{")
    if start < 0:
        return None
    i = start + len("\\boxed{")
    depth = 1
    for k in range(i, len(solution)):
        ch = solution[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return solution[i:k]
    return None


def read_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                yield lineno, json.loads(line)


def index_unique(rows, key):
    """norm(problem) -> row; problems that occur twice with different answers are dropped."""
    out, clash = {}, set()
    for row in rows:
        k = key(row)
        if k in out and out[k]["gold"] != row["gold"]:
            clash.add(k)
        out.setdefault(k, row)
    for k in clash:
        del out[k]
    return out, len(clash)


def load_gsm8k(path):
    rows = []
    for lineno, obj in read_jsonl(path):
        gold = obj["answer"].split("####")[-1].strip()
        rows.append({"problem": obj["question"], "gold": gold,
                     "ref": f"{GSM8K_REF} line {lineno}"})
    return index_unique(rows, lambda r: norm(r["problem"]))


def load_math(path, math500_path):
    m500 = {}
    if math500_path:
        for _, obj in read_jsonl(math500_path):
            m500[norm(obj["problem"])] = obj
    rows = []
    for lineno, obj in read_jsonl(path):
        gold = last_boxed(obj["solution"])
        if gold is None:
            continue
        ref = f"{MATH_REF} line {lineno}"
        o500 = m500.get(norm(obj["problem"]))
        if o500 is not None:
            assert o500["answer"] == gold, (lineno, o500["answer"], gold)
            ref += f" (= PRM800K MATH-500 {o500['unique_id']})"
        rows.append({"problem": obj["problem"], "gold": gold, "ref": ref,
                     "n_boxed": obj["solution"].count("\\boxed{")})
    return index_unique(rows, lambda r: norm(r["problem"]))


def select(records, refs, per_label):
    records = sorted(records, key=lambda r: int(r["id"].rsplit("-", 1)[1]))
    matched = [r for r in records if norm(r["problem"]) in refs]
    picked = {True: [], False: []}
    for r in matched:
        bucket = picked[bool(r["final_answer_correct"])]
        if len(bucket) < per_label:
            bucket.append(r)
    chosen = picked[True] + picked[False]
    chosen.sort(key=lambda r: int(r["id"].rsplit("-", 1)[1]))
    return matched, chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gsm8k-test", required=True)
    ap.add_argument("--math-test", required=True)
    ap.add_argument("--math500-test")
    ap.add_argument("--per-label", type=int, default=70)
    ap.add_argument("--out", default=os.path.join(HERE, "real-outputs.jsonl"))
    args = ap.parse_args()

    gsm_refs, gsm_clash = load_gsm8k(args.gsm8k_test)
    math_refs, math_clash = load_math(args.math_test, args.math500_test)

    lines = []
    for name, refs, clash, category in (
        ("gsm8k", gsm_refs, gsm_clash, "real-gsm8k"),
        ("math", math_refs, math_clash, "real-math"),
    ):
        with open(os.path.join(PB_DIR, f"{name}.json"), encoding="utf-8") as fh:
            records = json.load(fh)
        matched, chosen = select(records, refs, args.per_label)
        n_true = sum(1 for r in chosen if r["final_answer_correct"])
        print(f"{name}: {len(records)} records, {len(matched)} matched a reference "
              f"problem ({clash} ambiguous reference problems dropped); selected "
              f"{n_true} correct + {len(chosen) - n_true} incorrect", file=sys.stderr)
        for r in chosen:
            ref = refs[norm(r["problem"])]
            if ref.get("n_boxed", 1) > 1:
                print(f"  note: {r['id']} reference solution has {ref['n_boxed']} "
                      f"\\boxed{{}}; gold is the last: {ref['gold']!r}", file=sys.stderr)
            obj = {
                "gold": ref["gold"],
                "pred": r["steps"][-1],
                "equivalent": bool(r["final_answer_correct"]),
                "category": category,
                "source": f"ProcessBench {name}.json {r['id']} ({r['generator']}); "
                          f"reference: {ref['ref']}",
            }
            lines.append(json.dumps(obj, ensure_ascii=False))

    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} lines to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
