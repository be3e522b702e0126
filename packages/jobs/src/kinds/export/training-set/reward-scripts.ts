/**
 * The reward functions shipped beside each training set. Reward = 1 when the
 * judge's verdict equals the chunk's label, else 0 (spec §3). The verdict is
 * read exactly as `parseVerdict` in @stepwiser/core reads it (last balanced
 * `\boxed{…}`, optional \text{…}-style wrappers, case-insensitive), so the
 * reward the judge is trained on and the verdict the Studio scores it by
 * cannot drift apart; the export test runs both on the same strings.
 * Standard-library Python only, except the torch tensor OpenRLHF requires.
 */

const VERDICT_PARSER = String.raw`import re

_BOX_OPEN = re.compile(r"\\boxed\s*\{")
_WRAPPER = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit|texttt)\s*\{([\s\S]*)\}")


def _matching_brace(text, open_at):
    r"""Index of the brace closing the one at open_at, honouring \{ and \} escapes; -1 if none."""
    depth = 0
    i = open_at
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def last_boxed(text):
    r"""Content of the last \boxed{...} whose braces balance, or None; an unbalanced box is skipped."""
    found = None
    pos = 0
    while True:
        match = _BOX_OPEN.search(text, pos)
        if match is None:
            return found
        open_at = match.end() - 1
        close = _matching_brace(text, open_at)
        if close == -1:
            pos = match.end()
            continue
        found = text[open_at + 1 : close]
        pos = close + 1


def parse_verdict(text):
    r"""The verdict as "Positive" or "Negative"; None when the text holds no readable verdict."""
    if not isinstance(text, str):
        return None
    box = last_boxed(text)
    if box is None:
        return None
    word = box.strip()
    while True:
        wrapped = _WRAPPER.fullmatch(word)
        if wrapped is None:
            break
        word = wrapped.group(1).strip()
    word = word.lower()
    if word == "positive":
        return "Positive"
    if word == "negative":
        return "Negative"
    return None


def verdict_score(response, label):
    r"""1.0 iff the response's verdict equals the label ("Positive" or "Negative"), else 0.0."""
    verdict = parse_verdict(response)
    if verdict is None or not isinstance(label, str):
        return 0.0
    return 1.0 if verdict.lower() == label.strip().lower() else 0.0
`;

/** verl: `custom_reward_function.path=reward.py custom_reward_function.name=compute_score`. */
export const VERL_REWARD_PY = String.raw`r"""Reward for training a StepWiser judge with verl.

compute_score returns 1.0 when the last \boxed{...} (balanced braces) in the
judge's response says Positive or Negative, case-insensitively, and that
verdict equals the chunk's label (reward_model.ground_truth); else 0.0.
Use: custom_reward_function.path=reward.py custom_reward_function.name=compute_score
"""

${VERDICT_PARSER}

def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return verdict_score(solution_str, ground_truth)
`;

/** OpenRLHF: `--remote_rm_url reward_func.py` (newer releases: `--reward.remote_url`). */
export const OPENRLHF_REWARD_PY = String.raw`r"""Reward for training a StepWiser judge with OpenRLHF.

reward_func scores each query (chat-templated prompt + response) 1.0 when the
last \boxed{...} (balanced braces) of the response says Positive or Negative,
case-insensitively, and equals the label (--label_key label); else 0.0.
Only the response is read: the prompt itself shows both \boxed{Positive} and
\boxed{Negative} as the answer format.
Use: --remote_rm_url reward_func.py (newer releases: --reward.remote_url reward_func.py)

OpenRLHF releases from mid-2025 on expect a dict of rewards, scores and
per-sample logs; older ones expect the reward tensor alone: set
RETURN_TENSOR_ONLY = True for those.
"""

RETURN_TENSOR_ONLY = False

${VERDICT_PARSER}

def _response(query, prompt):
    if query.startswith(prompt):
        return query[len(prompt) :]
    # Decoding prompt + response tokens does not always reproduce the prompt
    # string exactly; its end (the answer format and the chat template's
    # assistant header) still marks where the response starts.
    tail = prompt[-64:]
    at = query.find(tail) if tail else -1
    if at != -1:
        return query[at + len(tail) :]
    return query[len(prompt) :]


def reward_func(queries, prompts, labels, **kwargs):
    import torch

    responses = [_response(query, prompt) for query, prompt in zip(queries, prompts)]
    rewards = torch.tensor([verdict_score(response, label) for response, label in zip(responses, labels)], dtype=torch.float32)
    if RETURN_TENSOR_ONLY:
        return rewards
    parsed = torch.tensor([0.0 if parse_verdict(response) is None else 1.0 for response in responses], dtype=torch.float32)
    return {"rewards": rewards, "scores": rewards, "extra_logs": {"verdict_parsed": parsed}}
`;

/** TRL GRPOTrainer: `reward_funcs=[verdict_reward]`; the dataset's `label` column arrives as a keyword argument. */
export const TRL_REWARD_PY = String.raw`r"""Reward for training a StepWiser judge with TRL's GRPOTrainer.

verdict_reward gives each completion 1.0 when the last \boxed{...} (balanced
braces) says Positive or Negative, case-insensitively, and equals the row's
label; else 0.0. Completions may be conversational (lists of message dicts)
or plain strings.
Use: from reward_func import verdict_reward; GRPOTrainer(..., reward_funcs=[verdict_reward])
"""

${VERDICT_PARSER}

def _completion_text(completion):
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion:
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
    return "\n".join(parts)


def verdict_reward(completions, label, **kwargs):
    return [verdict_score(_completion_text(completion), expected) for completion, expected in zip(completions, label)]
`;
