"""The LLM prefix generator: Treefix's three prompts over an
OpenAI-compatible chat-completions endpoint (the client is C:
``_core.llm_chat``, csrc/llm/llm.c).

Configuration: ``llm_options`` of treefix() (base_url, api_key, model,
temperature, timeout, max_retries, prompt_price, completion_price), else
the LEXECUTOR_LLM_BASE_URL / LEXECUTOR_LLM_API_KEY / LEXECUTOR_LLM_MODEL
environment variables.  Nothing is ever read from the snippet.

Every answer is asked for as JSON ``{"imports": [...], "initialization":
[...]}``; :func:`parse_prefix` also copes with code fences, text around
the object and plain Python answers.
"""
from __future__ import annotations

import json
import re
from typing import Optional

from .offline import Proposal

SYSTEM = ("You write Python code that runs before a given code snippet so that the snippet "
          "can execute: imports and definitions of every name the snippet uses but does not "
          "define, with values that make as much of the snippet run as possible.  Answer "
          "with one JSON object and nothing else: {\"imports\": [\"import x\", ...], "
          "\"initialization\": [\"statement\", ...]}.  Do not repeat the snippet.")


def _describe_undefined(facts) -> str:
    rows = []
    for u in facts.undefined:
        parts = [u.name]
        if u.calls:
            parts.append("called with " + "/".join(
                "any number of" if a == -1 else str(a) for a in u.calls) + " argument(s)")
        for a, ar in u.attrs.items():
            if any(x is not None for x in ar):
                parts.append(f"method .{a}() with " + "/".join(
                    str(x) for x in ar if x is not None) + " argument(s)")
            else:
                parts.append(f"attribute .{a}")
        if getattr(u, "keys", None):
            parts.append("subscripted with " + ", ".join(u.keys))
        if getattr(u, "iterated", False):
            parts.append("iterated")
        if getattr(u, "context", False):
            parts.append("used in with")
        rows.append("- " + "; ".join(parts))
    return "\n".join(rows) or "- (none found; the snippet may still need imports)"


def initial_messages(facts) -> list:
    user = ("Snippet:\n```python\n" + facts.source + "```\n\nNames it uses without defining "
            "them:\n" + _describe_undefined(facts) + "\n\nWrite the prefix.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def error_message(error: dict) -> dict:
    where = "in your prefix" if error.get("where") == "prefix" else "in the snippet"
    line = f" at line {error['line']}" if error.get("line") else ""
    return {"role": "user", "content": (
        f"Running your prefix followed by the snippet raised {error.get('type')}: "
        f"{error.get('message')}{line} ({where}).  Fix the prefix so this does not happen; "
        "answer with the same JSON format.")}


def coverage_messages(facts, annotated: str) -> list:
    user = ("Snippet, with `# uncovered` on the lines that no prefix has executed yet:\n"
            "```python\n" + annotated + "```\n\nNames it uses without defining them:\n" +
            _describe_undefined(facts) + "\n\nWrite a prefix whose values make the uncovered "
            "lines execute (take the other branch, make a loop run, make a call raise to "
            "reach an except clause).")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _json_objects(text: str):
    """Balanced {...} substrings of ``text``, outermost first."""
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return
        depth, in_str, esc = 0, False, False
        for j in range(i, len(text)):
            c = text[j]
            if in_str:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    yield text[i:j + 1]
                    break
        i += 1


def parse_prefix(text: str) -> Optional[str]:
    """The prefix in an LLM answer: the JSON object {"imports", "initialization"}
    (inside code fences or surrounded by text), else the first Python code
    block.  None when nothing usable is there."""
    if not isinstance(text, str) or not text.strip():
        return None
    body = text
    fence = re.search(r"```(?:json|JSON)?\s*\n(.*?)```", text, re.S)
    candidates = [fence.group(1)] if fence else []
    candidates.append(body)
    for cand in candidates:
        for obj in _json_objects(cand):
            try:
                d = json.loads(obj)
            except ValueError:
                continue
            if isinstance(d, dict) and ("imports" in d or "initialization" in d):
                lines = []
                for key in ("imports", "initialization"):
                    v = d.get(key) or []
                    if isinstance(v, str):
                        v = [v]
                    if not isinstance(v, list):
                        continue
                    lines.extend(str(x) for x in v if isinstance(x, (str, int, float)))
                return "\n".join(lines) + ("\n" if lines else "")
    code = re.search(r"```(?:python|py)\s*\n(.*?)```", text, re.S)
    if code:
        return code.group(1) if code.group(1).endswith("\n") else code.group(1) + "\n"
    return None


class LLMGenerator:
    """Proposals from a chat-completions endpoint; keeps token and cost
    totals in ``usage``."""

    name = "llm"

    def __init__(self, seed=None, base_url=None, api_key=None, model=None, temperature=0.8,
                 timeout=60.0, max_retries=3, prompt_price=0.0, completion_price=0.0,
                 chat=None):
        from .. import _core
        self.chat = chat or getattr(_core, "llm_chat", None)
        if self.chat is None:
            raise RuntimeError("this build has no LLM client (_core.llm_chat); rebuild with "
                               "libcurl and libcjson")
        self.opts = dict(base_url=base_url, api_key=api_key, model=model,
                         temperature=temperature, timeout=timeout, max_retries=max_retries)
        self.prices = dict(prompt_price=prompt_price, completion_price=completion_price)
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
                      "cost": 0.0, "requests": 0, "attempts": 0}
        self.unresolved_imports: list = []

    def _ask(self, messages: list, n: int, note: str) -> list:
        ans = self.chat(messages=messages, n=n, **self.opts, **self.prices)
        self.usage["requests"] += 1
        self.usage["attempts"] += ans.get("attempts", 1)
        self.usage["cost"] += ans.get("cost", 0.0)
        for k in ("prompt_tokens", "completion_tokens", "total_tokens"):
            self.usage[k] += ans.get("usage", {}).get(k, 0)
        out = []
        for ch in ans.get("choices", []):
            content = ch.get("content", "")
            prefix = parse_prefix(content)
            conv = messages + [{"role": "assistant", "content": content}]
            out.append(Proposal(prefix if prefix is not None else "\n", conversation=conv,
                                note=note if prefix is not None else note + " (unparsable)"))
        return out

    def initial(self, facts, n: int) -> list:
        return self._ask(initial_messages(facts), n, "undefinedness")

    def repair(self, facts, plan, error: dict, n: int, node=None) -> list:
        conv = list(getattr(node, "conversation", None) or initial_messages(facts))
        return self._ask(conv + [error_message(error)], n, f"error {error.get('type')}")

    def guide(self, facts, uncovered: list, bases: list, n: int, annotated: str = "") -> list:
        return self._ask(coverage_messages(facts, annotated), n, "coverage")
