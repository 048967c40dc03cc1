#!/usr/bin/env python3
"""Generate the sample WAV files bundled in Samples/.

Usage: python3 scripts/make-samples.py [OUTPUT_DIR]

OUTPUT_DIR defaults to Samples/ in the repository root (the parent of the
folder holding this script). Output is deterministic: no timestamps, and the
only noise source is a small seeded xorshift generator, so running the script
twice gives byte-identical files.

Standard library only. The RIFF writer below builds every chunk by hand so the
headers are exactly what the converter's tests expect (little-endian sizes,
one zero pad byte after odd-sized chunks, correct RIFF size).
"""

import math
import os
import struct
import sys

TAU = 2.0 * math.pi


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

class XorShift32:
    """Tiny deterministic PRNG (Marsaglia xorshift32)."""

    def __init__(self, seed):
        self.state = (seed & 0xFFFFFFFF) or 0x9E3779B9

    def next_u32(self):
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def uniform(self):
        """Uniform float in [-1, 1)."""
        return self.next_u32() / 2147483648.0 - 1.0


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def normalize(channels, peak):
    """Scale all channels together so the largest magnitude equals `peak`."""
    m = max(abs(s) for ch in channels for s in ch)
    g = peak / m if m > 0 else 0.0
    return [[s * g for s in ch] for ch in channels]


def interleave(channels):
    n = len(channels[0])
    assert all(len(ch) == n for ch in channels)
    for i in range(n):
        for ch in channels:
            yield ch[i]


def pcm16(channels):
    vals = [clamp(int(round(s * 32767.0)), -32768, 32767) for s in interleave(channels)]
    return struct.pack("<%dh" % len(vals), *vals)


def pcm24(channels):
    out = bytearray()
    for s in interleave(channels):
        v = clamp(int(round(s * 8388607.0)), -8388608, 8388607)
        out += struct.pack("<i", v)[:3]
    return bytes(out)


def pcm8u(channels):
    return bytes(clamp(128 + int(round(s * 127.0)), 0, 255) for s in interleave(channels))


def float32(channels):
    vals = list(interleave(channels))
    return struct.pack("<%df" % len(vals), *vals)


def chunk(ckid, payload):
    assert len(ckid) == 4
    data = ckid + struct.pack("<I", len(payload)) + payload
    if len(payload) & 1:
        data += b"\x00"  # RIFF pad byte, not counted in the chunk size
    return data


