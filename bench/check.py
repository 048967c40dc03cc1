#!/usr/bin/env python3
"""Check what each tool wrote during the benchmark (Python standard library only).

    python3 bench/check.py CORPUS_ROOT OUT_ROOT CORPUS...

For a sample of each corpus (every 10th sfx file, 3 music files, the huge file) and for every tool
folder under OUT_ROOT/CORPUS (except the `cp` copy), parses the CAF file itself: the 'desc' chunk
must say little-endian (bit 1 of the format flags; not asked of 8-bit samples) with the source's
bits, float-ness, channels and rate, and the 'data' audio must equal the WAV's samples exactly
(8-bit unsigned WAV samples are compared as signed, big-endian output after swapping back).
Prints one line per tool and corpus and writes OUT_ROOT/check.tsv; exits 1 if anything is wrong.
"""

import os
import struct
import sys

BLOCK = 48 << 20  # bytes compared at a time (a multiple of every frame size used)

# Output folder (see bench/run.sh) -> the tool's name in the report.
TOOLS = {
    "cafconv": "cafconv -j 2",
    "cafconv-j1": "cafconv -j 1",
    "sndfile-loop": "sndfile-convert loop",
    "sndfile-xargs": "sndfile-convert xargs -P 2",
    "ffmpeg-loop": "ffmpeg loop",
    "ffmpeg-xargs": "ffmpeg xargs -P 2",
}


def read_wav(path):
    """(format dict, data offset, data length) of a RIFF/WAVE file."""
    with open(path, "rb") as f:
        riff = f.read(12)
        if riff[:4] != b"RIFF" or riff[8:12] != b"WAVE":
            raise ValueError("not RIFF/WAVE")
        fmt = None
        while True:
            head = f.read(8)
            if len(head) < 8:
                raise ValueError("no data chunk")
            kind, size = head[:4], struct.unpack("<I", head[4:])[0]
            if kind == b"fmt ":
                body = f.read(size + (size & 1))
                tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
                fmt = {"float": tag == 3, "channels": channels, "rate": rate, "bits": bits}
            elif kind == b"data":
                return fmt, f.tell(), min(size, os.path.getsize(path) - f.tell())
            else:
                f.seek(size + (size & 1), 1)


def read_caf(path):
    """(desc dict, audio offset, audio length) of a CAF file, parsed from its chunk table."""
    length = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if head[:4] != b"caff":
            raise ValueError("not CAF")
        desc = None
        offset = 8
        while offset + 12 <= length:
            f.seek(offset)
            kind = f.read(4)
            size = struct.unpack(">q", f.read(8))[0]
            if size == -1:
                size = length - offset - 12
            if kind == b"desc":
                rate, fid, flags, bpp, fpp, ch, bits = struct.unpack(">d4sIIIII", f.read(32))
                desc = {"rate": rate, "format": fid, "flags": flags, "channels": ch, "bits": bits}
            elif kind == b"data":
                audio = min(size - 4, length - offset - 16)  # after the 4-byte edit count
                return desc, offset + 16, audio
            offset += 12 + size
        raise ValueError("no data chunk")


def swap(block, width):
    """Reverse the byte order of each `width`-byte sample."""
    if width == 1:
        return block
    out = bytearray(len(block))
    for i in range(width):
        out[i::width] = block[width - 1 - i :: width]
    return bytes(out)


SIGN_FLIP = bytes(b ^ 0x80 for b in range(256))


def check_file(source, output):
    """A list of problems (empty when the output is right)."""
    fmt, src_at, src_len = read_wav(source)
    desc, out_at, out_len = read_caf(output)
    if desc is None:
        return ["no 'desc' chunk"]
    problems = []
    little = bool(desc["flags"] & 2)
    endian = ["'desc' says big-endian"] if fmt["bits"] > 8 and not little else []
    if desc["format"] != b"lpcm":
        return problems + [f"format {desc['format']!r}, not lpcm"]
    if bool(desc["flags"] & 1) != fmt["float"] or desc["bits"] != fmt["bits"]:
        problems.append(f"{desc['bits']}-bit float={bool(desc['flags'] & 1)}, source {fmt['bits']}-bit float={fmt['float']}")
    if desc["channels"] != fmt["channels"] or desc["rate"] != fmt["rate"]:
        problems.append(f"{desc['channels']} ch {desc['rate']} Hz, source {fmt['channels']} ch {fmt['rate']} Hz")
    if problems:
        return endian + problems
    frame = fmt["channels"] * fmt["bits"] // 8
    src_len -= src_len % frame
    if out_len != src_len:
        return endian + [f"{out_len} audio bytes, source has {src_len}"]
    width = fmt["bits"] // 8
    with open(source, "rb") as s, open(output, "rb") as o:
        s.seek(src_at)
        o.seek(out_at)
        done = 0
        while done < src_len:
            n = min(BLOCK, src_len - done)
            a = s.read(n)
            b = o.read(n)
            if width == 1:
                a = a.translate(SIGN_FLIP)
            elif not little:
                b = swap(b, width)
            if a != b:
                at = next(i for i in range(len(a)) if a[i] != b[i])
                return endian + [f"samples differ at audio byte {done + at}"]
            done += n
    return endian + (["samples equal after swapping"] if endian else [])


def sample(entries, corpus):
    if corpus == "sfx":
        return entries[::10]
    if corpus == "music":
        return [entries[0], entries[5], entries[-1]]
    return entries


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    corpus_root, out_root, corpora = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows = []
    failed = False
    for corpus in corpora:
        with open(os.path.join(corpus_root, corpus + ".list")) as f:
            entries = [line.split("\t")[0] for line in f if line.strip()]
        picked = sample(entries, corpus)
        for folder, name in TOOLS.items():
            root = os.path.join(out_root, corpus, folder)
            if not os.path.isdir(root):
                continue
            good = 0
            notes = []
            for rel in picked:
                output = os.path.join(root, os.path.splitext(rel)[0] + ".caf")
                try:
                    problems = check_file(os.path.join(corpus_root, corpus, rel), output)
                except (OSError, ValueError, struct.error) as error:
                    problems = [str(error)]
                if problems:
                    notes.append(f"{rel}: {'; '.join(problems)}")
                else:
                    good += 1
            failed |= good != len(picked)
            print(f"{corpus:6} {name:27} {good}/{len(picked)} right" + ("" if not notes else f"  ({len(notes)} wrong)"))
            for note in notes[:3]:
                print(f"       {note}")
            rows.append((corpus, name, good, len(picked), notes[0] if notes else ""))
    with open(os.path.join(out_root, "check.tsv"), "w") as f:
        for row in rows:
            f.write("\t".join(str(x) for x in row) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
