import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer
import WAVEKit

/// How the source's sample bytes become the output's when decoding and encoding them would not
/// change a single sample value, only (at most) the byte order or the sign convention of 8-bit
/// samples.
package enum PayloadTransform: Equatable, Sendable {
    /// The bytes are the same: the kernel copies them (copy_file_range(2)).
    case copy
    /// Each sample's `width` bytes are reversed (little-endian <-> big-endian).
    case swap(width: Int)
    /// Unsigned 8-bit (WAV) to signed 8-bit (CAF): the top bit of every byte is flipped.
    case flipSign

    /// How the report names it.
    package var transfer: FileResult.Transfer {
        switch self {
        case .copy: return .copied
        case .swap: return .byteSwapped
        case .flipSign: return .signFlipped
        }
    }
}

/// The audio payload of a source whose samples can be moved without decoding them.
///
/// It is only built when WAVEKit and libsndfile agree on the encoding, channels, frame size and
/// frame count, and the file really holds that many bytes; ``SampleProbe`` then compares samples
/// at both ends as the two parsers decode them.
package struct DirectPayload: Equatable, Sendable {
    /// Absolute offset of the first audio byte in the source.
    package var offset: UInt64
    /// Frames to move.
    package var frames: Int64
    /// How the source's samples are laid out (for our own decode).
    package var layout: PCMLayout
    /// How bytes change on the way.
    package var transform: PayloadTransform

    /// Bytes to move.
    package var byteCount: UInt64 { UInt64(frames) * UInt64(layout.bytesPerFrame) }

    /// The payload of a source whose samples cafconv's own reader laid out as `samples` (WAV,
    /// AIFF or CAF), when libsndfile agrees with it on the encoding, channels and frames, the
    /// samples are packed (no wide slots, no G.711 codes) and the target keeps their values.
    package init?(samples: WAVESamples, source: SoundInfo, target: TargetFormat, fileLength: UInt64) {
        let encoding = source.encoding
        guard encoding.isLinearPCM, samples.law == nil, !samples.hasWideSlots, let bits = encoding.bits,
            samples.encoding == encoding
        else { return nil }
        let signFlip = encoding == .pcmU8 && target.encoding == .pcmS8
        guard target.encoding == encoding || signFlip else { return nil }
        let width = bits / 8
        guard source.channels > 0, samples.channels == source.channels, samples.bits == bits,
            samples.isFloat == encoding.isFloat, samples.slotBytes == width,
            source.frames >= 0, samples.frames == source.frames
        else { return nil }
        let layout = PCMLayout(
            bits: bits, isFloat: encoding.isFloat, byteOrder: samples.byteOrder, channels: source.channels,
            isUnsigned8Bit: encoding == .pcmU8)
        let (bytes, overflow) = UInt64(source.frames).multipliedReportingOverflow(by: UInt64(layout.bytesPerFrame))
        guard !overflow, samples.offset <= fileLength, bytes <= fileLength - samples.offset else { return nil }
        self.offset = samples.offset
        self.frames = source.frames
        self.layout = layout
        if signFlip {
            transform = .flipSign
        } else if width == 1 || samples.byteOrder == target.byteOrder {
            transform = .copy
        } else {
            transform = .swap(width: width)
        }
    }
}

