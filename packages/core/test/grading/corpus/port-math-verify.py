#!/usr/bin/env python3
"""Port Math-Verify's answer-equivalence test cases into math-verify.jsonl.

Reads the test files of huggingface/Math-Verify straight out of a git
repository (a bare mirror is fine: files are read with `git show REF:path`),
parses them with Python's `ast` module and writes one JSON object per
(gold, pred, expected) case, in source order:

    {"gold": ..., "pred": ..., "equivalent": true|false, "category": "mv-...",
     "source": "huggingface/Math-Verify tests/<file>::<test>", "settings": {...}}

Nothing from Math-Verify is imported or executed. Case lists are decoded with
`ast.literal_eval`, so escapes and raw strings come out exactly as Python reads
them; the one upstream case written as an f-string is evaluated with only the
`math` module in scope.

Settings are read from how each test calls the comparison helper
(`compare_strings(gold, pred, match_types=[...], precision=..., strict=...,
allow_set_relation_comp=...)` or `verify(parse(gold), parse(pred), ...)`);
a keyword whose value is one of the parametrize argument names is taken per
case. Only non-default settings are written:
    matchTypes            match_types, when not ["latex", "expr"]
    floatRounding         precision / float_rounding, when not 6
    strict                only when false
    allowSetRelationComp  only when true

Usage:
    python3 port-math-verify.py [--repo GIT_DIR] [--ref REF] [--out FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import subprocess
import sys
from collections import Counter, OrderedDict

UPSTREAM = "huggingface/Math-Verify"
DEFAULT_REPO = "/work/.mirror/huggingface+Math-Verify/repo"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "math-verify.jsonl")

# Files in this order first (the order the port was asked for); any other
# tests/*.py afterwards, alphabetically.
FILE_ORDER = [
    "tests/test_all.py",
    "tests/test_boxed.py",
    "tests/test_numina_cases.py",
    "tests/test_open_thoughts.py",
    "tests/test_yujianll.py",
    "tests/test_strict.py",
    "tests/test_configs.py",
]

# Defaults of the comparison (test_all.py's compare_strings, and verify()).
DEFAULTS = {
    "match_types": ["latex", "expr"],
    "precision": 6,
    "strict": True,
    "allow_set_relation_comp": False,
}

# Test function -> category. Functions not listed get "mv-<name>".
CATEGORY = {
    ("tests/test_all.py", "test_number_extraction"): "mv-number-extraction",
    ("tests/test_all.py", "test_simple_fraction_notation"): "mv-fractions",
    ("tests/test_all.py", "test_sets_handling"): "mv-sets",
    ("tests/test_all.py", "test_latex_notation"): "mv-latex-notation",
    ("tests/test_all.py", "test_percent_notation"): "mv-percent",
    ("tests/test_all.py", "test_latex_notation_math"): "mv-latex-math",
    ("tests/test_all.py", "test_relations_math"): "mv-relations",
    ("tests/test_all.py", "test_matrix_extraction"): "mv-matrix",
    ("tests/test_all.py", "test_precision"): "mv-precision",
    ("tests/test_all.py", "test_complex_math_expressions"): "mv-complex-expressions",
    ("tests/test_all.py", "test_math_extraction_edge_cases"): "mv-edge-cases",
    ("tests/test_all.py", "test_math_extraction_additional_cases"): "mv-additional-cases",
    ("tests/test_all.py", "test_set_rel_assymetry"): "mv-set-relation-asymmetry",
    ("tests/test_all.py", "test_float_precision"): "mv-precision",
    ("tests/test_all.py", "test_sqrt_precision"): "mv-precision",
    ("tests/test_all.py", "test_symbols"): "mv-symbols",
    ("tests/test_boxed.py", "test_boxed"): "mv-boxed",
    ("tests/test_numina_cases.py", "test_numina_cases"): "mv-numina",
    ("tests/test_open_thoughts.py", "test_open_thoughts"): "mv-open-thoughts",
    # The upstream function is (mis)named test_string_extraction; its cases are
    # gold/pred equivalences contributed in the yujianll report.
    ("tests/test_yujianll.py", "test_string_extraction"): "mv-yujianll",
    ("tests/test_strict.py", "test_strict_variable_comparison"): "mv-strict",
}

# Why whole files / functions hold nothing to port.
SKIP_REASON_BY_FILE = {
    "tests/test_string_extraction.py": "multiple-choice letter extraction (StringExtractionConfig), not a gold/pred verdict",
    "tests/test_configs.py": "parse()-only extraction-config checks, not a gold/pred verdict",
    "tests/test_timeout.py": "timeout behaviour (mocked slow parsing/verify), not a gold/pred verdict",
    "tests/test_raise_on_error.py": "raise_on_error behaviour (mocked failure), not a gold/pred verdict",
}
SKIP_REASON_SYMPY = "compares SymPy objects built in code (sympy_expr_eq), not strings"
SKIP_REASON_OTHER = "not a gold/pred equivalence verdict"

COMPARE_FUNCS = {"compare_strings", "verify"}


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout


def list_test_files(repo: str, ref: str) -> list[str]:
    names = [
        p
        for p in git(repo, "ls-tree", "--name-only", f"{ref}", "tests/").split("\n")
        if p.endswith(".py") and os.path.basename(p).startswith("test_")
    ]
    first = [p for p in FILE_ORDER if p in names]
    return first + sorted(p for p in names if p not in first)


def call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None


def is_parametrize(dec: ast.AST) -> bool:
    return (
        isinstance(dec, ast.Call)
        and isinstance(dec.func, ast.Attribute)
        and dec.func.attr == "parametrize"
    )


def literal(node: ast.AST, notes: list[str], where: str):
    """ast.literal_eval, falling back (f-strings only) to eval with math."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        has_fstring = any(isinstance(n, ast.JoinedStr) for n in ast.walk(node))
        if not has_fstring:
            raise
        # Only names allowed: math.<attr>.
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id != "math":
                raise ValueError(f"{where}: unexpected name {n.id!r} in f-string")
        value = eval(  # noqa: S307 - upstream test literal, math only
            compile(ast.Expression(node), where, "eval"),
            {"__builtins__": {}, "math": math},
        )
        notes.append(f"{where}: f-string evaluated to {value!r}")
        return value


