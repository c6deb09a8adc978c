#!/usr/bin/env python3
"""Writes the PNG decoder's fixtures: one small picture in every colour type and bit depth PNG allows, each row with a
different filter (0-4, cycling), plain and Adam7-interlaced, palette and tRNS variants, plus `<name>.rgba`: the pixels
the decoder must return (8-bit RGBA, 16-bit samples keep their high byte, low depths scaled to 0-255).
Independent of the Swift code: its own deflate (zlib), filters and interlacing. Run: python3 make_fixtures.py"""
import os, struct, zlib

W, H = 13, 7  # odd sizes exercise partial bytes and every Adam7 pass

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)

def filter_rows(rows, bpp):
    out, prev = b"", bytes(len(rows[0])) if rows else b""
    for y, row in enumerate(rows):
        f = y % 5
        line = bytearray()
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][f]
            line.append((x - pred) & 0xFF)
        out += bytes([f]) + bytes(line)
        prev = row
    return out

def pack_samples(samples, depth):
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, acc, n = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        n += depth
        if n == 8:
            out.append(acc); acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)

def png(name, ctype, depth, pixels, interlace=False, plte=None, trns=None):
    """pixels[y][x] = tuple of samples at full depth"""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bpp = max(1, channels * depth // 8)
    if interlace:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        raw = b""
        for x0, y0, dx, dy in passes:
            rows = []
            for y in range(y0, H, dy):
                xs = list(range(x0, W, dx))
                if not xs:
                    continue
                rows.append(pack_samples([s for x in xs for s in pixels[y][x]], depth))
            if rows:
                raw += filter_rows(rows, bpp)
    else:
        raw = filter_rows([pack_samples([s for p in row for s in p], depth) for row in pixels], bpp)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, ctype, 0, 0, 1 if interlace else 0))
    data += chunk(b"tEXt", b"Comment\x00fixture")
    if plte:
        data += chunk(b"PLTE", b"".join(bytes(c) for c in plte))
    if trns is not None:
        data += chunk(b"tRNS", trns)
    z = zlib.compress(raw, 9)
    half = len(z) // 2  # two IDAT chunks: the decoder must join them
    data += chunk(b"IDAT", z[:half]) + chunk(b"IDAT", z[half:]) + chunk(b"IEND", b"")
    open(name + ".png", "wb").write(data)

def eight(v, depth):
    return v >> 8 if depth == 16 else (v if depth == 8 else v * 255 // ((1 << depth) - 1))

def write_rgba(name, rows):
    open(name + ".rgba", "wb").write(bytes(b for row in rows for px in row for b in px))

def value(x, y, k, depth):
    return (x * 37 + y * 91 + k * 53 + x * y * 7) % (1 << depth)

os.chdir(os.path.dirname(os.path.abspath(__file__)))
for interlace in (False, True):
    tag = "-adam7" if interlace else ""
    for depth in (1, 2, 4, 8, 16):
        px = [[(value(x, y, 0, depth),) for x in range(W)] for y in range(H)]
        png(f"gray{depth}{tag}", 0, depth, px, interlace)
        write_rgba(f"gray{depth}{tag}", [[(eight(p[0], depth),) * 3 + (255,) for p in row] for row in px])
    for depth in (8, 16):
        px = [[tuple(value(x, y, k, depth) for k in range(3)) for x in range(W)] for y in range(H)]
        png(f"rgb{depth}{tag}", 2, depth, px, interlace)
        write_rgba(f"rgb{depth}{tag}", [[tuple(eight(s, depth) for s in p) + (255,) for p in row] for row in px])
        px = [[tuple(value(x, y, k, depth) for k in range(2)) for x in range(W)] for y in range(H)]
        png(f"grayalpha{depth}{tag}", 4, depth, px, interlace)
        write_rgba(f"grayalpha{depth}{tag}", [[(eight(p[0], depth),) * 3 + (eight(p[1], depth),) for p in row] for row in px])
        px = [[tuple(value(x, y, k, depth) for k in range(4)) for x in range(W)] for y in range(H)]
        png(f"rgba{depth}{tag}", 6, depth, px, interlace)
        write_rgba(f"rgba{depth}{tag}", [[tuple(eight(s, depth) for s in p) for p in row] for row in px])
    for depth in (1, 2, 4, 8):
        n = 1 << depth
        plte = [((i * 73) % 256, (i * 151) % 256, (i * 29) % 256) for i in range(min(n, 256))]
        alphas = bytes((i * 97) % 256 for i in range(min(n, 256)))
        px = [[(value(x, y, 0, depth),) for x in range(W)] for y in range(H)]
        png(f"palette{depth}{tag}", 3, depth, px, interlace, plte=plte, trns=alphas)
        write_rgba(f"palette{depth}{tag}", [[plte[p[0]] + (alphas[p[0]],) for p in row] for row in px])
# tRNS on RGB: one colour is transparent.
px = [[((x * 20) % 256, (y * 30) % 256, 7) for x in range(W)] for y in range(H)]
png("rgb8-trns", 2, 8, px, trns=struct.pack(">HHH", 40, 60, 7))
write_rgba("rgb8-trns", [[p + ((0,) if p == (40, 60, 7) else (255,)) for p in row] for row in px])
