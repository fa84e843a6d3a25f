"""irinorm for PySpark: keys of a URL column, and deduplication by key.

Batches go through :meth:`irinorm.Normalizer.keys_arrow` inside
``DataFrame.mapInArrow``: no Python object per row, keys computed in Rust.
Every executor needs the ``irinorm`` wheel installed (``pip install`` on the
nodes, or ``spark-submit --py-files``/a packed venv); a ``redirects`` file
must be readable at the same path on every executor.

>>> from irinorm.spark import canonicalize, dedup            # doctest: +SKIP
>>> keyed = canonicalize(df, "url", level="protocol")         # doctest: +SKIP
>>> dedup(df, "url", order_by="fetch_time").show()            # doctest: +SKIP
>>> rejects(df, "url").count()                                # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence, Union

__all__ = ["canonicalize", "dedup", "links", "rejects", "unseen"]

_POS = "__irinorm_pos"
_KEY = "__irinorm_key"
_ERR = "__irinorm_err"


def _keyer(column: str, output: str, error: str, opts: dict):
    """The function mapInArrow runs on each executor: append the key and
    error columns to every record batch."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        import irinorm

        normalizer = irinorm.Normalizer(**opts)
        for batch in batches:
            urls = batch.column(column)
            canonical, err = normalizer.keys_arrow(urls)
            # Spark expects the Arrow type it gave us for strings.
            typ = urls.type if urls.type in (pa.string(), pa.large_string()) else pa.string()
            yield pa.RecordBatch.from_arrays(
                list(batch.columns) + [canonical.cast(typ), err.cast(typ)],
                names=list(batch.schema.names) + [output, error],
            )

    return run


def canonicalize(
    df: Any,
    column: str,
    level: str = "scheme",
    output: str = "canonical",
    error: str = "error",
    **opts: Any,
) -> Any:
    """``df`` with two string columns added: ``output`` (the key of
    ``column`` at ``level``, null when the input is null or rejected) and
    ``error`` (why it was rejected, else null).

    ``opts`` are the other arguments of :class:`irinorm.Normalizer`:
    ``form``, ``nfc``, ``base``, ``mode``, ``rules``, ``redirects``. They are
    checked here, on the driver, before any job runs.
    """
    from pyspark.sql.types import StringType, StructField, StructType

    import irinorm

    opts = dict(opts, level=level)
    irinorm.Normalizer(**opts)  # Fail fast on bad options.
    for name in (output, error):
        if name in df.columns:
            raise ValueError(f"column {name!r} already exists")
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in {df.columns}")
    schema = StructType(
        list(df.schema.fields)
        + [StructField(output, StringType(), True), StructField(error, StringType(), True)]
    )
    return df.mapInArrow(_keyer(column, output, error, opts), schema)


def rejects(
    df: Any,
    column: str,
    level: str = "scheme",
    error: str = "error",
    **opts: Any,
) -> Any:
    """The rows of ``df`` whose ``column`` has no key, with an ``error``
    column saying why: what the CLI writes with ``--rejects``, and what
    :func:`dedup` leaves out. ``rejects(df, "url").count()`` is the CLI's
    "rejected" count. Null and blank references (empty, or only spaces and
    tabs) are not rejects: the CLI counts blank lines apart. ``opts`` as for
    :func:`canonicalize`; the keys are computed again (cache ``df`` to read
    it once).
    """
    from pyspark.sql import functions as F

    keyed = canonicalize(df, column, level=level, output=_KEY, error=error, **opts)
    url = F.col(column)
    return keyed.where(
        F.col(_KEY).isNull() & url.isNotNull() & ~url.rlike("^[ \\t]*$")
    ).drop(_KEY)


