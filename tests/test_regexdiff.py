"""Texts that tell an edited regular expression apart (issue 20): the
patterns a function uses, what an edit changed in them, and the commit
check finding an edit that shows only on such a text."""
import ast
import re
import textwrap

from lexecutor_c.apps import diffinputs as D
from lexecutor_c.apps import regexdiff as R
from lexecutor_c.apps.compare import compare_sources
from lexecutor_c.apps.funcsource import changed_lines, function_versions


def d(s):
    return textwrap.dedent(s).lstrip("\n")


def _tells(old, new, s):
    po = [re.compile(t, f) for t, f in old]
    pn = [re.compile(t, f) for t, f in new]
    return R._signature(po, s, len(po) == len(pn)) != R._signature(pn, s, len(po) == len(pn))


def test_a_newline_inside_a_tag_tells_two_tag_patterns_apart():
    old = [(r"(<!--.*?-->|<[^>]*>)", 0)]
    new = [(r"<!--.*?-->", 0), (r"<.*?>", 0)]
    texts = R.telling_texts(old, new)
    assert texts and all(_tells(old, new, t) for t in texts)
    assert any("\n" in t for t in texts)


def test_an_optional_part_made_of_a_required_one():
    old = [(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])", 0)]
    new = [(r"([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9]))?", 0)]
    texts = R.telling_texts(old, new)
    assert texts
    # a time without seconds: the new pattern matches it, the old does not
    assert any(re.compile(new[0][0]).fullmatch(t) and not re.compile(old[0][0]).match(t)
               for t in texts)


def test_flags_and_anchors_count_and_equal_patterns_give_nothing():
    assert R.telling_texts([(r"[a-z]+", 0)], [(r"[a-z]+", re.I)])
    assert R.telling_texts([(r"^\d+$", 0)], [(r"^\d+\Z", 0)]) == ["1\n"]
    assert R.telling_texts([(r"a+", 0)], [(r"a+", 0)]) == []
    # a pattern that does not compile gives nothing rather than an error
    assert R.telling_texts([(r"(", 0)], [(r"a", 0)]) == []


def test_pattern_texts_are_read_through_constants_and_f_strings():
    mod = ast.parse(d('''
        import re
        _TIME: Final = r"(\\d\\d):(\\d\\d)"
        RE_TIME = re.compile(_TIME, flags=re.VERBOSE | re.I)
        RE_STAMP = re.compile(rf"(\\d{{4}})-{_TIME}" + "Z?")
        RE_BAD = re.compile(make())
        '''))
    pats = R.module_patterns(mod)
    assert pats["RE_TIME"] == (r"(\d\d):(\d\d)", int(re.VERBOSE | re.I))
    assert pats["RE_STAMP"] == (r"(\d{4})-(\d\d):(\d\d)Z?", 0)
    assert "RE_BAD" not in pats


def test_the_parameter_each_pattern_is_applied_to_through_locals():
    src = d('''
        import re
        _C = re.compile(r"<!--.*?-->")
        _T = re.compile(r"<.*?>")

        def strip(self, other):
            value = _C.sub("", self)
            value = _T.sub("", value)
            found = re.findall(r"x+", other)
            return value, found
        ''')
    f = function_versions(src, "m.py")["strip"]
    used, on = R.pattern_uses(f.node, f.module, {"self", "other"})
    assert used == [(r"<!--.*?-->", 0), (r"<.*?>", 0), (r"x+", 0)]
    assert on == {"self": [(r"<!--.*?-->", 0), (r"<.*?>", 0)], "other": [(r"x+", 0)]}


def test_an_edited_pattern_is_found_changed_on_a_text_it_treats_anew():
    old = d('''
        import re
        _TAGS = re.compile(r"<[^>]*>")

        def strip_tags(text):
            return " ".join(_TAGS.sub("", text).split())
        ''')
    new = old.replace(r'r"<[^>]*>"', r'r"<.*?>"')
    assert new != old
    c = compare_sources(old, new, "strip_tags")
    assert c.verdict == "changed", c.detail
    assert "\\n" in str(c.to_dict()["evidence"]["distinguishing_input"])