def find_compare_call(fn: ast.FunctionDef) -> tuple[ast.Assert, ast.Call]:
    """The single `assert <...compare/verify call...> == <name>` in a test."""
    found = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            for sub in ast.walk(node.test):
                if call_name(sub) in COMPARE_FUNCS:
                    found.append((node, sub))
                    break
    if len(found) != 1:
        raise ValueError(f"{fn.name}: expected one comparison assert, found {len(found)}")
    return found[0]


def unwrap_parse(arg: ast.AST, fn_name: str) -> ast.AST:
    """verify(parse(gold), parse(pred)): return the inner argument."""
    if call_name(arg) == "parse":
        if len(arg.args) != 1 or arg.keywords:
            raise ValueError(f"{fn_name}: parse() with non-default extraction settings")
        return arg.args[0]
    return arg


def call_settings(call: ast.Call, fn_name: str) -> dict[str, ast.AST]:
    """Keyword args of the comparison call, under compare_strings' names."""
    rename = {"float_rounding": "precision"}
    out = {}
    for kw in call.keywords:
        key = rename.get(kw.arg, kw.arg)
        if key not in DEFAULTS:
            raise ValueError(f"{fn_name}: unknown comparison keyword {kw.arg!r}")
        out[key] = kw.value
    if call_name(call) == "compare_strings" and len(call.args) > 2:
        raise ValueError(f"{fn_name}: positional settings not handled")
    return out


def settings_json(raw: dict) -> dict:
    s = OrderedDict()
    mt = list(raw.get("match_types", DEFAULTS["match_types"]))
    if mt != DEFAULTS["match_types"]:
        s["matchTypes"] = mt
    prec = raw.get("precision", DEFAULTS["precision"])
    if prec != DEFAULTS["precision"]:
        s["floatRounding"] = prec
    if raw.get("strict", True) is False:
        s["strict"] = False
    if raw.get("allow_set_relation_comp", False) is True:
        s["allowSetRelationComp"] = True
    return dict(s)


def verdict(value, where: str) -> bool:
    if value is True or value == 1:
        return True
    if value is False or value == 0:
        return False
    raise ValueError(f"{where}: expected value {value!r} is not 0/1")