def dedup(
    df: Any,
    column: str,
    order_by: Optional[Union[str, Any, Sequence[Union[str, Any]]]] = None,
    **opts: Any,
) -> Any:
    """One row per key of ``column``: ``canonical``, ``count`` and
    ``example`` (the first row of the group), like the CLI's ``dedup``.

    "First" is by ``order_by`` (column names or Columns, ascending; ties and
    ``None`` fall back to the order of the input, as read:
    ``monotonically_increasing_id``, which follows files and lines).
    Rejected and null references are left out, as the CLI leaves them out of
    its CSV (:func:`rejects` gives the rejected rows and their count). With ``form="surt"`` the rows are grouped by the URI-form key and
    ``canonical`` shows its SURT, as the CLI does (so http and https never
    merge). ``opts``: ``level`` and the other arguments of
    :class:`irinorm.Normalizer`. The rows come in no particular order.
    """
    from pyspark.sql import functions as F

    form = opts.get("form", "uri")
    group_opts = dict(opts, form="uri") if form == "surt" else opts
    if order_by is None:
        order: List[Any] = []
    elif isinstance(order_by, (list, tuple)):
        order = list(order_by)
    else:
        order = [order_by]
    order_cols = [F.col(o) if isinstance(o, str) else o for o in order]
    positioned = df.withColumn(_POS, F.monotonically_increasing_id())
    keyed = canonicalize(positioned, column, output=_KEY, error=_ERR, **group_opts).where(
        F.col(_KEY).isNotNull()
    )
    first = F.struct(*order_cols, F.col(_POS))
    rows = keyed.groupBy(_KEY).agg(
        F.count(F.lit(1)).alias("count"),
        F.min_by(F.col(column), first).alias("example"),
    )
    if form == "surt":
        shown = canonicalize(rows, "example", output="canonical", error=_ERR, **opts)
        return shown.select("canonical", "count", "example")
    return rows.select(F.col(_KEY).alias("canonical"), "count", "example")


def links(
    df: Any,
    path_column: str = "path",
    hosts: bool = False,
    targets: bool = False,
    **opts: Any,
) -> Any:
    """The link graph of the WAT/WARC files named in ``df[path_column]``
    (paths every executor can read), in place of cc-pyspark's
    ``ExtractLinksJob``/``ExtractHostLinksJob``: each file's edges are
    extracted, keyed and counted by :func:`irinorm.links` on an executor,
    then summed across files. Columns ``source``, ``target``, ``count``
    (``hosts=True``: host names as in Common Crawl's host graph); with
    ``targets=True``, ``target`` and ``count``: the distinct sources
    linking to each target. ``opts`` as for :func:`irinorm.links`
    (``level``, ``form``, ``mode``, ``input_format``, ``memory``, …).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    import irinorm

    if path_column not in df.columns:
        raise ValueError(f"no column {path_column!r} in {df.columns}")
    schema = StructType(
        [
            StructField("source", StringType(), True),
            StructField("target", StringType(), True),
            StructField("count", LongType(), True),
        ]
    )

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        import irinorm as inner

        for batch in batches:
            for path in batch.column(path_column).to_pylist():
                if path is None:
                    continue
                rows = inner.links([path], hosts=hosts, **opts)
                yield pa.RecordBatch.from_arrays(
                    [
                        pa.array([r[0] for r in rows], pa.string()),
                        pa.array([r[1] for r in rows], pa.string()),
                        pa.array([int(r[2]) for r in rows], pa.int64()),
                    ],
                    names=["source", "target", "count"],
                )

    irinorm.Normalizer(level=opts.get("level", "scheme"))  # Fail fast on a bad level.
    edges = (
        df.select(path_column)
        .mapInArrow(run, schema)
        .groupBy("source", "target")
        .agg(F.sum("count").alias("count"))
    )
    if targets:
        return edges.groupBy("target").agg(F.count("source").alias("count"))
    return edges


def unseen(rows: Any, seen: Any, key: str = "canonical") -> Any:
    """The URL-seen test past one machine: the rows of ``rows`` (the output
    of :func:`dedup`, or any DataFrame with the ``key`` column) whose key is
    not in ``seen``, a DataFrame of one string column ``key`` holding every
    key seen so far (typically a Parquet table). A left anti-join, so
    Spark shuffles both sides by key (or broadcasts a small side), as
    Nutch merges its CrawlDb each round.

    The keys must be made with the same options every round (level, form,
    rules, ...): the seen table does not record them, unlike
    ``irinorm dedup --seen``'s seen-set. With ``form="surt"`` the
    ``canonical`` column is a display that can merge http and https:
    anti-join on a URI-form key instead. To add a round's new keys::

        new = unseen(dedup(batch, "url"), spark.read.parquet(path))
        new.select("canonical").write.mode("append").parquet(path)
    """
    if key not in rows.columns:
        raise ValueError(f"no column {key!r} in {rows.columns}")
    return rows.join(seen.select(key).distinct(), on=key, how="left_anti")
