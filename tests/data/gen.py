#!/usr/bin/env python3
"""Regenerates the input_* test files of this directory (see README.md)."""
import gzip, subprocess, os
os.chdir(os.path.dirname(os.path.abspath(__file__)))

sjis = [
    "http://例え.テスト/パス?q=検索",
    "http://example.jp/日本語/ファイル名.html",
    "https://ja.wikipedia.org/wiki/東京都?action=表示#概要",
    "http://example.com/ascii/only",
    "/相対/パス/ソフト",
]
cp1251 = [
    "http://пример.испытание/путь?q=поиск",
    "https://ru.wikipedia.org/wiki/Москва",
    "http://example.com/Ёлка/№5?x=«цитата»",
    "http://example.com/ascii/only",
]
plain = [
    "http://example.com/",
    "HTTP://Example.COM:80/a/./b",
    "https://example.org/path?query=1#frag",
    "http://münchen.de/",
    "  http://example.com/with spaces\t",
    "https://en.wikipedia.org/wiki/Gr\\%C3\\%B6bner_basis",
]

def write(name, lines, enc):
    with open(name, "wb") as f:
        f.write("".join(l + "\n" for l in lines).encode(enc))

write("input_sjis.txt", sjis, "shift_jis")
write("input_sjis.utf8.txt", sjis, "utf-8")
write("input_cp1251.txt", cp1251, "cp1251")
write("input_cp1251.utf8.txt", cp1251, "utf-8")
with open("input_utf16le_bom.txt", "wb") as f:
    f.write(b"\xff\xfe" + "".join(l + "\n" for l in sjis).encode("utf-16-le"))
write("input_plain.txt", plain, "utf-8")
data = open("input_plain.txt", "rb").read()
half = len(data) // 2
cut = data.index(b"\n", half) + 1
# Two gzip members, to exercise multi-member decoding; mtime=0 for reproducibility.
with open("input_plain.txt.gz", "wb") as f:
    f.write(gzip.compress(data[:cut], mtime=0) + gzip.compress(data[cut:], mtime=0))
subprocess.run(["zstd", "-q", "-f", "-19", "input_plain.txt", "-o", "input_plain.txt.zst"], check=True)