def riff_wave(chunks):
    body = b"WAVE" + b"".join(chunk(cid, payload) for cid, payload in chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def fmt_pcm(channels, rate, bits, tag=1):
    align = channels * (bits // 8)
    return struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)


def fmt_float(channels, rate):
    # 18-byte WAVEFORMATEX with cbSize = 0.
    return fmt_pcm(channels, rate, 32, tag=3) + struct.pack("<H", 0)


PCM_GUID = bytes.fromhex("0100000000001000800000aa00389b71")  # 00000001-0000-0010-8000-00aa00389b71


def fmt_extensible(channels, rate, bits, valid_bits, mask, guid=PCM_GUID):
    return (fmt_pcm(channels, rate, bits, tag=0xFFFE)
            + struct.pack("<HHI", 22, valid_bits, mask) + guid)


def info_list(entries):
    body = b"INFO"
    for key, text in entries:
        body += chunk(key, text.encode("ascii") + b"\x00")
    return body


# --------------------------------------------------------------------------
# Signals (floats, roughly in [-1, 1])
# --------------------------------------------------------------------------

def click(rate=22050, frames=3307):
    # Short "blip": sine gliding 2400 -> 1200 Hz, 1 ms attack, fast decay.
    out, phase = [], 0.0
    for i in range(frames):
        t = i / rate
        f = 1200.0 + 1200.0 * math.exp(-t / 0.015)
        phase += TAU * f / rate
        env = min(1.0, t / 0.001) * math.exp(-t / 0.025)
        out.append(env * (math.sin(phase) + 0.25 * math.sin(2.0 * phase)))
    return normalize([out], 0.7)


def chime_note(t, freq, start, decay):
    if t < start:
        return 0.0
    u = t - start
    env = min(1.0, u / 0.003) * math.exp(-u / decay)
    return env * (math.sin(TAU * freq * u) + 0.3 * math.sin(TAU * 2.0 * freq * u)
                  + 0.1 * math.sin(TAU * 3.0 * freq * u))


def confirm(rate=44100, frames=22050):
    # Two-note rising chime (E5 then B5); left favours the first note,
    # right the second, so the channels differ.
    e5, b5 = 659.255, 987.767
    left, right = [], []
    for i in range(frames):
        t = i / rate
        n1 = chime_note(t, e5, 0.0, 0.12)
        n2 = chime_note(t, b5, 0.12, 0.15)
        left.append(0.8 * n1 + 0.45 * n2)
        right.append(0.45 * n1 + 0.8 * n2)
    fade = int(0.01 * rate)
    for ch in (left, right):
        for k in range(fade):
            ch[frames - 1 - k] *= k / fade
    return normalize([left, right], 0.7)


def impact(rate=48000, frames=28801):
    # Low thud (pitch falling 140 -> 45 Hz) plus a short noise crack.
    rng = XorShift32(0x1A2B3C4D)
    out, phase, lp = [], 0.0, 0.0
    for i in range(frames):
        t = i / rate
        f = 45.0 + 95.0 * math.exp(-t / 0.05)
        phase += TAU * f / rate
        body = math.exp(-t / 0.18) * math.sin(phase)
        lp += 0.35 * (rng.uniform() - lp)
        crack = math.exp(-t / 0.012) * lp
        env = min(1.0, t / 0.0005)
        out.append(env * (body + 0.9 * crack))
    fade = int(0.02 * rate)
    for k in range(fade):
        out[frames - 1 - k] *= k / fade
    return normalize([out], 0.85)


def laser(rate=48000, frames=12000):
    # Falling "pew": band-limited square-ish sweep 2800 -> 350 Hz, right
    # channel detuned a little for width.
    chans = []
    for detune in (1.0, 1.015):
        out, phase = [], 0.0
        for i in range(frames):
            t = i / rate
            f = detune * (350.0 + 2450.0 * math.exp(-t / 0.06))
            phase += TAU * f / rate
            s = 0.0
            h = 1
            while h * f < rate * 0.45 and h <= 7:
                s += math.sin(h * phase) / h
                h += 2
            env = min(1.0, t / 0.002) * (1.0 - t / (frames / rate)) ** 1.5
            out.append(env * s)
        chans.append(out)
    return normalize(chans, 0.8)


def coin(rate=22050, frames=6615):
    # Classic two-step coin pickup: B5 then E6, soft square wave.
    out, phase = [], 0.0
    for i in range(frames):
        t = i / rate
        f = 987.767 if t < 0.07 else 1318.51
        phase += TAU * f / rate
        s = 0.0
        h = 1
        while h * f < rate * 0.45:
            s += math.sin(h * phase) / h
            h += 2
        env = min(1.0, t / 0.002)
        if t >= 0.07:
            env *= math.exp(-(t - 0.07) / 0.08)
        out.append(env * s)
    return normalize([out], 0.6)


def loop(rate=48000, frames=48000):
    # Four plucked chords (C, Am, F, G), a quarter second each; loops cleanly
    # because every chord decays and the last fades to silence.
    chords = [
        (261.626, 329.628, 391.995),
        (220.000, 261.626, 329.628),
        (174.614, 220.000, 261.626),
        (195.998, 246.942, 293.665),
    ]
    seg = frames // len(chords)
    left, right = [0.0] * frames, [0.0] * frames
    for c, notes in enumerate(chords):
        start = c * seg
        for n, f in enumerate(notes):
            pan = (0.75, 0.5, 0.25)[n]  # low note left, high note right
            for i in range(seg):
                u = i / rate
                env = min(1.0, u / 0.004) * math.exp(-u / 0.09)
                env *= min(1.0, (seg - i) / (0.01 * rate))
                s = env * (math.sin(TAU * f * u) + 0.35 * math.sin(TAU * 2.0 * f * u))
                left[start + i] += s * pan
                right[start + i] += s * (1.0 - pan)
        bass = notes[0] / 2.0
        for i in range(seg):
            u = i / rate
            env = min(1.0, u / 0.006) * math.exp(-u / 0.15)
            env *= min(1.0, (seg - i) / (0.01 * rate))
            s = 0.6 * env * math.sin(TAU * bass * u)
            left[start + i] += s
            right[start + i] += s
    return normalize([left, right], 0.7)


def wind(rate=44100, frames=88200):
    # Low-passed noise whose cutoff and level drift slowly (gusts).
    rng = XorShift32(0xC0FFEE)
    out, a, b = [], 0.0, 0.0
    for i in range(frames):
        t = i / rate
        gust = 0.5 + 0.3 * math.sin(TAU * 0.7 * t) + 0.2 * math.sin(TAU * 1.9 * t + 1.0)
        k = 0.01 + 0.05 * gust
        a += k * (rng.uniform() - a)
        b += k * (a - b)
        env = min(1.0, t / 0.3) * min(1.0, (frames - 1 - i) / (0.3 * rate))
        out.append(env * (0.4 + 0.6 * gust) * b)
    return out


def wind_pcm16(samples):
    # Scale positive and negative halves separately so that the largest
    # positive sample lands exactly on 32767 and the most negative exactly on
    # -32768 (full scale both ways, nothing beyond it).
    pos = max(samples)
    neg = -min(samples)
    vals = []
    for s in samples:
        v = s * 32767.0 / pos if s >= 0 else s * 32768.0 / neg
        vals.append(clamp(int(round(v)), -32768, 32767))
    assert 32767 in vals and -32768 in vals
    return struct.pack("<%dh" % len(vals), *vals)


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------

def build_all():
    files = {}

    files["ui/click-mono-16bit-22050.wav"] = riff_wave([
        (b"fmt ", fmt_pcm(1, 22050, 16)),
        (b"data", pcm16(click())),
    ])

    files["ui/confirm-stereo-16bit-44100.wav"] = riff_wave([
        (b"fmt ", fmt_pcm(2, 44100, 16)),
        (b"data", pcm16(confirm())),
    ])

    # 28801 frames x 3 bytes = odd data size -> pad byte after the data chunk.
    files["sfx/impact-mono-24bit-48000.wav"] = riff_wave([
        (b"fmt ", fmt_pcm(1, 48000, 24)),
        (b"data", pcm24(impact())),
    ])

    las = laser()
    files["sfx/laser-stereo-float32-48000.wav"] = riff_wave([
        (b"fmt ", fmt_float(2, 48000)),
        (b"fact", struct.pack("<I", len(las[0]))),
        (b"data", float32(las)),
    ])

    # 6615 frames x 1 byte = odd data size -> pad byte.
    files["retro/coin-mono-8bit-22050.wav"] = riff_wave([
        (b"fmt ", fmt_pcm(1, 22050, 8)),
        (b"data", pcm8u(coin())),
    ])

    files["music/loop-stereo-16bit-48000.wav"] = riff_wave([
        (b"fmt ", fmt_extensible(2, 48000, 16, 16, 0x3)),
        (b"LIST", info_list([
            (b"INAM", "Chord loop"),
            (b"ISFT", "cafconv make-samples.py"),
        ])),
        (b"data", pcm16(loop())),
    ])

    files["ambience/wind-mono-16bit-44100.wav"] = riff_wave([
        (b"fmt ", fmt_pcm(1, 44100, 16)),
        (b"data", wind_pcm16(wind())),
    ])

    return files


def main(argv):
    if len(argv) > 2:
        sys.stderr.write("usage: make-samples.py [OUTPUT_DIR]\n")
        return 2
    if len(argv) == 2:
        outdir = argv[1]
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        outdir = os.path.join(root, "Samples")

    total = 0
    for rel, data in build_all().items():
        assert len(data) < 200 * 1024, rel
        path = os.path.join(outdir, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        total += len(data)
        print("%8d  %s" % (len(data), rel))
    assert total < 700 * 1024
    print("%8d  total" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
