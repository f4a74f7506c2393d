"""The text and page count of a PDF that Chromium (Skia) printed (test helper only).

No PDF library is a dependency of the kit, and the machines have no ``pdftotext``; Skia's
PDFs are simple enough to read here: Flate content streams, Type0 fonts with Identity-H
encoding and a ToUnicode CMap each, text shown by ``<hex> Tj`` and ``[...] TJ``.
"""

from __future__ import annotations

import re
import zlib

_OBJ = re.compile(rb"(\d+) 0 obj\s*(<<.*?>>)\s*(stream\r?\n|endobj)", re.S)
_REF = re.compile(rb"/(\w+) (\d+) 0 R")
_SHOW = re.compile(rb"/(\w+) [\d.]+ Tf|\[((?:[^\]\\]|\\.)*)\]\s*TJ|<([0-9A-Fa-f]*)>\s*Tj|(BT|ET)")
_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")
_BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")
_BFRANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")


def _objects(data: bytes) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """Each object's dictionary, and each stream's decoded bytes, by object number."""
    heads: dict[int, bytes] = {}
    streams: dict[int, bytes] = {}
    for m in _OBJ.finditer(data):
        number, head = int(m[1]), m[2]
        heads[number] = head
        if m[3].startswith(b"stream"):
            length = int(re.search(rb"/Length (\d+)", head)[1])  # type: ignore[index]
            raw = data[m.end() : m.end() + length]
            streams[number] = zlib.decompress(raw) if b"FlateDecode" in head else raw
    return heads, streams


def _cmap(text: bytes) -> dict[int, str]:
    table: dict[int, str] = {}
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in _BFRANGE.findall(block):
            for i, code in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                table[code] = chr(int(dst, 16) + i)
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in _BFCHAR.findall(block):
            table[int(src, 16)] = bytes.fromhex(dst.decode()).decode("utf-16-be")
    return table


def page_count(data: bytes) -> int:
    """The ``/Count`` of the page tree's root (the pages a reader shows)."""
    counts = [int(n) for n in re.findall(rb"/Type /Pages\s*/Count (\d+)", data)]
    return max(counts) if counts else len(re.findall(rb"/Type /Page\b(?!s)", data))


def page_texts(data: bytes) -> list[str]:
    """The text of each page, in page-tree order (words joined by spaces)."""
    heads, streams = _objects(data)
    kids = re.search(rb"/Type /Pages\s*/Count \d+\s*/Kids \[([^\]]*)\]", data)
    order = [int(n) for n in re.findall(rb"(\d+) 0 R", kids[1])] if kids else []
    pages = []
    for number in order:
        head = heads[number]
        fonts_block = re.search(rb"/Font <<(.*?)>>", head, re.S)
        fonts = {}
        for name, ref in _REF.findall(fonts_block[1] if fonts_block else b""):
            to_unicode = re.search(rb"/ToUnicode (\d+) 0 R", heads[int(ref)])
            fonts[name] = _cmap(streams[int(to_unicode[1])]) if to_unicode else {}
        content = int(re.search(rb"/Contents (\d+) 0 R", head)[1])  # type: ignore[index]
        pages.append(_show(streams[content], fonts))
    return pages


def _show(content: bytes, fonts: dict[bytes, dict[int, str]]) -> str:
    out: list[str] = []
    table: dict[int, str] = {}
    for m in _SHOW.finditer(content):
        if m[1]:
            table = fonts.get(m[1], {})
        elif m[4]:
            out.append(" ")
        else:
            hexes = _HEX.findall(m[2]) if m[2] is not None else [m[3]]
            for h in hexes:
                codes = [int(h[i : i + 4], 16) for i in range(0, len(h), 4)]
                out.append("".join(table.get(c, "") for c in codes))
    return re.sub(r"\s+", " ", "".join(out))
