#!/usr/bin/env python3
"""Summarises a PNG for the report screenshot test (standard library only: zlib).

usage: png_summary.py FILE.png [#rrggbb ...]
Prints one JSON object: width, height, the number of distinct colours, the fraction
of pixels that are not white, and bar_columns: the largest number, over the image's
rows, of separate runs at least 12 pixels wide of pixels in one of the given colours
(vertical bars: one run per bar on a row that crosses every bar), and bar_rows: the
same down the image's columns, of runs at least 6 pixels tall (horizontal bars: one
run per rank on a column that crosses every bar).
"""
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise SystemExit(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are handled")
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def main():
    width, height, rows = decode(sys.argv[1])
    wanted = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in sys.argv[2:]}
    colours, non_white, bar_columns = set(), 0, 0
    for row in rows:
        runs, run = 0, 0
        for pixel in row + [None]:
            if pixel is not None:
                colours.add(pixel)
                non_white += pixel != (255, 255, 255)
            if pixel in wanted:
                run += 1
                continue
            runs += run >= 12
            run = 0
        bar_columns = max(bar_columns, runs)
    bar_rows = 0
    for x in range(width):
        runs, run = 0, 0
        for y in range(height + 1):
            if y < height and rows[y][x] in wanted:
                run += 1
                continue
            runs += run >= 6
            run = 0
        bar_rows = max(bar_rows, runs)
    print(json.dumps({"width": width, "height": height, "colours": len(colours),
                      "non_white": non_white / (width * height), "bar_columns": bar_columns, "bar_rows": bar_rows}))


if __name__ == "__main__":
    main()
