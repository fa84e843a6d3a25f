"""Type stubs of the native module (re-exported by ``irinorm``)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

Level = Literal["string", "syntax", "scheme", "protocol"]
Form = Literal["uri", "iri", "surt"]
Mode = Literal["strict", "leiri", "web"]

class IriError(ValueError):
    """A reference irinorm rejects.

    >>> import irinorm
    >>> try:
    ...     irinorm.key("http://a.example/a b")
    ... except irinorm.IriError as e:
    ...     (e.offset, e.kind, e.reason)
    (18, 'char_not_allowed', 'space not allowed in path')
    """

    offset: int
    """Byte offset (into the UTF-8 input) where the problem starts."""
    kind: str
    """A short stable name: ``invalid_percent_encoding``, ``char_not_allowed``, ``idna``, ..."""
    reason: str
    """The reason as a sentence, without the offset."""

class Normalizer:
    """Computes keys at one rung of the comparison ladder (RFC 3987bis §5.3).

    ``mode`` repairs input first like the CLI's ``--mode``: ``strict`` (none),
    ``leiri`` (§7.1) or ``web`` (§7.2: the WHATWG URL Standard's parser,
    with ``base``; at ``level="string"`` the key is the browser's ``href``). ``rules`` (e.g. ``"+sort-query,-session"``) and
    ``redirects`` (a CSV file ``from,to`` of observed redirects) configure the
    protocol rung and need ``level="protocol"``.

    >>> from irinorm import Normalizer
    >>> n = Normalizer(level="scheme")
    >>> n.key("HTTP://Example.COM:80/%7Euser")
    'http://example.com/~user'
    >>> n.equivalent("http://a.example", "HTTP://A.EXAMPLE:80/")
    True
    >>> n.lowest_equal_level("http://a.example/%7E", "http://a.example/~")
    'syntax'
    >>> Normalizer(mode="web").key("  http://a.example\\\\b ")
    'http://a.example/b'
    """

    def __init__(
        self,
        level: Level = "scheme",
        form: Form = "uri",
        nfc: bool = False,
        base: Optional[str] = None,
        mode: Mode = "strict",
        rules: Optional[str] = None,
        redirects: Optional[Union[str, PathLike[str]]] = None,
    ) -> None: ...
    @property
    def level(self) -> Level: ...
    def key(self, s: str) -> str:
        """The key of ``s``; raises :class:`IriError` if ``s`` is rejected."""
    def keys(self, items: Sequence[Optional[str]]) -> list[Optional[str]]:
        """Keys of many strings, in parallel; ``None`` for a rejected or ``None`` item.

        >>> Normalizer().keys(["http://A.example", "bad ref", None])
        ['http://a.example/', None, None]
        """
    def equivalent(self, a: str, b: str) -> bool:
        """``a`` and ``b`` have the same key; raises :class:`IriError` on a rejected one."""
    def lowest_equal_level(self, a: str, b: str) -> Optional[Level]:
        """The lowest rung at which ``a`` and ``b`` have equal keys (with this
        normalizer's form, mode, base and rules), or ``None``."""
    def keys_arrow(self, array: Any) -> Tuple[Any, Any]:
        """Keys of an Arrow string column: ``(canonical, error)``.

        ``array`` is a pyarrow ``string``/``large_string``/``string_view``
        array or chunked array, or anything exporting the Arrow PyCapsule
        interface (a Polars Series, ...). It is read in place through the
        Arrow C data interface; keys are computed in parallel with the GIL
        released. ``canonical`` is null where the input is null or rejected;
        ``error`` holds the reason where rejected, else null. A ``string``
        input gives ``string`` output, anything else ``large_string``; a
        chunked input gives chunked output.

        >>> import pyarrow as pa
        >>> canonical, error = Normalizer().keys_arrow(pa.array(["HTTP://a.example", None, "a b"]))
        >>> canonical.to_pylist(), error.to_pylist()
        (['http://a.example/', None, None], [None, None, 'space not allowed in path at byte 1'])
        """

def key(
    s: str,
    level: Level = "scheme",
    form: Form = "uri",
    nfc: bool = False,
    base: Optional[str] = None,
) -> str:
    """The key of ``s`` at ``level``, written in ``form``.

    >>> key("HTTP://Example.COM:80/a/./b")
    'http://example.com/a/b'
    >>> key("../c", base="http://a.example/b/d")
    'http://a.example/c'
    """

def to_uri(s: str) -> str:
    """The URI form of an IRI (RFC 3987bis §3.6).

    >>> to_uri("http://résumé.example/ä")
    'http://xn--rsum-bpad.example/%C3%A4'
    """

def to_iri(s: str, idn_display: str = "high", top_domains: str | None = None) -> str:
    """The IRI form of a URI (RFC 3987bis §3.7).

    Host labels are shown in Unicode only when the display policy
    ``idn_display`` calls them safe (§8.6): ``high`` (default), ``moderate``,
    ``ascii`` or ``unicode``. ``top_domains`` replaces the bundled list of
    top domains (the text of a list: one domain per line, ``#`` comments).

    >>> to_iri("http://xn--rsum-bpad.example/%C3%A4")
    'http://résumé.example/ä'
    >>> to_iri("http://xn--80ak6aa92e.com/")
    'http://xn--80ak6aa92e.com/'
    >>> to_iri("http://xn--80ak6aa92e.com/", idn_display="unicode")
    'http://аррӏе.com/'
    """

def check(
    s: str, idn_display: str = "high", top_domains: str | None = None
) -> list[tuple[str, str, str, int, str]]:
    """What makes ``s`` hard to trust when shown to a person (3987bis §4,
    §7.3, §8.6): ``(severity, code, component, offset, message)`` tuples.

    >>> [f[:4] for f in check("http://a.example/%E2%80%AEexe")]
    [('warning', 'bidi-formatting', 'path', 17)]
    >>> check("http://example.com/")
    []
    """

def resolve(base: str, reference: str) -> str:
    """Resolve ``reference`` against the absolute ``base`` (RFC 3986 §5.2).

    >>> resolve("http://a/b/c/d;p?q", "../g")
    'http://a/b/g'
    """

def surt(
    s: str,
    level: Level = "scheme",
    with_scheme: bool = False,
    trailing_comma: bool = False,
    strip_www: bool = False,
    with_userinfo: bool = True,
) -> str:
    """The SURT of the key of ``s`` at ``level`` (CDX form by default).

    >>> surt("http://www.Example.com/a?b=1")
    'com,example,www)/a?b=1'
    >>> surt("http://www.example.com/", with_scheme=True, trailing_comma=True)
    'http://(com,example,www,)/'
    """

def links(
    paths: List[str],
    output: Optional[str] = ...,
    level: str = ...,
    form: str = ...,
    mode: str = ...,
    hosts: bool = ...,
    targets: bool = ...,
    columns: Optional[str] = ...,
    input_format: Optional[str] = ...,
    source_column: Optional[str] = ...,
    column: Optional[str] = ...,
    base_column: Optional[str] = ...,
    memory: Optional[int] = ...,
    threads: Optional[int] = ...,
) -> Tuple[str, Dict[str, int]]: ...

def seen_info(dir: Union[str, PathLike], verify: bool = False) -> dict:
    """What the seen-set in ``dir`` (written by ``irinorm dedup --seen``)
    holds: ``version``, ``key_options``, ``keys``, ``bytes`` and ``files``
    (name, keys, bytes). ``verify`` reads every file and checks every
    block. Raises ``OSError`` if it is not a seen-set, is damaged or is
    being written."""

def seen_compact(dir: Union[str, PathLike]) -> dict:
    """Merge the seen-set's files into one; what it then holds (as
    :func:`seen_info`). Raises ``OSError`` while another process writes it."""
