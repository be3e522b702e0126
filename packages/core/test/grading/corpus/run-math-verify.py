#!/usr/bin/env python3
"""Grade grading-real.jsonl.gz with Math-Verify, run from its source, and write
one verdict per line (same order) to grading-real.math-verify.jsonl.

Math-Verify huggingface/Math-Verify 5d148cfaaf99214c2e4ffb4bc497ab042c592a7a with
huggingface/latex2sympy2_extended 02999f5 (parser generated with ANTLR 4.13.2),
sympy 1.14; set up as ../../../../../../shared/spec/toolchain.md describes and run
with PYTHONPATH=<latex2sympy2_extended>/src:<Math-Verify>/src.

Calls, as verl/TRL/open-r1 users do: verify(parse("$" + gold + "$"), parse(pred))
with the library defaults.
"""
import gzip
import json
import os
import sys

from math_verify import parse, verify

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    src = os.path.join(HERE, "grading-real.jsonl.gz")
    out_path = os.path.join(HERE, "grading-real.math-verify.jsonl")
    with gzip.open(src, "rt", encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for n, line in enumerate(f, 1):
            row = json.loads(line)
            gold = "$" + row["gold"] + "$"
            try:
                g = parse(gold)
                p = parse(row["pred"])
                equal = bool(verify(g, p))
            except Exception as error:  # a crash counts as "not equal", as verify's callers treat it
                print(f"line {n}: {type(error).__name__}: {error}", file=sys.stderr)
                equal = False
            out.write(json.dumps({"id": row["id"], "equivalent": equal}) + "\n")
            if n % 200 == 0:
                print(f"{n} graded", file=sys.stderr)


if __name__ == "__main__":
    main()
