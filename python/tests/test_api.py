"""The Python API: keys, options, errors, nulls and Arrow types."""

import pyarrow as pa
import pytest

import irinorm
from irinorm import IriError, Normalizer


def test_key_levels_and_forms():
    s = "HTTP://www.Example.COM:80/%7Ea/./b/../c?utm_source=x#F"
    assert irinorm.key(s, level="string") == s
    assert irinorm.key(s, level="syntax") == "http://www.example.com:80/~a/c?utm_source=x#F"
    assert irinorm.key(s) == "http://www.example.com/~a/c?utm_source=x#F"
    assert irinorm.key(s, level="protocol") == "http://www.example.com/~a/c"
    assert irinorm.key("http://münchen.de/ä") == "http://xn--mnchen-3ya.de/%C3%A4"
    assert irinorm.key("http://münchen.de/ä", form="iri") == "http://münchen.de/ä"
    assert irinorm.key("http://www.example.com/a", form="surt") == "com,example,www)/a"


def test_nfc_and_base():
    decomposed = "http://a.example/e\u0301"
    assert irinorm.key(decomposed, form="iri") == decomposed
    assert irinorm.key(decomposed, form="iri", nfc=True) == "http://a.example/\u00e9"
    assert irinorm.key("g?y", base="http://a/b/c/d;p?q") == "http://a/b/c/g?y"
    n = Normalizer(base="http://a/b/c/d;p?q")
    assert n.key("../../g") == "http://a/g"


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="level"):
        Normalizer(level="nope")
    with pytest.raises(ValueError, match="form"):
        irinorm.key("http://a", form="nope")
    with pytest.raises(ValueError, match="mode"):
        Normalizer(mode="nope")
    with pytest.raises(ValueError, match="protocol"):
        Normalizer(rules="+sort-query")
    with pytest.raises(ValueError, match="rules"):
        Normalizer(level="protocol", rules="+no-such-rule")
    with pytest.raises(IriError) as e:
        Normalizer(base="relative/base")
    assert e.value.kind == "base_not_absolute"


def test_iri_error_fields():
    with pytest.raises(IriError) as e:
        irinorm.key("http://a.example/a b")
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.offset, err.kind, err.reason) == (18, "char_not_allowed", "space not allowed in path")
    assert str(err) == "space not allowed in path at byte 18"
    with pytest.raises(IriError) as e:
        irinorm.key("rel/ative")
    assert e.value.kind == "relative_without_base"
    with pytest.raises(IriError) as e:
        irinorm.key("http://a.example/%zz")
    assert (e.value.offset, e.value.kind) == (17, "invalid_percent_encoding")


def test_modes():
    dirty = "  http://a.example\\b\\c d \n"
    with pytest.raises(IriError):
        Normalizer().key(dirty)
    assert Normalizer(mode="web").key(dirty) == "http://a.example/b/c%20d"
    assert Normalizer(mode="leiri").key("http://a.example/a\u00a0b") == "http://a.example/a%C2%A0b"


def test_rules_and_redirects(tmp_path):
    n = Normalizer(level="protocol", rules="+sort-query")
    assert n.key("http://a.example/?b=2&a=1") == "http://a.example/?a=1&b=2"
    log = tmp_path / "redirects.csv"
    log.write_text(
        "from,to\n"
        + "".join(f"http://h.example/p{i},https://h.example/p{i}\n" for i in range(5)),
        encoding="utf-8",
    )
    learned = Normalizer(level="protocol", redirects=log)
    plain = Normalizer(level="protocol")
    assert plain.key("http://h.example/x") == "http://h.example/x"
    assert learned.key("http://h.example/x") != plain.key("http://h.example/x")
    with pytest.raises(OSError):
        Normalizer(level="protocol", redirects=tmp_path / "missing.csv")


def test_keys_equivalent_lowest_level():
    n = Normalizer()
    assert n.keys(["HTTP://A.example", "a b", None, ""]) == ["http://a.example/", None, None, None]
    assert n.keys([]) == []
    many = [f"HTTP://h{i}.example" for i in range(10_000)]
    assert n.keys(many) == [f"http://h{i}.example/" for i in range(10_000)]
    assert n.equivalent("http://a.example:80/", "HTTP://a.example")
    assert not n.equivalent("http://a.example/", "https://a.example/")
    with pytest.raises(IriError):
        n.equivalent("http://a.example/", "a b")
    assert n.lowest_equal_level("http://a/", "http://a/") == "string"
    assert n.lowest_equal_level("http://a/%7e", "http://a/~") == "syntax"
    assert n.lowest_equal_level("http://a:80/", "http://a/") == "scheme"
    assert n.lowest_equal_level("http://a/?utm_source=x", "http://a/") == "protocol"
    assert n.lowest_equal_level("http://a/", "http://b/") is None
    assert n.level == "scheme"
    assert "level=" in repr(n)


