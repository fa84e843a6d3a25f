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
    seen_compact,
    seen_info,
    surt,
    to_iri,
    to_uri,
)
from ._irinorm import links as _links

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
    "links",
    "resolve",
    "seen_compact",
    "seen_info",
    "surt",
    "to_iri",
    "to_uri",
]


def links(paths, output=None, **opts):
    r"""The link graph of WAT/WARC files (or CSV/TSV edge lists), as the
    CLI's ``irinorm links`` builds it: both ends resolved and keyed,
    deduplicated edges with counts, in order of first occurrence.

    ``paths``: a path or a list of paths. With ``output`` the CSV is
    written there (atomically) and the run's counts are returned (a dict:
    records, records_rejected, pages, links, accepted, rejected, dropped,
    edges, rows); without it, the rows are returned as tuples of strings
    (``source, target, count`` by default). ``opts``: ``level``, ``form``,
    ``mode`` (default ``"web"``), ``hosts``, ``targets``, ``columns``,
    ``input_format`` (``wat``, ``warc``, ``csv``, ``tsv``; default from the
    name), ``source_column``, ``column``, ``base_column``, ``memory``
    (bytes), ``threads``.

    >>> import irinorm, os, tempfile
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "e.csv")
    >>> _ = open(p, "w").write("from,to\nhttp://a.example/,b\nHTTP://A.example:80/,./b\n")
    >>> irinorm.links(p)
    [('http://a.example/', 'http://a.example/b', '2')]
    """
    import csv
    import io

    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    paths = [str(p) for p in paths]
    text, counts = _links(paths, output=None if output is None else str(output), **opts)
    if output is not None:
        return counts
    rows = csv.reader(io.StringIO(text))
    next(rows, None)
    return [tuple(r) for r in rows]
