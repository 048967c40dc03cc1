#!/usr/bin/env python3
"""Resampling quality of cafconv, sox and ffmpeg on the same signals (bench/resample.sh runs it).

    python3 bench/resample-quality.py CAFCONV_BINARY WORKDIR

For a 1 kHz sine at -1 dBFS (float32 source, 1 s) resampled 48000 -> 22050 and 44100 -> 22050:
THD+N (the power the best-fitting 1 kHz sine does not explain, over the sine's, on the middle 75%)
and the delay against the ideal sine (from the fitted phase, in output samples); for a 15 kHz
tone at -1 dBFS (above the new Nyquist frequency) the level that comes through. Each tool runs
twice: into float (its resampler alone) and with the bench's own command line into 16-bit mono
CAF (a 16-bit source then, so all three write 16 bits: cafconv -d LEI16@22050 -c 1, sox -r 22050
-c 1, ffmpeg -ar 22050 -ac 1). Prints a Markdown table.
"""
import os
import struct
import subprocess
import sys

import numpy as np

binary, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
AMPLITUDE = 10 ** (-1 / 20)


def write_wav(path, samples, rate, bits):
    """Mono WAV: float32 (bits 32) or 16-bit integer PCM."""
    if bits == 32:
        data = samples.astype('<f4').tobytes()
        fmt = struct.pack('<HHIIHHH', 3, 1, rate, rate * 4, 4, 32, 0)
    else:
        data = np.clip(np.round(samples * 32768), -32768, 32767).astype('<i2').tobytes()
        fmt = struct.pack('<HHIIHH', 1, 1, rate, rate * 2, 2, 16)
    body = b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt + b'data' + struct.pack('<I', len(data)) + data
    with open(path, 'wb') as f:
        f.write(b'RIFF' + struct.pack('<I', len(body)) + body)


def read_audio(path):
    """Mono samples of a CAF (linear PCM, either byte order) or WAV (float32 or int16), as floats."""
    raw = open(path, 'rb').read()
    if raw[:4] == b'caff':
        at, rate, is_float, little, bits, channels, data = 8, 0, False, False, 16, 1, b''
        while at + 12 <= len(raw):
            kind, size = raw[at:at + 4], struct.unpack('>q', raw[at + 4:at + 12])[0]
            body = raw[at + 12:at + 12 + size] if size >= 0 else raw[at + 12:]
            if kind == b'desc':
                rate, _, flags, _, _, channels, bits = struct.unpack('>d4sIIIII', body[:32])
                is_float, little = bool(flags & 1), bool(flags & 2)
            if kind == b'data':
                data = body[4:]
            at += 12 + (size if size >= 0 else len(body))
        order = '<' if little else '>'
        kind = f'{order}f{bits // 8}' if is_float else f'{order}i{bits // 8}'
        values = np.frombuffer(data, dtype=kind).astype(np.float64)
        if not is_float:
            values /= 2 ** (bits - 1)
        return values[::channels], rate
    at, rate, tag, bits, data = 12, 0, 1, 16, b''
    while at + 8 <= len(raw):
        kind, size = raw[at:at + 4], struct.unpack('<I', raw[at + 4:at + 8])[0]
        body = raw[at + 8:at + 8 + size]
        if kind == b'fmt ':
            tag, _, rate = struct.unpack('<HHI', body[:8])
            bits = struct.unpack('<H', body[14:16])[0]
            if tag == 0xFFFE:
                tag = struct.unpack('<H', body[24:26])[0]
        if kind == b'data':
            data = body
        at += 8 + size + (size & 1)
    if tag == 3:
        return np.frombuffer(data, dtype='<f4').astype(np.float64), rate
    return np.frombuffer(data, dtype='<i2').astype(np.float64) / 32768, rate


