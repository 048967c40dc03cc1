import BinaryIO
import TestSupport
import WAVEKit

/// One chunk of a crafted file: its id, body, and optionally a size field that lies or a
/// missing pad byte.
struct Piece {
    var id: String
    var body: [UInt8]
    var declared: UInt32?
    var pad = true

    init(_ id: String, _ body: [UInt8], declared: UInt32? = nil, pad: Bool = true) {
        self.id = id
        self.body = body
        self.declared = declared
        self.pad = pad
    }
}

/// Assembles `magic`, a size, `form` and the chunks; sizes in `order`.
func assemble(
    _ magic: String, _ form: String, _ pieces: [Piece], order: ByteOrder = .little,
    formSize: UInt32? = nil
) -> [UInt8] {
    var body = ByteWriter()
    body.write(bytes: Array(form.utf8))
    for piece in pieces {
        body.write(bytes: Array(piece.id.utf8))
        body.write(piece.declared ?? UInt32(piece.body.count), order)
        body.write(bytes: piece.body)
        if piece.body.count % 2 == 1, piece.pad { body.write(UInt8(0)) }
    }
    var file = ByteWriter()
    file.write(bytes: Array(magic.utf8))
    file.write(formSize ?? UInt32(body.bytes.count), order)
    file.write(bytes: body.bytes)
    return file.bytes
}

/// A `fmt ` body.
func fmtBody(
    tag: UInt16 = 1, channels: UInt16 = 2, rate: UInt32 = 44100, bits: UInt16 = 16,
    blockAlign: UInt16? = nil, order: ByteOrder = .little, cbSize: UInt16? = nil,
    extensible: (valid: UInt16, mask: UInt32, sub: UInt16)? = nil
) -> [UInt8] {
    var w = ByteWriter()
    let align = blockAlign ?? channels * ((bits + 7) / 8)
    w.write(extensible == nil ? tag : 0xFFFE, order)
    w.write(channels, order)
    w.write(rate, order)
    w.write(rate * UInt32(align), order)
    w.write(align, order)
    w.write(bits, order)
    if let ext = extensible {
        w.write(UInt16(22), order)
        w.write(ext.valid, order)
        w.write(ext.mask, order)
        // The sub-format GUID: a 32-bit and two 16-bit fields in the file's byte order, 8 bytes.
        w.write(UInt32(ext.sub), order)
        w.write(UInt16(0x0000), order)
        w.write(UInt16(0x0010), order)
        w.write(bytes: [0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
    } else if let cbSize {
        w.write(cbSize, order)
    }
    return w.bytes
}

/// A `fmt `/`data` WAV with extra chunks after `fmt `.
func wav(_ extra: [Piece] = [], data: [UInt8] = [UInt8](repeating: 0, count: 16)) -> [UInt8] {
    assemble("RIFF", "WAVE", [Piece("fmt ", fmtBody())] + extra + [Piece("data", data)])
}

/// Bytes of an ASCII string, NUL-padded to `width` when given.
func ascii(_ text: String, width: Int? = nil) -> [UInt8] {
    var bytes = Array(text.utf8)
    if let width { bytes += [UInt8](repeating: 0, count: max(0, width - bytes.count)) }
    return bytes
}

/// An 80-bit extended encoding of a positive integer.
func extended80(_ value: UInt64) -> [UInt8] {
    guard value > 0 else { return [UInt8](repeating: 0, count: 10) }
    let shift = value.leadingZeroBitCount
    let exponent = UInt16(16383 + 63 - shift)
    let mantissa = value << UInt64(shift)
    var w = ByteWriter()
    w.write(exponent, .big)
    w.write(mantissa, .big)
    return w.bytes
}

/// A `COMM` body; `compression` makes it AIFF-C.
func commBody(
    channels: Int16 = 2, frames: UInt32 = 4, bits: Int16 = 16, rate: UInt64 = 44100,
    compression: String? = nil, name: String = ""
) -> [UInt8] {
    var w = ByteWriter()
    w.write(channels, .big)
    w.write(frames, .big)
    w.write(bits, .big)
    w.write(bytes: extended80(rate))
    if let compression {
        w.write(bytes: Array(compression.utf8))
        w.write(UInt8(name.utf8.count))
        w.write(bytes: Array(name.utf8))
        if name.utf8.count % 2 == 0 { w.write(UInt8(0)) }
    }
    return w.bytes
}

/// An `SSND` body with `offset` filler bytes before `audio`.
func ssndBody(_ audio: [UInt8], offset: UInt32 = 0) -> [UInt8] {
    var w = ByteWriter()
    w.write(offset, .big)
    w.write(UInt32(0), .big)
    w.write(bytes: [UInt8](repeating: 0x78, count: Int(offset)))
    w.write(bytes: audio)
    return w.bytes
}

/// Reads bytes as a WAVE file.
func readWAVE(_ bytes: [UInt8]) throws -> WAVEFile { try WAVEFile(reading: MemoryByteSource(bytes)) }
/// Reads bytes as an AIFF file.
func readAIFF(_ bytes: [UInt8]) throws -> AIFFFile { try AIFFFile(reading: MemoryByteSource(bytes)) }

/// Whether any warning contains all of `words`.
func warns(_ warnings: [WAVEWarning], _ words: String...) -> Bool {
    warnings.contains { warning in words.allSatisfy { warning.message.contains($0) } }
}
