#!/usr/bin/env python3
"""Generate the benchmark corpora deterministically (Python standard library only).

    python3 bench/make-corpus.py OUT [sfx music huge tiny]

Writes OUT/sfx (300 short WAVs in a 3-level tree, about 45 MB), OUT/music (10 files of 3-5
minutes, 16-bit stereo 44100, about 400 MB), OUT/huge (one 16-bit stereo 48000 WAV whose data
chunk is over 2^31 bytes, about 2 GiB; skipped when CAFCONV_BENCH_SKIP_HUGE=1) and OUT/tiny (one
50 ms file for start-up cost). Each corpus also gets OUT/NAME.list: one line per file,
`relative-path<TAB>bits<TAB>float(0/1)`. A corpus whose stamp file matches is not written again.

The content is cheap on purpose: a few blocks of a sine plus noise from a fixed LCG, repeated.
Same arguments, same bytes.
"""

import array
import math
import os
import struct
import sys

VERSION = "cafconv-bench-corpus 1"
BLOCK_FRAMES = 8192


class LCG:
    """A 32-bit linear congruential generator: the same numbers on every machine."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state

    def unit(self):
        return self.next() / 4294967296.0


# (name, bits, float, channels, rate)
FORMATS = {
    "m16-22050": (16, False, 1, 22050),
    "m16-44100": (16, False, 1, 44100),
    "s16-44100": (16, False, 2, 44100),
    "s24-48000": (24, False, 2, 48000),
    "f32-48000": (32, True, 2, 48000),
    "m8-22050": (8, False, 1, 22050),
}
# How many of the 300 sfx files get each format (a few 8-bit ones).
SFX_MIX = [("m16-22050", 60), ("m16-44100", 60), ("s16-44100", 80), ("s24-48000", 45), ("f32-48000", 45), ("m8-22050", 10)]
SFX_TREE = [
    ("ui", ["buttons", "menus", "alerts"]),
    ("weapons", ["guns", "blades", "magic"]),
    ("ambience", ["forest", "city", "cave"]),
    ("voice", ["grunts", "shouts", "breath"]),
    ("impacts", ["wood", "metal", "flesh"]),
]
SFX_LEAVES = ["soft", "hard"]


def wav_header(bits, is_float, channels, rate, data_bytes):
    """A canonical RIFF/WAVE header (fmt, plus fact for float) ending with the data chunk header."""
    block = channels * bits // 8
    if is_float:
        fmt = struct.pack("<HHIIHHH", 3, channels, rate, rate * block, block, bits, 0)
        extra = b"fact" + struct.pack("<II", 4, data_bytes // block)
    else:
        fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * block, block, bits)
        extra = b""
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + b"data" + struct.pack("<I", data_bytes)
    riff_size = len(body) + data_bytes + (data_bytes & 1)
    if riff_size > 0xFFFFFFFF:
        raise ValueError("too big for RIFF")
    return b"RIFF" + struct.pack("<I", riff_size) + body


def signal_block(bits, is_float, channels, seed):
    """BLOCK_FRAMES frames of a quiet sine plus noise, as little-endian sample bytes."""
    rng = LCG(seed)
    step = 2.0 * math.pi * (110.0 + (seed % 40) * 23.0) / 44100.0
    values = []
    for frame in range(BLOCK_FRAMES):
        base = 0.5 * math.sin(step * frame)
        for _ in range(channels):
            values.append(base + 0.25 * (rng.unit() - 0.5))
    if is_float:
        return array.array("f", values).tobytes() if sys.byteorder == "little" else _swapped("f", values)
    if bits == 8:
        return bytes(int(128 + v * 127) & 0xFF for v in values)
    if bits == 16:
        return array.array("h", (int(v * 32767) for v in values)).tobytes() if sys.byteorder == "little" else _swapped(
            "h", [int(v * 32767) for v in values])
    # 24-bit: three little-endian bytes per sample, taken from a 32-bit value.
    out = bytearray()
    for v in values:
        out += (int(v * 8388607) & 0xFFFFFF).to_bytes(3, "little")
    return bytes(out)


def _swapped(code, values):
    a = array.array(code, values)
    a.byteswap()
    return a.tobytes()


def write_wav(path, fmt_name, frames, seed, blocks):
    bits, is_float, channels, rate = FORMATS[fmt_name]
    frame_bytes = channels * bits // 8
    data_bytes = frames * frame_bytes
    key = (fmt_name, seed % 4)
    if key not in blocks:
        blocks[key] = signal_block(bits, is_float, channels, seed % 4 * 7 + 3)
    block = blocks[key]
    # Start at a file-dependent offset in the block so files differ; write in big pieces.
    shift = (seed * 611) % BLOCK_FRAMES * frame_bytes
    loop = block[shift:] + block[:shift]
    big = loop * max(1, (4 << 20) // len(loop))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(wav_header(bits, is_float, channels, rate, data_bytes))
        left = data_bytes
        while left > 0:
            piece = big if left >= len(big) else big[:left]
            f.write(piece)
            left -= len(piece)
        if data_bytes & 1:
            f.write(b"\0")
    return bits, is_float


def stamp_ok(root, name):
    try:
        with open(os.path.join(root, name + ".stamp")) as f:
            return f.read().strip() == VERSION
    except OSError:
        return False


def finish(root, name, entries):
    with open(os.path.join(root, name + ".list"), "w") as f:
        for rel, bits, is_float in entries:
            f.write(f"{rel}\t{bits}\t{int(is_float)}\n")
    with open(os.path.join(root, name + ".stamp"), "w") as f:
        f.write(VERSION + "\n")


def make_sfx(root, blocks):
    rng = LCG(2026)
    formats = [name for name, count in SFX_MIX for _ in range(count)]
    # A deterministic shuffle so formats are spread over the tree.
    for i in range(len(formats) - 1, 0, -1):
        j = rng.next() % (i + 1)
        formats[i], formats[j] = formats[j], formats[i]
    leaves = [f"{a}/{b}/{c}" for a, subs in SFX_TREE for b in subs for c in SFX_LEAVES]
    entries = []
    for index, fmt_name in enumerate(formats):
        u = rng.unit()
        seconds = 0.2 + 2.8 * u * u * u
        rate = FORMATS[fmt_name][3]
        rel = f"{leaves[index % len(leaves)]}/sfx{index:03d}-{fmt_name}.wav"
        bits, is_float = write_wav(os.path.join(root, "sfx", rel), fmt_name, int(seconds * rate), index, blocks)
        entries.append((rel, bits, is_float))
    finish(root, "sfx", entries)


def make_music(root, blocks):
    entries = []
    for index in range(10):
        seconds = 180 + 10 * index
        rel = f"album{index // 5 + 1}/track{index + 1:02d}.wav"
        bits, is_float = write_wav(os.path.join(root, "music", rel), "s16-44100", seconds * 44100, 100 + index, blocks)
        entries.append((rel, bits, is_float))
    finish(root, "music", entries)


def make_huge(root, blocks):
    FORMATS["s16-48000"] = (16, False, 2, 48000)
    frames = (2**31 + (64 << 20)) // 4  # data chunk 2 GiB + 64 MiB: over 2^31, under 2^32
    rel = "huge-stereo-16bit-48000.wav"
    bits, is_float = write_wav(os.path.join(root, "huge", rel), "s16-48000", frames, 999, blocks)
    finish(root, "huge", [(rel, bits, is_float)])


def make_tiny(root, blocks):
    rel = "tiny-mono-16bit-44100.wav"
    bits, is_float = write_wav(os.path.join(root, "tiny", rel), "m16-44100", 2205, 7, blocks)
    finish(root, "tiny", [(rel, bits, is_float)])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    wanted = sys.argv[2:] or ["sfx", "music", "huge", "tiny"]
    if os.environ.get("CAFCONV_BENCH_SKIP_HUGE") == "1" and "huge" in wanted:
        wanted.remove("huge")
    makers = {"sfx": make_sfx, "music": make_music, "huge": make_huge, "tiny": make_tiny}
    os.makedirs(root, exist_ok=True)
    blocks = {}
    for name in wanted:
        if name not in makers:
            sys.exit(f"make-corpus: unknown corpus {name!r}")
        if stamp_ok(root, name):
            print(f"make-corpus: {name} is up to date", file=sys.stderr)
            continue
        target = os.path.join(root, name)
        if os.path.isdir(target):
            for dirpath, _, files in os.walk(target):
                for f in files:
                    os.remove(os.path.join(dirpath, f))
        makers[name](root, blocks)
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(target) for f in fs)
        print(f"make-corpus: {name}: {total / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
