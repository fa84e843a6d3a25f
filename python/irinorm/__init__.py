"""irinorm: IRI/URL keys along the comparison ladder of RFC 3987bis §5.3.

Every function here calls the Rust library ``irinorm``; nothing is
re-implemented in Python.

>>> import irinorm
>>> irinorm.key("HTTP://Example.COM:80/a/./b")
'http://example.com/a/b'
>>> irinorm.key("http://münchen.de/ä", form="iri")
'http://münchen.de/ä'
>>> n = irinorm.Normalizer(level="protocol")
>>> n.key("https://www.example.com/index.html?utm_source=x")
'https://www.example.com/index.html'
>>> n.keys(["http://a.example", "no scheme", None])
['http://a.example/', None, None]
>>> try:
...     irinorm.key("http://a.example/%zz")
... except irinorm.IriError as e:
...     print(e.kind, e.offset, e.reason)
invalid_percent_encoding 17 invalid percent-encoding

Levels (rungs, lowest first): ``string``, ``syntax``, ``scheme`` (default),
``protocol``. Forms: ``uri`` (ASCII, default), ``iri``, ``surt``.
"""

from ._irinorm import (
    IriError,
    Normalizer,
    check,
    key,
    resolve,
    surt,
    to_iri,
    to_uri,
)

LEVELS = ("string", "syntax", "scheme", "protocol")
FORMS = ("uri", "iri", "surt")
MODES = ("strict", "leiri", "web")

__all__ = [
    "FORMS",
    "LEVELS",
    "MODES",
    "IriError",
    "Normalizer",
    "check",
    "key",
    "resolve",
    "surt",
    "to_iri",
    "to_uri",
]
