"""The C chat-completions client (_core.llm_chat) against a real HTTP server
on loopback (pytest-httpserver, a maintained werkzeug-based test server)
with scripted answers, and the prompt/answer handling of the LLM generator.
These test the client; no model is involved."""
import json
import socket
import time

import pytest

from lexecutor_c import _core
from lexecutor_c.prefixtree.llm import LLMGenerator, parse_prefix

pytest_httpserver = pytest.importorskip("pytest_httpserver")
from werkzeug import Response  # noqa: E402  (pytest-httpserver depends on werkzeug)

PATH = "/v1/chat/completions"
MSGS = [{"role": "user", "content": "hi"}]


def completion(*contents, prompt=10, completion_tokens=5):
    return {"id": "x", "model": "test-model",
            "choices": [{"index": i, "message": {"role": "assistant", "content": c},
                         "finish_reason": "stop"} for i, c in enumerate(contents)],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                      "total_tokens": prompt + completion_tokens}}


def chat(server, **kw):
    kw.setdefault("model", "m")
    kw.setdefault("messages", MSGS)
    kw.setdefault("backoff", 0.01)
    return _core.llm_chat(base_url=server.url_for("/v1"), **kw)


def test_success_body_headers_usage_and_cost(httpserver):
    seen = {}

    def handler(req):
        seen["body"] = json.loads(req.data)
        seen["auth"] = req.headers.get("Authorization")
        seen["ctype"] = req.headers.get("Content-Type")
        return Response(json.dumps(completion("hello")), content_type="application/json")

    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    out = chat(httpserver, api_key="sk-test", temperature=0.5, max_tokens=64,
               prompt_price=1.0, completion_price=2.0)
    assert [c["content"] for c in out["choices"]] == ["hello"]
    assert out["choices"][0]["finish_reason"] == "stop"
    assert out["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert out["cost"] == pytest.approx(10 / 1000 * 1.0 + 5 / 1000 * 2.0)
    assert out["attempts"] == 1 and out["model"] == "test-model" and out["status"] == 200
    assert seen["body"] == {"model": "m", "messages": MSGS, "temperature": 0.5,
                            "max_tokens": 64}
    assert seen["auth"] == "Bearer sk-test"
    assert seen["ctype"] == "application/json"


def test_n_choices_and_unicode(httpserver):
    httpserver.expect_request(PATH).respond_with_json(completion("a", "b ✓", "c"))
    out = chat(httpserver, n=3, messages=[{"role": "user", "content": "naïve \"quotes\"\n"}])
    assert [c["content"] for c in out["choices"]] == ["a", "b ✓", "c"]
    body = json.loads(httpserver.log[0][0].data)
    assert body["n"] == 3 and body["messages"][0]["content"] == "naïve \"quotes\"\n"


def test_429_then_success_honours_retry_after(httpserver):
    httpserver.expect_ordered_request(PATH).respond_with_data(
        "slow down", status=429, headers={"Retry-After": "1"})
    httpserver.expect_ordered_request(PATH).respond_with_json(completion("ok"))
    t = time.monotonic()
    out = chat(httpserver, max_retries=2)
    assert out["attempts"] == 2 and out["choices"][0]["content"] == "ok"
    assert time.monotonic() - t >= 0.9          # waited for Retry-After


def test_500s_until_retries_run_out(httpserver):
    httpserver.expect_request(PATH).respond_with_data("boom", status=503)
    with pytest.raises(_core.LLMError) as ei:
        chat(httpserver, max_retries=2)
    e = ei.value
    assert e.kind == "http" and e.status == 503 and e.attempts == 3
    assert "retries exhausted" in str(e) and "boom" in str(e)
    assert len(httpserver.log) == 3


def test_400_is_not_retried(httpserver):
    httpserver.expect_request(PATH).respond_with_json({"error": {"message": "bad"}}, status=400)
    with pytest.raises(_core.LLMError) as ei:
        chat(httpserver, max_retries=3)
    assert ei.value.status == 400 and ei.value.attempts == 1


def test_timeout(httpserver):
    def slow(req):
        time.sleep(1.5)
        return Response(json.dumps(completion("late")), content_type="application/json")

    httpserver.expect_request(PATH).respond_with_handler(slow)
    t = time.monotonic()
    with pytest.raises(_core.LLMError) as ei:
        chat(httpserver, timeout=0.3)
    assert ei.value.kind == "timeout"
    assert time.monotonic() - t < 1.4


def test_malformed_json(httpserver):
    httpserver.expect_request(PATH).respond_with_data('{"choices": [', content_type="application/json")
    with pytest.raises(_core.LLMError, match="malformed JSON") as ei:
        chat(httpserver)
    assert ei.value.kind == "protocol"


def test_json_without_choices_reports_the_servers_message(httpserver):
    httpserver.expect_request(PATH).respond_with_json({"error": {"message": "quota"}})
    with pytest.raises(_core.LLMError, match="no 'choices'.*quota"):
        chat(httpserver)


def test_wrong_content_type(httpserver):
    httpserver.expect_request(PATH).respond_with_data("<html>hi</html>", content_type="text/html")
    with pytest.raises(_core.LLMError, match="content type text/html") as ei:
        chat(httpserver)
    assert ei.value.kind == "protocol"


def test_huge_response_is_cut_off(httpserver):
    big = json.dumps(completion("x" * 3_000_000))
    httpserver.expect_request(PATH).respond_with_data(big, content_type="application/json")
    with pytest.raises(_core.LLMError, match="larger than max_response") as ei:
        chat(httpserver, max_response=1 << 20)
    assert ei.value.kind == "too_large"
    out = chat(httpserver, max_response=8 << 20)        # and it fits when allowed
    assert len(out["choices"][0]["content"]) == 3_000_000


def test_connection_refused():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                              # nothing listens there now
    with pytest.raises(_core.LLMError, match="cannot connect") as ei:
        _core.llm_chat(base_url=f"http://127.0.0.1:{port}/v1", model="m", messages=MSGS,
                       max_retries=2, backoff=0.01)
    assert ei.value.kind == "connect" and ei.value.attempts == 1


def test_configuration_from_environment(httpserver, monkeypatch):
    httpserver.expect_request(PATH).respond_with_json(completion("env"))
    monkeypatch.setenv("LEXECUTOR_LLM_BASE_URL", httpserver.url_for("/v1/"))
    monkeypatch.setenv("LEXECUTOR_LLM_MODEL", "env-model")
    monkeypatch.setenv("LEXECUTOR_LLM_API_KEY", "k-env")
    out = _core.llm_chat(messages=MSGS)
    assert out["choices"][0]["content"] == "env"
    req = httpserver.log[0][0]
    assert json.loads(req.data)["model"] == "env-model"
    assert req.headers["Authorization"] == "Bearer k-env"


def test_bad_configuration_and_arguments(monkeypatch):
    for v in ("LEXECUTOR_LLM_BASE_URL", "LEXECUTOR_LLM_MODEL", "LEXECUTOR_LLM_API_KEY"):
        monkeypatch.delenv(v, raising=False)
    with pytest.raises(_core.LLMError, match="LEXECUTOR_LLM_BASE_URL") as ei:
        _core.llm_chat(model="m", messages=MSGS)
    assert ei.value.kind == "config"
    with pytest.raises(_core.LLMError, match="LEXECUTOR_LLM_MODEL"):
        _core.llm_chat(base_url="http://127.0.0.1:9", messages=MSGS)
    with pytest.raises(_core.LLMError, match="http://"):
        _core.llm_chat(base_url="ftp://x", model="m", messages=MSGS)
    url = "http://127.0.0.1:9"
    with pytest.raises(TypeError):
        _core.llm_chat(base_url=url, model="m", messages="hi")
    with pytest.raises(ValueError):
        _core.llm_chat(base_url=url, model="m", messages=[])
    with pytest.raises(ValueError):
        _core.llm_chat(base_url=url, model="m", messages=[{"role": "user"}])
    with pytest.raises(ValueError):
        _core.llm_chat(base_url=url, model="m", messages=MSGS, n=0)
    with pytest.raises(ValueError):
        _core.llm_chat(base_url=url, model="m", messages=MSGS, timeout=-1)
    with pytest.raises(ValueError, match="NUL"):
        _core.llm_chat(base_url=url, model="m\0x", messages=MSGS)
    assert issubclass(_core.LLMError, RuntimeError)


# ---------------------------------------------------------------- answers

def test_parse_prefix_variants():
    js = '{"imports": ["import os"], "initialization": ["x = 1", "y = [1, 2]"]}'
    want = "import os\nx = 1\ny = [1, 2]\n"
    assert parse_prefix(js) == want
    assert parse_prefix("```json\n" + js + "\n```") == want
    assert parse_prefix("Here you go:\n" + js + "\nHope this helps {not json}") == want
    assert parse_prefix('{"imports": [], "initialization": ["s = \'}{\'"]}') == "s = '}{'\n"
    assert parse_prefix("```python\nx = 1\n```") == "x = 1\n"
    assert parse_prefix("no code here") is None
    assert parse_prefix("") is None


def test_llm_generator_conversation_and_usage(httpserver):
    answers = iter([
        completion('{"imports": [], "initialization": ["d = None"]}',
                   '{"imports": ["import datetime"], "initialization": '
                   '["d = datetime.date(2020, 1, 1)"]}'),
        completion('{"imports": [], "initialization": ["d = 1"]}'),
    ])
    httpserver.expect_request(PATH).respond_with_handler(
        lambda req: Response(json.dumps(next(answers)), content_type="application/json"))
    from lexecutor_c.prefixtree.analysis import analyze
    facts = analyze("print(d.year)\n")
    gen = LLMGenerator(base_url=httpserver.url_for("/v1"), model="m")
    props = gen.initial(facts, 2)
    assert [p.prefix for p in props] == ["d = None\n",
                                        "import datetime\nd = datetime.date(2020, 1, 1)\n"]
    assert "d" in props[0].conversation[1]["content"]            # undefined names listed
    assert ".year" in props[0].conversation[1]["content"]

    class Node:
        conversation = props[0].conversation
    again = gen.repair(facts, None, {"type": "AttributeError", "message": "no year",
                                     "line": 1, "where": "snippet"}, 1, Node())
    sent = json.loads(httpserver.log[1][0].data)["messages"]
    assert sent[2]["role"] == "assistant" and "AttributeError" in sent[3]["content"]
    assert again[0].prefix == "d = 1\n"
    assert gen.usage["requests"] == 2 and gen.usage["total_tokens"] == 30