/// The first and last frames of a payload as libsndfile decodes them, to check bytes against with
/// the comparison `verify --against` uses (`SampleComparison.firstDifference`).
package struct SampleProbe {
    /// Frames in each end.
    package static let frames = 2048

    /// Frames decoded from `start` on: libsndfile's left-justified integers or its floats.
    package struct Block {
        package var start: Int64
        package var frames: Int
        package var ints: [Int32]
        package var doubles: [Double]
    }

    package var blocks: [Block]
    package var isFloat: Bool
    package var channels: Int

    /// The first and last frames of a source of `frames` frames as libsndfile decodes them from
    /// `reader`; `nil` when libsndfile reads fewer frames than that. When the two ends would
    /// overlap (at most twice ``frames`` frames), one block holds every frame, each read and
    /// compared once.
    package static func read(_ reader: SoundFile, frames: Int64, channels: Int, isFloat: Bool) throws(SndFileError) -> SampleProbe? {
        let whole = frames <= 2 * Int64(Self.frames)
        let count = whole ? Int(max(0, frames)) : Self.frames
        var starts: [Int64] = [0]
        if !whole { starts.append(frames - Int64(count)) }
        var blocks: [Block] = []
        for start in starts {
            if start > 0 { try reader.seek(toFrame: start) }
            var block = Block(
                start: start, frames: count, ints: [Int32](repeating: 0, count: isFloat ? 0 : count * channels),
                doubles: [Double](repeating: 0, count: isFloat ? count * channels : 0))
            let got =
                isFloat ? try reader.read(into: &block.doubles, frames: count) : try reader.read(into: &block.ints, frames: count)
            guard got == count else { return nil }
            blocks.append(block)
        }
        return SampleProbe(blocks: blocks, isFloat: isFloat, channels: channels)
    }

    /// The first and last frames of `payload` as libsndfile decodes them from `reader`.
    package static func read(_ reader: SoundFile, payload: DirectPayload) throws(SndFileError) -> SampleProbe? {
        try read(reader, frames: payload.frames, channels: payload.layout.channels, isFloat: payload.layout.isFloat)
    }

    /// Where cafconv's own decoding of the source (`samples` in `source`) first differs from the
    /// probe (a NaN matches a NaN): frame, channel, libsndfile's value and cafconv's.
    package func firstDifference(
        from samples: WAVESamples, in source: some ByteSource
    ) throws(SourceError) -> (frame: Int64, channel: Int, expected: String, found: String)? {
        for block in blocks {
            var ints = [Int32](repeating: 0, count: isFloat ? 0 : block.frames * channels)
            var doubles = [Double](repeating: 0, count: isFloat ? block.frames * channels : 0)
            try samples.decode(source, from: block.start, count: block.frames, ints: &ints, doubles: &doubles)
            for index in 0..<block.frames * channels {
                let same =
                    isFloat
                    ? (doubles[index].bitPattern == block.doubles[index].bitPattern
                        || (doubles[index].isNaN && block.doubles[index].isNaN))
                    : ints[index] == block.ints[index]
                if !same {
                    let expected = isFloat ? "\(block.doubles[index])" : "\(block.ints[index] >> Int32(32 - samples.bits))"
                    let found = isFloat ? "\(doubles[index])" : "\(ints[index] >> Int32(32 - samples.bits))"
                    return (block.start + Int64(index / channels), index % channels + 1, expected, found)
                }
            }
        }
        return nil
    }

    /// Where the samples stored as `layout` from `offset` in `source` first differ from the probe
    /// (a NaN matches a NaN): frame, channel and both values; `nil` when they hold the same samples.
    package func firstDifference(
        in source: some ByteSource, at offset: UInt64, layout: PCMLayout
    ) throws(ByteError) -> (frame: Int64, channel: Int, expected: String, found: String)? {
        for block in blocks {
            let bytes = try source.readExactly(
                at: offset + UInt64(block.start) * UInt64(layout.bytesPerFrame), count: block.frames * layout.bytesPerFrame)
            if let difference = SampleComparison.firstDifference(
                layout: layout, bytes: bytes[...], sourceIsFloat: isFloat, ints: block.ints, doubles: block.doubles,
                samples: block.frames * channels)
            {
                return (
                    block.start + Int64(difference.index / channels), difference.index % channels + 1,
                    difference.expected, difference.found
                )
            }
        }
        return nil
    }
}

/// Moves a ``DirectPayload`` from the source into the output file.
package enum PayloadMover {
    /// Bytes per step between cancellation checks (kernel copy) and per buffer (swap, flip).
    package static let copyStep = 64 << 20
    package static let bufferBytes = 1 << 20

    /// Writes the payload of `input` into `output` from `outputOffset` on. Returns `false` when
    /// `isCancelled` said stop (it is asked between steps).
    package static func move(
        _ payload: DirectPayload, from input: Int32, to output: Int32, at outputOffset: UInt64,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        if payload.transform == .copy, let done = try kernelCopy(payload, input, output, outputOffset, isCancelled) {
            return done
        }
        return try bufferedMove(payload, input, output, outputOffset, isCancelled)
    }

    /// copy_file_range(2) in steps; `nil` when the kernel cannot do it for these files (nothing
    /// was copied, and the buffered move takes over).
    private static func kernelCopy(
        _ payload: DirectPayload, _ input: Int32, _ output: Int32, _ outputOffset: UInt64,
        _ isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool? {
        var inOffset = Int64(payload.offset)
        var outOffset = Int64(outputOffset)
        var left = payload.byteCount
        var first = true
        while left > 0 {
            if isCancelled() { return false }
            let copied = Syscall.retryOnInterrupt {
                cafconv_copy_file_range(input, &inOffset, output, &outOffset, Int(min(left, UInt64(copyStep))))
            }
            if copied < 0 {
                let code = errno
                if first && [ENOSYS, EXDEV, EOPNOTSUPP, EINVAL, EBADF, EPERM].contains(code) { return nil }
                throw ConversionError.io(errno: code, doing: "copying the audio failed")
            }
            if copied == 0 {
                throw ConversionError.source(.sourceEndedEarly)
            }
            first = false
            left -= UInt64(copied)
        }
        return true
    }

    /// pread, transform in place, pwrite: memory stays at one buffer of about 1 MiB.
    private static func bufferedMove(
        _ payload: DirectPayload, _ input: Int32, _ output: Int32, _ outputOffset: UInt64,
        _ isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        let frameBytes = payload.layout.bytesPerFrame
        // No bigger than the payload: most sound effects are far smaller than the 1 MiB buffer.
        let step = Int(min(UInt64(max(1, bufferBytes / frameBytes) * frameBytes), max(payload.byteCount, 1)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: step, alignment: 64)
        defer { buffer.deallocate() }
        var done: UInt64 = 0
        while done < payload.byteCount {
            if isCancelled() { return false }
            let count = Int(min(UInt64(step), payload.byteCount - done))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            try FileSystem.readExactly(input, into: chunk, at: payload.offset + done)
            ByteTransforms.apply(payload.transform, to: chunk)
            try FileSystem.writeAll(output, from: UnsafeRawBufferPointer(chunk), at: outputOffset + done)
            done += UInt64(count)
        }
        return true
    }
}

extension ByteTransforms {
    package static func apply(_ transform: PayloadTransform, to bytes: UnsafeMutableRawBufferPointer) {
        switch transform {
        case .copy: break
        case .swap(let width): swap(width: width, bytes)
        case .flipSign: flipSign(bytes)
        }
    }
}
