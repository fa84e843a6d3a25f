#!/usr/bin/env python3
"""The peer of `irinorm links` in BENCHMARKS.md: cc-pyspark's WAT link
extraction (`ExtractLinksJob.get_links` of wat_extract_links.py, in its fast
variant: FastWARC to read the records, ujson to parse the JSON, urljoin per
link), run on one core without Spark, counting pages and links. Written
from that job's logic for the benchmark: the same records (WAT JSON of
responses), the same links (Link / Content-Location headers, head links,
URL-valued metas, scripts, `Links` url or absolute href), each joined with
the page's base; no canonicalization, no deduplication.

    python3 -m venv venv && venv/bin/pip install fastwarc ujson
    venv/bin/python scripts/bench_cc_links.py pages.wat.gz
"""

import re
import sys
import time
from urllib.parse import urljoin

import ujson as json
from fastwarc.warc import ArchiveIterator, WarcRecordType

ABS = re.compile(r"^(?:https?:)?//")
LINK_HEADER = re.compile(r"<([^>]*)>")
META_PROPS = {"og:url", "og:image", "og:image:secure_url", "og:video", "og:video:url",
              "og:video:secure_url", "twitter:url", "twitter:image:src"}
META_NAMES = {"twitter:image", "thumbnail", "application-url", "msapplication-starturl",
              "msapplication-TileImage", "vb_meta_bburl"}


def joined(src, base, items, attr, opt=None):
    base = base or src
    for item in items:
        if attr in item:
            link = item[attr]
        elif opt in item and ABS.match(item[opt]):
            link = item[opt]
        else:
            continue
        try:
            yield src, urljoin(base, link)
        except ValueError:
            continue


def links(url, rec):
    meta = rec["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]
    for name, value in meta.get("Headers", {}).items():
        values = value if isinstance(value, list) else [value]
        if name.lower() == "content-location":
            for v in values:
                yield url, v
        elif name.lower() == "link":
            for v in values:
                for m in LINK_HEADER.finditer(v):
                    yield url, m.group(1)
    html = meta.get("HTML-Metadata")
    if html is None:
        return
    base = None
    head = html.get("Head", {})
    if "Base" in head:
        try:
            base = urljoin(url, head["Base"])
        except ValueError:
            pass
    yield from joined(url, base, head.get("Link", []), "url")
    for m in head.get("Metas", []):
        if (m.get("property") in META_PROPS or m.get("name") in META_NAMES
                or ("content" in m and ABS.match(m["content"]))):
            yield from joined(url, base, [m], "content")
    yield from joined(url, base, head.get("Scripts", []), "url")
    yield from joined(url, base, html.get("Links", []), "url", "href")


def main(path):
    start = time.perf_counter()
    pages = n = 0
    with open(path, "rb") as f:
        for record in ArchiveIterator(f, record_types=WarcRecordType.metadata):
            if record.headers.get("Content-Type") != "application/json":
                continue
            rec = json.loads(record.reader.read())
            warc = rec["Envelope"]["WARC-Header-Metadata"]
            if warc["WARC-Type"] != "response":
                continue
            pages += 1
            for _ in links(warc["WARC-Target-URI"], rec):
                n += 1
    secs = time.perf_counter() - start
    print(f"{pages} pages, {n} links, {secs:.2f} s, {pages / secs:.0f} pages/s")


if __name__ == "__main__":
    main(sys.argv[1])
