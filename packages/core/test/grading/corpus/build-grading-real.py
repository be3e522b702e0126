#!/usr/bin/env python3
"""Build grading-real.jsonl.gz: every ProcessBench solution of the GSM8K, MATH
and OlympiadBench subsets, whole, paired with its problem's reference answer
and ProcessBench's own `final_answer_correct` flag.

Inputs (none of them is graded by anything here; the script only matches):
* ProcessBench (Qwen team, arXiv 2412.06559, Apache-2.0) as first published in
  QwenLM/ProcessBench, `dataset/{gsm8k,math,olympiadbench}.json` at commit
  2f2fd8ae590aeb949f7be265478b05280f93db68 (the data later moved to Hugging
  Face; the GSM8K and MATH files are byte-identical to ../shared/data).
* GSM8K test set, openai/grade-school-math (MIT),
  grade_school_math/data/test.jsonl at 3101c7d5072418e28b9008a6636bde82a006892c;
  reference = text after "####" in "answer", trimmed.
* MATH test set (Hendrycks et al., MIT), ZubinGou/math-evaluation-harness (MIT)
  data/math/test.jsonl at db77bc6bb2a17c90ed2d63e88ebd8c40a82858c5;
  reference = contents of the last \\boxed{...} of "solution", verbatim.
* OlympiadBench (He et al. 2024, Apache-2.0), the English open-ended text-only
  maths split (675 problems) as QwenLM/Qwen2.5-Math ships it,
  evaluation/data/olympiadbench/test.jsonl at
  a45202bd16f1ec06f433442dc1152d0074773465; reference = final_answer[0]
  with its outer `$` removed, as graders wrap it back (`$8$,$4$` -> `8$,$4`:
  OlympiadBench writes several answers as `$a$,$b$`).

Matching: problem texts equal after whitespace normalisation. Records whose
problem matches no reference are counted and left out.

Usage:
  python3 build-grading-real.py --processbench DIR --gsm8k-test F --math-test F \
      --olympiadbench-test F [--out grading-real.jsonl.gz]
"""
import argparse
import gzip
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# The matching and reference extraction of the smaller corpus, shared so both read references alike.
_spec = importlib.util.spec_from_file_location("build_real_outputs", os.path.join(HERE, "build-real-outputs.py"))
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)
norm = _shared.norm
last_boxed = _shared.last_boxed


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def references(args):
    refs = {}
    gsm = {}
    for n, r in enumerate(read_jsonl(args.gsm8k_test), 1):
        gsm[norm(r["question"])] = (r["answer"].split("####")[-1].strip(), f"openai/grade-school-math test.jsonl line {n}", None)
    refs["gsm8k"] = gsm
    math = {}
    for n, r in enumerate(read_jsonl(args.math_test), 1):
        math[norm(r["problem"])] = (last_boxed(r["solution"]), f"ZubinGou/math-evaluation-harness data/math/test.jsonl line {n}", None)
    refs["math"] = math
    oly = {}
    for n, r in enumerate(read_jsonl(args.olympiadbench_test), 1):
        meta = {"answerType": r.get("answer_type"), "multipleAnswers": bool(r.get("is_multiple_answer")), "unit": r.get("unit")}
        oly[norm(r["question"])] = (r["final_answer"][0].strip().strip("$").strip(), f"QwenLM/Qwen2.5-Math olympiadbench/test.jsonl line {n} (id {r['id']})", meta)
    refs["olympiadbench"] = oly
    return refs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--processbench", required=True)
    p.add_argument("--gsm8k-test", required=True)
    p.add_argument("--math-test", required=True)
    p.add_argument("--olympiadbench-test", required=True)
    p.add_argument("--out", default=os.path.join(HERE, "grading-real.jsonl.gz"))
    args = p.parse_args()
    refs = references(args)
    rows = []
    for subset in ("gsm8k", "math", "olympiadbench"):
        with open(os.path.join(args.processbench, f"{subset}.json"), encoding="utf-8") as f:
            records = json.load(f)
        unmatched = 0
        for rec in records:
            ref = refs[subset].get(norm(rec["problem"]))
            if ref is None or ref[0] is None:
                unmatched += 1
                continue
            gold, where, meta = ref
            row = {
                "subset": subset,
                "id": rec["id"],
                "generator": rec["generator"],
                "problem": rec["problem"],
                "gold": gold,
                "pred": "\n\n".join(rec["steps"]),
                "equivalent": bool(rec["final_answer_correct"]),
                "reference": where,
            }
            if meta:
                row.update(meta)
            rows.append(row)
        print(f"{subset}: {len(records)} records, {len(records) - unmatched} matched, {unmatched} unmatched", file=sys.stderr)
    # mtime=0 keeps the file byte-identical across builds.
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        for row in rows:
            out.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
    print(f"wrote {len(rows)} pairs to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
