#!/usr/bin/env python3
"""Write a WAT file (WARC/1.0 metadata records of ia-web-commons JSON, one
gzip member per record, as Common Crawl publishes them) of N synthetic HTML
pages, for `irinorm links` tests and benchmarks.

Each page's record has the shape Common Crawl's WATs have
(Envelope → Payload-Metadata → HTTP-Response-Metadata → HTML-Metadata →
Head.Base / Head.Link / Head.Metas / Links of {path, url, text}); a request
record precedes each response as in real WATs, and every 50th page is a 301
with a Location header. Links mix relative, absolute, network-path and
fragment references, percent-encoding, IDN, `www.` and IP hosts, so the
canonical keys merge some of them. Deterministic for a seed.

    python3 scripts/gen_wat.py --pages 100000 -o /tmp/pages.wat.gz
"""

import argparse
import gzip
import io
import json
import random
import uuid


def record(fields, block):
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


def member(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0) as g:
        g.write(data)
    return buf.getvalue()


HOSTS = ["example.com", "www.example.org", "blog.example.net", "münchen.example",
         "shop.example.co.uk", "192.0.2.7", "WWW.Example.COM", "news.example.com"]


def link(rng, page_host):
    k = rng.randrange(12)
    n = rng.randrange(5000)
    if k < 4:
        return f"/articles/{n}/index.html"
    if k == 4:
        return f"../tag/{n}?utm_source=x&id={n}"
    if k == 5:
        return f"#section-{n % 7}"
    if k == 6:
        return f"//{rng.choice(HOSTS)}/p/{n}"
    if k == 7:
        return f"HTTP://{page_host.upper()}:80/a/./b/{n}"
    if k == 8:
        return f"https://{rng.choice(HOSTS)}/r%c3%a9sum%C3%A9/{n}"
    if k == 9:
        return f"page-{n}.html"
    if k == 10:
        return f"https://{rng.choice(HOSTS)}/"
    return f"http://{rng.choice(HOSTS)}/item?id={n}"


def wat_json(url, status, headers, html):
    env = {
        "Format": "WARC",
        "WARC-Header-Length": "500",
        "Block-Digest": "sha1:AAAA",
        "Actual-Content-Length": "20000",
        "WARC-Header-Metadata": {
            "WARC-Type": "response",
            "WARC-Date": "2024-05-18T01:58:10Z",
            "WARC-Record-ID": f"<urn:uuid:{uuid.UUID(int=hash(url) & (2**128 - 1))}>",
            "Content-Length": "20000",
            "Content-Type": "application/http; msgtype=response",
            "WARC-Target-URI": url,
        },
        "Payload-Metadata": {
            "Actual-Content-Type": "application/http; msgtype=response",
            "HTTP-Response-Metadata": {
                "Response-Message": {"Version": "HTTP/1.1", "Status": str(status), "Reason": "OK"},
                "Headers": headers,
                "Headers-Length": "400",
                "Entity-Length": "19600",
                "Entity-Trailing-Slop-Length": "0",
            },
        },
    }
    if html is not None:
        env["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"] = html
    return {"Container": {"Filename": "CC-MAIN-x.warc.gz", "Compressed": True, "Offset": "1"},
            "Envelope": env}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--links", type=int, default=60, help="mean links per page")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.output, "wb") as out:
        info = b"software: irinorm scripts/gen_wat.py\r\nformat: WARC File Format 1.0\r\n"
        out.write(member(record([("WARC-Type", "warcinfo"), ("Content-Type", "application/warc-fields")], info)))
        for i in range(a.pages):
            host = rng.choice(HOSTS[:5])
            url = f"https://{host}/dir{i % 97}/page{i}.html"
            req = json.dumps({"Envelope": {"WARC-Header-Metadata": {"WARC-Type": "request", "WARC-Target-URI": url}}},
                             separators=(",", ":")).encode()
            fields = [("WARC-Type", "metadata"), ("WARC-Target-URI", url), ("Content-Type", "application/json")]
            out.write(member(record(fields, req)))
            if i % 50 == 49:
                j = wat_json(url, 301, {"Location": f"/moved/{i}", "Content-Type": "text/html"}, None)
            else:
                n = max(0, int(rng.gauss(a.links, a.links / 3)))
                links = [{"path": rng.choice(["A@/href"] * 8 + ["IMG@/src", "SCRIPT@/src"]),
                          "url": link(rng, host), "text": "anchor text " * rng.randrange(3)}
                         for _ in range(n)]
                head = {"Title": f"Page {i}",
                        "Metas": [{"name": "viewport", "content": "width=device-width"},
                                  {"property": "og:url", "content": url}],
                        "Link": [{"path": "LINK@/href", "url": "/style.css", "rel": "stylesheet"}]}
                if i % 10 == 3:
                    head["Base"] = f"https://{host}/base/"
                html = {"Head": head, "Links": links}
                j = wat_json(url, 200, {"Content-Type": "text/html; charset=UTF-8",
                                        "Link": f"<https://{host}/feed>; rel=alternate"}, html)
            block = json.dumps(j, separators=(",", ":"), ensure_ascii=False).encode()
            out.write(member(record(fields, block)))


if __name__ == "__main__":
    main()
