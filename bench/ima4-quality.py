#!/usr/bin/env python3
"""IMA4 encoders side by side: `cafconv convert -d ima4` (CAFKit's encoder, the shipped tool with
its proof, one job) against ffmpeg's adpcm_ima_qt, default and -trellis 8.

    python3 bench/ima4-quality.py [--runs N] [--widths 4,8,16] [--cafconv BIN] [--sfx DIR]

--widths adds rows for other search widths (IMA4Encoder.Options.searchWidth; the default is 12),
encoded by the ima4tool developer tool. --cafconv names the cafconv binary (default: a release
build made here). --sfx names the bench's sfx corpus (default: bench/work/corpus/sfx, made by
bench/make-corpus.py when missing).

Signals (written under bench/work/ima4/, deterministic):
  music  20 s stereo 44100 Hz: the first 20 s of the bench's music corpus track01 (bench/make-corpus.py)
  sweep  10 s mono 44100 Hz logarithmic sine sweep 20 Hz - 20 kHz at -2 dBFS
  pink   5 s mono 44100 Hz pink noise (Voss-McCartney, 16 rows), peak at -3 dBFS
  sfx    the whole sfx corpus of the bench (300 files, 8/16-bit, float, mono and stereo, 22050-
         48000 Hz): each tool converts every file (ffmpeg one process per file); SNR over all
         files together against ffmpeg's 16-bit decoding of each source, and the lowest file's

Every output is decoded by ffmpeg's decoder (so neither encoder grades itself) and compared with
the source over the source's frames: SNR = 10 log10(sum s^2 / sum (s - d)^2). Encode time is the
median wall time of N runs (default 3; 1 for sfx) of the whole encoding process, WAV in, CAF out,
with its CPU time (user + system) beside it: on a shared machine the CPU time is the steadier
measure of the work done.
"frames" is what each decoder delivers (for sfx: files whose decoded length is exact): ffmpeg
ignores `pakt`, cafconv's decoder (ima4tool decode) honours it. Needs ffmpeg and release builds
(`swift build -c release --product ima4tool` and `--product cafconv`, done here).
"""
import array
import importlib.util
import math
import os
import resource
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


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, runs):
    """Median wall time and median CPU time (user + system) of `runs` runs of `command`."""
    times = []
    cpus = []
    for _ in range(runs):
        cpu = children_cpu()
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        cpus.append(children_cpu() - cpu)
    return statistics.median(times), statistics.median(cpus)


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


def energies(source, decoded):
    """(sum s^2, sum (s - d)^2) over the source's samples."""
    try:
        import numpy
        a = numpy.frombuffer(source.tobytes(), dtype=numpy.int16).astype(numpy.float64)
        b = numpy.frombuffer(decoded.tobytes(), dtype=numpy.int16)[: len(a)].astype(numpy.float64)
        return float(numpy.dot(a, a)), float(numpy.dot(a - b, a - b))
    except ImportError:
        signal = 0.0
        noise = 0.0
        for s, d in zip(source, decoded):
            signal += s * s
            noise += (s - d) * (s - d)
        return signal, noise


def ratio_db(signal, noise):
    return float("inf") if noise == 0 else 10 * math.log10(signal / noise)


def snr(source, decoded):
    if len(decoded) < len(source):
        return float("nan")
    return ratio_db(*energies(source, decoded))


def write_wav(path, samples, channels):
    data = array.array("h", samples)
    if sys.byteorder != "little":
        data.byteswap()
    payload = data.tobytes()
    header = b"RIFF" + (36 + len(payload)).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
    header += (1).to_bytes(2, "little") + channels.to_bytes(2, "little") + RATE.to_bytes(4, "little")
    header += (RATE * 2 * channels).to_bytes(4, "little") + (2 * channels).to_bytes(2, "little")
    header += (16).to_bytes(2, "little") + b"data" + len(payload).to_bytes(4, "little")
    with open(path, "wb") as f:
        f.write(header + payload)


def cafconv_command(cafconv, source, out):
    return [cafconv, "convert", "-d", "ima4", "-j", "1", "--force", "-q", source, "-o", out]


def sfx_rows(sfx, cafconv):
    """The whole sfx corpus through each tool: one timed run, SNR over every file."""
    files = sorted(os.path.join(folder, name) for folder, _, names in os.walk(sfx) for name in names
                   if name.endswith(".wav"))
    references = {}
    for path in files:
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=channels", "-of", "csv=p=0", path],
                               check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        references[path] = (ffmpeg_decode(path), int(probe.split(",")[0]))
    rows = []
    tools = [("ffmpeg", ["-c:a", "adpcm_ima_qt"]), ("ffmpeg -trellis 8", ["-c:a", "adpcm_ima_qt", "-trellis", "8"]),
             ("cafconv convert -d ima4", None)]
    for label, flags in tools:
        out = os.path.join(WORK, "sfx-" + label.split()[0] + ("-trellis" if "trellis" in label else ""))
        subprocess.run(["rm", "-rf", out], check=True)
        os.makedirs(out)
        outputs = {path: os.path.join(out, os.path.relpath(path, sfx)[:-4] + ".caf") for path in files}
        cpu = children_cpu()
        start = time.perf_counter()
        if flags is None:
            subprocess.run(cafconv_command(cafconv, sfx, out), check=True, stdout=subprocess.DEVNULL)
        else:
            for path in files:
                os.makedirs(os.path.dirname(outputs[path]), exist_ok=True)
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path] + flags + [outputs[path]], check=True)
        seconds = time.perf_counter() - start
        cpu = children_cpu() - cpu
        signal = noise = 0.0
        lowest = float("inf")
        exact_ffmpeg = exact_ours = 0
        for path in files:
            reference, channels = references[path]
            decoded = ffmpeg_decode(outputs[path])
            ours = our_decode(outputs[path])
            exact_ffmpeg += len(decoded) == len(reference)
            exact_ours += len(ours) == len(reference)
            s, n = energies(reference, decoded)
            signal += s
            noise += n
            lowest = min(lowest, ratio_db(s, n))
        rows.append((label, ratio_db(signal, noise), lowest, seconds, cpu, exact_ffmpeg, exact_ours, len(files)))
    return rows