def check_compare_strings_defaults(tree: ast.Module) -> None:
    """Make sure test_all.py's helper still has the defaults assumed here."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "compare_strings":
            args = node.args.args
            defaults = dict(
                zip([a.arg for a in args[len(args) - len(node.args.defaults):]],
                    [ast.literal_eval(d) for d in node.args.defaults])
            )
            for k, v in DEFAULTS.items():
                if defaults.get(k) != v:
                    raise SystemExit(f"compare_strings default {k}={defaults.get(k)!r}, expected {v!r}")
            return
    raise SystemExit("compare_strings helper not found in tests/test_all.py")


def port_file(path: str, src: str, cases: list, skipped: Counter, notes: list) -> None:
    tree = ast.parse(src, filename=path)
    if path == "tests/test_all.py":
        check_compare_strings_defaults(tree)
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    funcs.sort(key=lambda n: n.lineno)
    file_reason = SKIP_REASON_BY_FILE.get(path)

    for fn in funcs:
        where = f"{path}::{fn.name}"
        category = CATEGORY.get((path, fn.name), "mv-" + fn.name.removeprefix("test_").replace("_", "-"))
        params = [d for d in fn.decorator_list if is_parametrize(d)]

        if params:
            if len(params) != 1:
                raise ValueError(f"{where}: stacked parametrize not handled")
            dec = params[0]
            names_node, values_node = dec.args[0], dec.args[1]
            names_val = ast.literal_eval(names_node)
            argnames = [n.strip() for n in (names_val.split(",") if isinstance(names_val, str) else names_val)]
            if not isinstance(values_node, (ast.List, ast.Tuple)):
                raise ValueError(f"{where}: parametrize values are not a literal list")
            n_cases = len(values_node.elts)
            if file_reason or "gold" not in argnames or "pred" not in argnames:
                skipped[file_reason or SKIP_REASON_OTHER] += n_cases
                continue

            assert_node, call = find_compare_call(fn)
            test = assert_node.test
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                    and isinstance(test.comparators[0], ast.Name)):
                raise ValueError(f"{where}: assert is not `<call> == <expected>`")
            expected_name = test.comparators[0].id
            pos = [unwrap_parse(a, fn.name) for a in call.args[:2]]
            if not all(isinstance(a, ast.Name) for a in pos):
                raise ValueError(f"{where}: gold/pred are not plain names")
            gold_name, pred_name = pos[0].id, pos[1].id
            kw = call_settings(call, fn.name)

            for i, elt in enumerate(values_node.elts):
                cw = f"{where}[{i}]"
                row = literal(elt, notes, cw)
                if len(row) != len(argnames):
                    raise ValueError(f"{cw}: {len(row)} values for {len(argnames)} names")
                bound = dict(zip(argnames, row))
                raw = {}
                for key, node in kw.items():
                    if isinstance(node, ast.Name) and node.id in bound:
                        raw[key] = bound[node.id]
                    else:
                        raw[key] = ast.literal_eval(node)
                gold, pred = bound[gold_name], bound[pred_name]
                if not isinstance(gold, str) or not isinstance(pred, str):
                    raise ValueError(f"{cw}: gold/pred not strings")
                cases.append({
                    "gold": gold,
                    "pred": pred,
                    "equivalent": verdict(bound[expected_name], cw),
                    "category": category,
                    "source": f"{UPSTREAM} {where}",
                    "settings": settings_json(raw),
                    "_line": elt.lineno,
                })
            continue

        # No parametrize: look for inline `assert compare_strings("..", "..", ...) == 0/1`.
        asserts = [n for n in ast.walk(fn) if isinstance(n, ast.Assert)]
        asserts.sort(key=lambda n: n.lineno)
        for a in asserts:
            test = a.test
            call, expected = None, None
            if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                    and call_name(test.left) in COMPARE_FUNCS and isinstance(test.comparators[0], ast.Constant)):
                call, expected = test.left, test.comparators[0].value
            elif call_name(test) in COMPARE_FUNCS:
                call, expected = test, True
            elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and call_name(test.operand) in COMPARE_FUNCS:
                call, expected = test.operand, False
            args = [unwrap_parse(x, fn.name) for x in call.args[:2]] if call is not None else []
            if (file_reason or call is None or len(args) != 2
                    or not all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in args)):
                if file_reason:
                    reason = file_reason
                elif any(call_name(s) == "sympy_expr_eq" for s in ast.walk(test)):
                    reason = SKIP_REASON_SYMPY
                else:
                    reason = SKIP_REASON_OTHER
                skipped[reason] += 1
                continue
            cw = f"{where}:L{a.lineno}"
            raw = {k: ast.literal_eval(v) for k, v in call_settings(call, fn.name).items()}
            cases.append({
                "gold": args[0].value,
                "pred": args[1].value,
                "equivalent": verdict(expected, cw),
                "category": category,
                "source": f"{UPSTREAM} {where}",
                "settings": settings_json(raw),
                "_line": a.lineno,
            })
        if not asserts:
            skipped[(file_reason or SKIP_REASON_OTHER) + " (test without asserts)"] += 1


# Cases where a careful human grader disagrees with Math-Verify's expected value. The case keeps
# Math-Verify's verdict in "mathVerifyExpected"; "equivalent" is the human judgement and "note" says why.
# Keyed by (test name, gold, pred).
HUMAN_JUDGEMENTS: dict[tuple[str, str, str], tuple[bool, str]] = {
    ("test_latex_notation", "$9$", "Answer $ \n 9 \n $"): (
        True, "The response answers 9; the line breaks inside the math are layout, not a different answer."),
    ("test_latex_notation", "$9$", "Answer \\( \n 9 \n \\)"): (
        True, "The response answers 9; the line breaks inside the math are layout, not a different answer."),
    ("test_set_rel_assymetry", "$x \\in [-2,7]$", "$-2 \\\\le x \\\\le 7$"): (
        True, "x in [-2, 7] and -2 <= x <= 7 state the same set; which side is the gold does not change that."),
    ("test_string_extraction", "$1 - \\frac{1}{\\mathrm{e}}$", "$1 + \\frac{1}{\\mathrm{e}}$"): (
        False, "1 - 1/e is 0.632 and 1 + 1/e is 1.368: different numbers."),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default=DEFAULT_REPO, help="git dir of huggingface/Math-Verify")
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--out", default=DEFAULT_OUT)
    opts = ap.parse_args()

    commit = git(opts.repo, "rev-parse", opts.ref).strip()
    cases: list = []
    skipped: Counter = Counter()
    notes: list = []
    for path in list_test_files(opts.repo, commit):
        port_file(path, git(opts.repo, "show", f"{commit}:{path}"), cases, skipped, notes)

    seen: dict = {}
    out = []
    conflicts = []
    for c in cases:
        key = (c["gold"], c["pred"], json.dumps(c["settings"], sort_keys=True))
        if key in seen:
            first = seen[key]
            skipped["duplicate (gold, pred, settings) of an earlier case"] += 1
            if first["equivalent"] != c["equivalent"]:
                conflicts.append((first, c))
            continue
        seen[key] = c
        out.append(c)

    used_judgements: set = set()
    with open(opts.out, "w", encoding="utf-8") as fh:
        for c in out:
            obj = {k: c[k] for k in ("gold", "pred", "equivalent", "category", "source")}
            if c["settings"]:
                obj["settings"] = c["settings"]
            judged = HUMAN_JUDGEMENTS.get((c["source"].split("::")[-1], c["gold"], c["pred"]))
            if judged is not None and judged[0] != c["equivalent"]:
                obj["equivalent"], obj["mathVerifyExpected"], obj["note"] = judged[0], c["equivalent"], judged[1]
                used_judgements.add((c["source"].split("::")[-1], c["gold"], c["pred"]))
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")

    unused = set(HUMAN_JUDGEMENTS) - used_judgements
    if unused:
        sys.exit(f"human judgements that matched no case: {sorted(unused)}")
    print(f"upstream {UPSTREAM} @ {commit}")
    print(f"wrote {len(out)} cases to {os.path.relpath(opts.out)}")
    print("by category:")
    for k, v in Counter(c["category"] for c in out).items():
        print(f"  {k:28} {v}")
    ev = Counter(c["equivalent"] for c in out)
    print(f"by expected: equivalent={ev[True]} not-equivalent={ev[False]}")
    ns = [c for c in out if c["settings"]]
    print(f"non-default settings: {len(ns)}")
    for k, v in Counter(json.dumps(c["settings"], sort_keys=True) for c in ns).items():
        print(f"  {k} x{v}")
    print(f"skipped: {sum(skipped.values())} (parametrize cases, or assert statements where a test has no parametrize)")
    for k, v in skipped.items():
        print(f"  {v:4}  {k}")
    for first, dup in conflicts:
        print(f"CONFLICT: {dup['source']} L{dup['_line']} says {dup['equivalent']} but "
              f"{first['source']} L{first['_line']} says {first['equivalent']}: {dup['gold']!r} vs {dup['pred']!r}")
    for n in notes:
        print(f"note: {n}")


if __name__ == "__main__":
    main()
