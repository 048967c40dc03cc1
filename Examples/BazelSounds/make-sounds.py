#!/usr/bin/env python3
"""Writes the example's source WAV files (generated, so the repository holds no audio)."""
import math
import os
import struct

def wav(path, seconds, frequency, channels=2, rate=44100):
    frames = int(seconds * rate)
    data = bytearray()
    for i in range(frames):
        sample = int(12000 * math.sin(2 * math.pi * frequency * i / rate) * math.exp(-3 * i / frames))
        data += struct.pack("<h", sample) * channels
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * 2 * channels, 2 * channels, 16)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(header + b"data" + struct.pack("<I", len(data)) + data)

here = os.path.dirname(os.path.abspath(__file__))
wav(os.path.join(here, "Sounds/music/theme.wav"), 2.0, 220)
for index, name in enumerate(["hit", "boom", "ui/click", "ui/hover"]):
    wav(os.path.join(here, "Sounds/sfx", name + ".wav"), 0.3, 440 + 110 * index)
with open(os.path.join(here, "Sounds/cafconv.toml"), "w") as rules:
    rules.write('[defaults]\nformat = "LEI16"\n\n[[rule]]\nmatch = "sfx/h*.wav"\nformat = "LEI16@22050"\nchannels = 1\n')