def main():
    runs = 3
    widths = None
    cafconv = None
    sfx = os.path.join(ROOT, "bench", "work", "corpus", "sfx")
    args = sys.argv[1:]
    while args:
        flag = args.pop(0)
        if flag == "--runs":
            runs = int(args.pop(0))
        elif flag == "--widths":
            widths = [int(w) for w in args.pop(0).split(",")]
        elif flag == "--cafconv":
            cafconv = os.path.abspath(args.pop(0))
        elif flag == "--sfx":
            sfx = os.path.abspath(args.pop(0))
        else:
            sys.exit(__doc__)
    os.makedirs(WORK, exist_ok=True)
    for product in ["ima4tool"] + ([] if cafconv else ["cafconv"]):
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    cafconv = cafconv or os.path.join(ROOT, ".build", "release", "cafconv")
    if not os.path.isdir(sfx):
        sfx = os.path.join(WORK, "corpus", "sfx")
        if not os.path.isdir(sfx):
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make-corpus.py"), os.path.join(WORK, "corpus"),
                            "sfx"], check=True, stdout=subprocess.DEVNULL)
    encoders = [("ffmpeg", ["-c:a", "adpcm_ima_qt"]), ("ffmpeg -trellis 8", ["-c:a", "adpcm_ima_qt", "-trellis", "8"])]
    ours = [("cafconv convert -d ima4", None)]
    for width in widths or []:
        ours.append((f"ima4tool width {width}", ["--width", str(width)]))
    print(f"ffmpeg: {subprocess.run(['ffmpeg', '-version'], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]}")
    print(f"runs per timing: {runs} (median; sfx: 1); load average before: {os.getloadavg()[0]:.2f}\n")
    print("| signal | encoder | SNR dB (ffmpeg decodes) | encode s (wall) | CPU s | frames: source / ffmpeg decodes / cafconv decodes |")
    print("| --- | --- | --- | --- | --- | --- |")
    summary = []
    for name, make in [("music", music), ("sweep", sweep), ("pink", pink)]:
        samples, channels = make()
        raw = os.path.join(WORK, f"{name}.s16le")
        wav = os.path.join(WORK, f"{name}-source.wav")
        write_raw(raw, samples)
        write_wav(wav, samples, channels)
        frames = len(samples) // channels
        measured = {}
        for label, flags in encoders + ours:
            out = os.path.join(WORK, f"{name}-{label.replace(' ', '_')}.caf")
            if label.startswith("ffmpeg"):
                command = ["ffmpeg", "-v", "error", "-y", "-i", wav] + flags + [out]
            elif flags is None:
                command = cafconv_command(cafconv, wav, out)
            else:
                command = [TOOL, "encode"] + flags + [str(channels), str(RATE), raw, out]
            seconds, cpu = timed(command, runs)
            decoded = ffmpeg_decode(out)
            ours_decoded = our_decode(out)
            quality = snr(samples, decoded)
            measured[label] = (quality, seconds, cpu)
            print(f"| {name} | {label} | {quality:.2f} | {seconds:.3f} | {cpu:.3f} | "
                  f"{frames} / {len(decoded) // channels} / {len(ours_decoded) // channels} |")
            sys.stdout.flush()
        summary.append((name, measured["ffmpeg -trellis 8"], measured["cafconv convert -d ima4"]))
    for label, total, lowest, seconds, cpu, exact_ffmpeg, exact_ours, count in sfx_rows(sfx, cafconv):
        print(f"| sfx ({count} files) | {label} | {total:.2f} (lowest file {lowest:.2f}) | {seconds:.3f} | {cpu:.3f} | "
              f"exact length: {exact_ffmpeg} / {exact_ours} of {count} files |")
        if label.startswith("ffmpeg -trellis"):
            trellis = (total, seconds, cpu)
        if label.startswith("cafconv"):
            summary.append(("sfx", trellis, (total, seconds, cpu)))
    print("\ncafconv against ffmpeg -trellis 8 (goal: SNR at least as high, in at most 1/10 of the time):\n")
    print("| signal | SNR difference dB | wall time ratio | CPU time ratio | goal met (SNR, wall / CPU) |")
    print("| --- | --- | --- | --- | --- |")
    for name, (their_snr, their_time, their_cpu), (our_snr, our_time, our_cpu) in summary:
        better = our_snr >= their_snr
        wall = our_time * 10 <= their_time
        cpu = our_cpu * 10 <= their_cpu
        print(f"| {name} | {our_snr - their_snr:+.2f} | 1/{their_time / our_time:.1f} | 1/{their_cpu / our_cpu:.1f} | "
              f"{'yes' if better else 'no'}, {'yes' if wall else 'no'} / {'yes' if cpu else 'no'} |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