def test_a_match_parameter_gets_a_match_of_the_edited_pattern():
    # tomli's ``match_to_localtime(match)``: the pattern made the seconds
    # optional; a match without them makes the old ``int(None)`` raise
    old = d('''
        import re
        from datetime import time
        RE_LOCALTIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])")

        def match_to_localtime(match):
            hour_str, minute_str, sec_str = match.groups()
            return time(int(hour_str), int(minute_str), int(sec_str))
        ''')
    new = old.replace(r':([0-5][0-9])")', r'(?::([0-5][0-9]))?")').replace(
        "int(sec_str))", "int(sec_str) if sec_str else 0)")
    assert new.count("?:") == 1 and "else 0" in new
    fa, fb = (function_versions(s, "m.py")["match_to_localtime"] for s in (old, new))
    (h, v), = D._regex_hints(fa, fb, {id(x): D._Scope(x) for x in (fa, fb)})
    assert h[0] == ["match"] and all(".match(" in x for x in h[1])
    c = compare_sources(old, new, "match_to_localtime")
    assert c.verdict == "changed", c.detail
    assert "TypeError" in c.detail


def test_a_str_subclass_method_gets_the_telling_text_as_its_object():
    old = d('''
        import re
        _TAGS = re.compile(r"<[^>]*>")

        class Text(str):
            def striptags(self):
                return _TAGS.sub("", self)
        ''')
    new = old.replace(r'r"<[^>]*>"', r'r"<.*?>"')
    fa, fb = (function_versions(s, "m.py")["Text.striptags"] for s in (old, new))
    (h, _), = D._regex_hints(fa, fb, {id(x): D._Scope(x) for x in (fa, fb)})
    assert h[0] == ["self"]
    c = compare_sources(old, new, "Text.striptags")
    assert c.verdict == "changed", c.detail
    ch = changed_lines(fa, fb)
    assert ch == (set(), set())      # the edit is outside the method


def test_a_set_s_every_member_is_a_sample():
    assert R.member_samples(r"^:[ \t]+", re.M) == [": ", ":  ", ":\t"]
    assert R.member_samples(r"(", 0) == []
    # the plain samples are unchanged: the first member only
    assert "\t" not in "".join(R._samples(r"^:[ \t]+", re.M))


_SPAN_OLD = d('''
    import re
    START_RE = re.compile(r"^:[ \\t]+", re.M)

    def _line(src, pos, end):
        e = src.find("\\n", pos, end)
        return src[pos:end] if e == -1 else src[pos:e + 1]

    def collect(src, pos, end):
        out = []
        while pos < end:
            line = _line(src, pos, end)
            if not START_RE.match(line):
                break
            out.append(line.replace(":", " ", 1))
            pos += len(line)
        return out, pos
    ''')


def test_a_text_and_its_span_are_set_together_inside_the_text():
    # mistune's def_list: the loop runs only where ``pos < end`` and the line
    # at ``pos`` starts with the marker; a tab after it tells the edit apart
    new = _SPAN_OLD.replace('line.replace(":", " ", 1)',
                            're.sub(r"^:[ \\t]", "  ", line, count=1)')
    assert new != _SPAN_OLD
    v = function_versions(new, "m.py")["collect"]
    hints = D._span_hints(v, D._Scope(v))
    assert hints and all(h[0] == "RAW" and h[3] == ["src", "pos", "end"] for h in hints)
    assert any("src = ':\\tx\\n'" in h[1] and "end = 4" in h[1] for h in hints)
    c = compare_sources(_SPAN_OLD, new, "collect")
    assert c.verdict == "changed", c.detail
    assert "\\t" in str(c.to_dict()["evidence"]["distinguishing_input"])


def test_no_span_without_a_text_the_positions_index():
    src = d('''
        def clamp(lo, hi):
            while lo < hi:
                lo += 1
            return lo
        ''')
    v = function_versions(src, "m.py")["clamp"]
    assert D._span_hints(v, D._Scope(v)) == []


def test_a_pattern_text_filled_in_by_str_format_is_read():
    consts = {"N": ast.parse('r"[0-9]+"', mode="eval").body}
    e = ast.parse('r"(?P<a>{n})\\.(?P<b>{n}){0}".format("$", n=N)', mode="eval").body
    assert R._text_value(e, consts) == r"(?P<a>[0-9]+)\.(?P<b>[0-9]+)$"
    # a name with no constant, a field the call does not fill: nothing
    for src in ('"{n}".format(n=unknown)', '"{m}".format(n=N)', '"{}".format(*xs)'):
        assert R._text_value(ast.parse(src, mode="eval").body, consts) is None


def test_the_numbers_sample_takes_the_digits_of_each_alternation():
    assert R.numbers_sample(r"^(<|>=)(x|\*|[1-9][0-9]*)\.(x|\d+)$") == "<21.1"
    # the first alternative is already the number, or there is no choice
    assert R.numbers_sample(r"^(\d+|x)$") is None
    assert R.numbers_sample(r"^\d+(\.\d+)?$") is None
    assert R.numbers_sample(r"(") is None
