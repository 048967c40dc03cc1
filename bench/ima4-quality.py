#!/usr/bin/env python3
"""IMA4 encoders side by side: cafconv's (CAFKit, through the ima4tool developer tool) against
ffmpeg's adpcm_ima_qt, default and -trellis 8.

    python3 bench/ima4-quality.py [--runs N] [--widths 4,8,16]

--widths adds rows for other search widths (IMA4Encoder.Options.searchWidth; the default is 12).

Signals (written under bench/work/ima4/, deterministic):
  music  20 s stereo 44100 Hz: the first 20 s of the bench's music corpus track01 (bench/make-corpus.py)
  sweep  10 s mono 44100 Hz logarithmic sine sweep 20 Hz - 20 kHz at -2 dBFS
  pink   5 s mono 44100 Hz pink noise (Voss-McCartney, 16 rows), peak at -3 dBFS

Every output is decoded by ffmpeg's decoder (so neither encoder grades itself) and compared with
the source over the source's frames: SNR = 10 log10(sum s^2 / sum (s - d)^2). Encode time is the
median wall time of N runs (default 3) of the whole encoding process. "frames" is what each
decoder delivers: ffmpeg ignores `pakt`, cafconv's decoder (ima4tool decode) honours it.
Needs ffmpeg and a release build (`swift build -c release --product ima4tool`, done here).
"""
import array
import importlib.util
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "bench", "work", "ima4")
TOOL = os.path.join(ROOT, ".build", "release", "ima4tool")
RATE = 44100


def load_corpus_module():
    spec = importlib.util.spec_from_file_location("make_corpus", os.path.join(ROOT, "bench", "make-corpus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def music():
    corpus = load_corpus_module()
    path = os.path.join(WORK, "music.wav")
    # track01 of the music corpus is seed 100; its first 20 s do not depend on its length.
    corpus.write_wav(path, "s16-44100", 20 * RATE, 100, {})
    with open(path, "rb") as f:
        data = f.read()
    start = data.index(b"data") + 8
    samples = array.array("h")
    samples.frombytes(data[start:])
    if sys.byteorder != "little":
        samples.byteswap()
    return samples, 2


def sweep():
    seconds, f0, f1 = 10.0, 20.0, 20000.0
    n = int(seconds * RATE)
    amplitude = 32767 * 10 ** (-2 / 20)
    k = math.log(f1 / f0)
    values = array.array("h")
    for i in range(n):
        t = i / RATE
        phase = 2 * math.pi * f0 * seconds / k * (math.exp(t / seconds * k) - 1)
        values.append(int(round(amplitude * math.sin(phase))))
    return values, 1


def pink():
    n = 5 * RATE
    state = 12345

    def unit():
        nonlocal state
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        return state / 4294967296.0 - 0.5

    rows = [unit() for _ in range(16)]
    running = sum(rows)
    raw = []
    for i in range(n):
        # Voss-McCartney: row r changes every 2^r samples (the lowest set bit of the counter).
        counter = i + 1
        r = (counter & -counter).bit_length() - 1
        if r < 16:
            running -= rows[r]
            rows[r] = unit()
            running += rows[r]
        raw.append(running + unit())
    peak = max(abs(v) for v in raw)
    scale = 32767 * 10 ** (-3 / 20) / peak
    return array.array("h", (int(round(v * scale)) for v in raw)), 1


def write_raw(path, samples):
    data = array.array("h", samples)
    if sys.byteorder != "little":
        data.byteswap()
    with open(path, "wb") as f:
        f.write(data.tobytes())


def read_raw(data):
    samples = array.array("h")
    samples.frombytes(data[: len(data) // 2 * 2])
    if sys.byteorder != "little":
        samples.byteswap()
    return samples


def timed(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ffmpeg_decode(path):
    out = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"],
        check=True, stdout=subprocess.PIPE).stdout
    return read_raw(out)


def our_decode(path):
    raw = path + ".ours.s16le"
    subprocess.run([TOOL, "decode", path, raw], check=True)
    with open(raw, "rb") as f:
        data = f.read()
    os.remove(raw)
    return read_raw(data)


def snr(source, decoded):
    signal = 0.0
    noise = 0.0
    for s, d in zip(source, decoded):
        signal += s * s
        noise += (s - d) * (s - d)
    if len(decoded) < len(source):
        return float("nan")
    return float("inf") if noise == 0 else 10 * math.log10(signal / noise)


def main():
    runs = 3
    widths = None
    args = sys.argv[1:]
    while args:
        flag = args.pop(0)
        if flag == "--runs":
            runs = int(args.pop(0))
        elif flag == "--widths":
            widths = [int(w) for w in args.pop(0).split(",")]
        else:
            sys.exit(__doc__)
    os.makedirs(WORK, exist_ok=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "ima4tool"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    encoders = [("ffmpeg", ["-c:a", "adpcm_ima_qt"]), ("ffmpeg -trellis 8", ["-c:a", "adpcm_ima_qt", "-trellis", "8"])]
    ours = [("cafconv (default)", [])]
    for width in widths or []:
        ours.append((f"cafconv width {width}", ["--width", str(width)]))
    print(f"ffmpeg: {subprocess.run(['ffmpeg', '-version'], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]}")
    print(f"runs per timing: {runs} (median); load average before: {os.getloadavg()[0]:.2f}\n")
    print(f"| signal | encoder | SNR dB (ffmpeg decodes) | encode s | frames: source / ffmpeg decodes / cafconv decodes |")
    print("| --- | --- | --- | --- | --- |")
    for name, make in [("music", music), ("sweep", sweep), ("pink", pink)]:
        samples, channels = make()
        raw = os.path.join(WORK, f"{name}.s16le")
        write_raw(raw, samples)
        frames = len(samples) // channels
        for label, flags in encoders + ours:
            out = os.path.join(WORK, f"{name}-{label.replace(' ', '_')}.caf")
            if label.startswith("ffmpeg"):
                command = ["ffmpeg", "-v", "error", "-y", "-f", "s16le", "-ar", str(RATE), "-ac", str(channels),
                           "-i", raw] + flags + [out]
            else:
                command = [TOOL, "encode"] + flags + [str(channels), str(RATE), raw, out]
            seconds = timed(command, runs)
            decoded = ffmpeg_decode(out)
            ours_decoded = our_decode(out)
            print(f"| {name} | {label} | {snr(samples, decoded):.2f} | {seconds:.3f} | "
                  f"{frames} / {len(decoded) // channels} / {len(ours_decoded) // channels} |")
            sys.stdout.flush()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