def analyse(samples, frequency, rate):
    """(THD+N dB, delay in samples, level dB) of the middle 75% against a fitted sine."""
    n = np.arange(len(samples))
    lo, hi = len(samples) // 8, len(samples) - len(samples) // 8
    y = samples[lo:hi]
    w = 2 * np.pi * frequency / rate
    basis = np.stack([np.sin(w * n[lo:hi]), np.cos(w * n[lo:hi]), np.ones(hi - lo)], axis=1)
    (a, b, c), *_ = np.linalg.lstsq(basis, y, rcond=None)
    residual = y - basis @ np.array([a, b, c])
    power = (a * a + b * b) / 2
    thd = 10 * np.log10(np.mean(residual ** 2) / power)
    delay = -np.arctan2(b, a) / w
    level = 10 * np.log10(max(np.mean(y ** 2), 1e-30) / (AMPLITUDE ** 2 / 2))
    return thd, delay, level


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def tools(source, out, float_output):
    """Each tool's command line for source -> out (a .caf for the bench's commands, .wav/.caf floats)."""
    if float_output:
        return {
            'cafconv': ([binary, 'convert', '-q', '--force', '-d', 'LEF32@22050', source, '-o', out + '-cafconv.caf'],
                        out + '-cafconv.caf'),
            'sox': (['sox', source, '-e', 'floating-point', '-b', '32', '-r', '22050', out + '-sox.wav'], out + '-sox.wav'),
            'ffmpeg': (['ffmpeg', '-nostdin', '-v', 'error', '-y', '-i', source, '-ar', '22050', '-c:a', 'pcm_f32le',
                        out + '-ffmpeg.wav'], out + '-ffmpeg.wav'),
        }
    return {
        'cafconv': ([binary, 'convert', '-q', '--force', '-d', 'LEI16@22050', '-c', '1', source, '-o', out + '-cafconv.caf'],
                    out + '-cafconv.caf'),
        'sox': (['sox', source, '-r', '22050', '-c', '1', out + '-sox.caf'], out + '-sox.caf'),
        'ffmpeg': (['ffmpeg', '-nostdin', '-v', 'error', '-y', '-i', source, '-ar', '22050', '-ac', '1', out + '-ffmpeg.caf'],
                   out + '-ffmpeg.caf'),
    }


results = {}
for rate in (48000, 44100):
    frames = rate
    t = np.arange(frames) / rate
    for frequency in (1000, 15000):
        signal = AMPLITUDE * np.sin(2 * np.pi * frequency * t)
        for float_output in (True, False):
            bits = 32 if float_output else 16
            source = os.path.join(work, f'sine-{frequency}-{rate}-{bits}.wav')
            write_wav(source, signal, rate, bits)
            stem = os.path.join(work, f'out-{frequency}-{rate}-{bits}')
            for tool, (command, path) in tools(source, stem, float_output).items():
                run(command)
                samples, out_rate = read_audio(path)
                expected = round(frames * 22050 / rate)
                thd, delay, level = analyse(samples, frequency, 22050)
                results[(tool, rate, frequency, bits)] = (thd, delay, level, len(samples), expected, out_rate)

print('| tool | into | 48000→22050 THD+N | 44100→22050 THD+N | delay (samples) | 15 kHz through (dB) | frames (expected) |')
print('| --- | --- | --- | --- | --- | --- | --- |')
for bits in (32, 16):
    for tool in ('cafconv', 'sox', 'ffmpeg'):
        a = results[(tool, 48000, 1000, bits)]
        b = results[(tool, 44100, 1000, bits)]
        c = max(results[(tool, 48000, 15000, bits)][2], results[(tool, 44100, 15000, bits)][2])
        into = 'float32' if bits == 32 else '16-bit mono (bench command)'
        print(f'| {tool} | {into} | {a[0]:.1f} dB | {b[0]:.1f} dB | {a[1]:+.3f} / {b[1]:+.3f} | {c:.1f} | '
              f'{a[3]} ({a[4]}), {b[3]} ({b[4]}) |')