def test_conversions_resolve_surt():
    assert irinorm.to_uri("http://résumé.example/ä") == "http://xn--rsum-bpad.example/%C3%A4"
    assert irinorm.to_iri("http://xn--rsum-bpad.example/%C3%A4") == "http://résumé.example/ä"
    assert irinorm.resolve("http://a/b/c/d;p?q", "../../../g") == "http://a/g"
    with pytest.raises(IriError):
        irinorm.resolve("b/c", "d")
    assert irinorm.surt("http://www.example.com:8080/a") == "com,example,www:8080)/a"
    assert irinorm.surt("http://www.example.com/", strip_www=True) == "com,example)/"
    assert irinorm.surt("mailto:a@b.example") == "mailto:a@b.example"


ROWS = ["HTTP://A.example:80/x", None, "a b", "http://münchen.de/", "", "http://b.example/%zz"]
KEYS = ["http://a.example/x", None, None, "http://xn--mnchen-3ya.de/", None, None]


def _errors_ok(errors):
    assert errors[0] is None and errors[1] is None and errors[3] is None
    assert errors[2] == "space not allowed in path at byte 1"
    assert errors[4].startswith("relative reference without a base")  # "" is a relative ref
    assert errors[5].startswith("invalid percent-encoding")


@pytest.mark.parametrize("typ", [pa.string(), pa.large_string(), pa.string_view()])
def test_keys_arrow_types_and_nulls(typ):
    canonical, error = Normalizer().keys_arrow(pa.array(ROWS, type=typ))
    assert canonical.type == (pa.string() if typ == pa.string() else pa.large_string())
    assert canonical.to_pylist() == KEYS
    _errors_ok(error.to_pylist())
    assert canonical.null_count == 4


def test_keys_arrow_chunked_and_sliced():
    chunked = pa.chunked_array([pa.array(ROWS[:2]), pa.array([], pa.string()), pa.array(ROWS[2:])])
    canonical, error = Normalizer().keys_arrow(chunked)
    assert isinstance(canonical, pa.ChunkedArray) and canonical.num_chunks == 3
    assert canonical.to_pylist() == KEYS
    _errors_ok(error.to_pylist())
    # A slice has an offset into its parent's buffers.
    canonical, _ = Normalizer().keys_arrow(pa.array(ROWS).slice(3, 2))
    assert canonical.to_pylist() == KEYS[3:5]
    canonical, _ = Normalizer().keys_arrow(pa.chunked_array([], pa.large_string()))
    assert canonical.type == pa.large_string() and len(canonical) == 0


def test_keys_arrow_large_and_parallel():
    rows = [f"HTTP://h{i % 997}.example/{i}" if i % 5 else None for i in range(50_000)]
    canonical, error = Normalizer().keys_arrow(pa.array(rows, pa.large_string()))
    assert canonical.to_pylist() == [r and r.replace("HTTP", "http") for r in rows]
    assert error.null_count == len(rows)


def test_keys_arrow_rejects_non_strings():
    with pytest.raises(TypeError, match="strings"):
        Normalizer().keys_arrow(pa.array([1, 2]))
    with pytest.raises(TypeError):
        Normalizer().keys_arrow(["http://a"])


def test_idn_display_and_check():
    # Cyrillic "аррӏе": a whole-script confusable of apple.com.
    spoof = "http://xn--80ak6aa92e.com/"
    assert irinorm.to_iri(spoof) == spoof
    assert irinorm.to_iri(spoof, idn_display="unicode") == "http://аррӏе.com/"
    assert irinorm.to_iri("http://xn--mnchen-3ya.de/", idn_display="ascii") == (
        "http://xn--mnchen-3ya.de/"
    )
    with pytest.raises(ValueError):
        irinorm.to_iri(spoof, idn_display="loose")
    codes = [f[1] for f in irinorm.check(spoof)]
    assert codes == ["idn-whole-script-confusable", "idn-top-domain-lookalike"]
    assert irinorm.check(spoof, top_domains="example.com\n")[1:] == []
    assert irinorm.check("http://example.com/") == []
    with pytest.raises(IriError):
        irinorm.check("http://a.example/%zz")
