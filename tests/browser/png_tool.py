#!/usr/bin/env python3
"""PNG checks and crops with the standard library only (zlib), for the browser test and docs/img
screenshot: no Pillow on a bare CI machine.

  png_tool.py stats FILE                      width, height, distinct colours, share of non-white pixels
  png_tool.py crop FILE OUT TOP HEIGHT [STEP]  rows TOP..TOP+HEIGHT, every STEP-th pixel (a cheap downscale)

Reads 8-bit RGB or RGBA, non-interlaced (what Chromium writes); anything else exits 2.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        print(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})", file=sys.stderr)
        sys.exit(2)
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # the five PNG filters (RFC 2083, 6.2-6.6)
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def write_png(path, width, height, bpp, rows):
    # No filter: on screenshots (flat areas, sharp text) it compressed better than libpng's
    # smallest-sum choice (1280x1920 of a report: 307 kB against 400 kB).
    raw = b"".join(b"\x00" + r for r in rows)
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if bpp == 4 else 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main(argv):
    if len(argv) >= 2 and argv[0] == "stats":
        width, height, bpp, rows = read_png(argv[1])
        colours, inked = set(), 0
        for r in rows:
            for x in range(0, len(r), bpp):
                px = r[x:x + 3]
                colours.add(px)
                inked += px != b"\xff\xff\xff"
        print(f"{width} {height} {len(colours)} {inked / (width * height):.4f}")
    elif len(argv) >= 5 and argv[0] == "crop":
        width, height, bpp, rows = read_png(argv[1])
        top, count = int(argv[3]), int(argv[4])
        step = int(argv[5]) if len(argv) > 5 else 1
        picked = [bytes(b"".join(r[x * bpp:(x + 1) * bpp] for x in range(0, width, step))) for r in rows[top:top + count:step]]
        write_png(argv[2], (width + step - 1) // step, len(picked), bpp, picked)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
