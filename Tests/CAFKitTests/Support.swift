import BinaryIO
import TestSupport

@testable import CAFKit

/// A valid little base file: 16-bit stereo little-endian PCM, 4 frames.
let basePCM = AudioDescription.linearPCM(sampleRate: 44_100, channels: 2, bits: 16, isFloat: false, byteOrder: .little)

/// Bytes of a CAF file made of `chunks`.
func caf(_ chunks: [CAFChunk], trailing: [UInt8] = []) -> [UInt8] {
    (try? CAFWriter.bytes(of: CAFContents(chunks: chunks, trailing: trailing))) ?? []
}

/// A chunk with any type and declared size and the given body bytes.
func rawChunk(_ type: FourCC, size: Int64, body: [UInt8]) -> [UInt8] {
    var writer = ByteWriter()
    writer.write(type)
    writer.write(size, .big)
    writer.write(bytes: body)
    return writer.bytes
}

func desc(_ description: AudioDescription = basePCM) -> CAFChunk { .description(description) }
func data(_ count: Int, editCount: UInt32 = 0) -> CAFChunk {
    .audioData(AudioDataChunk(editCount: editCount, audio: .bytes((0..<count).map { UInt8(truncatingIfNeeded: $0) })))
}

func read(_ bytes: [UInt8]) throws -> CAFDocument {
    try CAFDocument(reading: MemoryByteSource(bytes), loadingAudio: true)
}

/// Seeded generators of chunk values for property tests.
struct Gen {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func u8() -> UInt8 { UInt8.random(in: 0...255, using: &rng) }
    mutating func u16() -> UInt16 { UInt16.random(in: 0...UInt16.max, using: &rng) }
    mutating func u32() -> UInt32 { UInt32.random(in: 0...UInt32.max, using: &rng) }
    mutating func i32() -> Int32 { Int32.random(in: Int32.min...Int32.max, using: &rng) }
    mutating func i64() -> Int64 { Int64.random(in: Int64.min...Int64.max, using: &rng) }
    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func bytes(_ range: ClosedRange<Int>, nonZero: Bool = false) -> [UInt8] {
        (0..<int(range)).map { _ in nonZero ? UInt8.random(in: 1...255, using: &rng) : u8() }
    }
    /// A finite double, sometimes an integer, sometimes negative or huge.
    mutating func double() -> Double {
        switch int(0...3) {
        case 0: return Double(int(0...1_000_000))
        case 1: return Double.random(in: -1e12...1e12, using: &rng)
        case 2: return 0
        default: return Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)  // finite
        }
    }
    mutating func float() -> Float {
        bool() ? Float(int(-1000...1000)) / 8 : Float.random(in: -1...1, using: &rng)
    }
    mutating func fourCC() -> FourCC { FourCC(bytes: u8(), u8(), u8(), u8()) }
    /// A string without NUL, mixing ASCII and multi-byte scalars.
    mutating func string() -> String {
        let scalars: [Unicode.Scalar] = ["a", "Z", " ", "0", ".", "é", "ß", "日", "🎵", "\u{7F}", "\u{1}"]
        var text = ""
        for _ in 0..<int(0...12) { text.unicodeScalars.append(scalars[int(0...scalars.count - 1)]) }
        return text
    }
    mutating func array<T>(_ range: ClosedRange<Int>, _ make: (inout Gen) -> T) -> [T] {
        var result: [T] = []
        for _ in 0..<int(range) { result.append(make(&self)) }
        return result
    }

    mutating func description() -> AudioDescription {
        if bool() {
            let bits: UInt32 = [8, 16, 24, 32][int(0...3)]
            return .linearPCM(
                sampleRate: [8000, 22_050, 44_100, 48_000, 96_000][int(0...4)], channels: UInt32(int(1...8)),
                bits: bits, isFloat: bits == 32 && bool(), byteOrder: bool() ? .little : .big)
        }
        return AudioDescription(
            sampleRate: double(), formatID: fourCC(), formatFlags: u32(),
            bytesPerPacket: bool() ? 0 : u32(), framesPerPacket: bool() ? 0 : u32(),
            channelsPerFrame: u32(), bitsPerChannel: u32())
    }
    mutating func smpte() -> SMPTETime {
        SMPTETime(
            hours: Int8(bitPattern: u8()), minutes: Int8(bitPattern: u8()), seconds: Int8(bitPattern: u8()),
            frames: Int8(bitPattern: u8()), subFrameSampleOffset: u32())
    }
    mutating func marker() -> Marker {
        Marker(type: fourCC(), framePosition: double(), markerID: i32(), smpteTime: smpte(), channel: u32())
    }
    mutating func packetTable(bytesPerPacket: UInt32, framesPerPacket: UInt32) -> PacketTable {
        let variable = bytesPerPacket == 0 || framesPerPacket == 0
        let entries: [PacketTable.Entry] =
            variable
            ? array(0...40) { gen in
                let big = gen.bool()
                let size = bytesPerPacket == 0 ? Int64(big ? gen.int(0...Int.max) : gen.int(0...300)) : nil
                let frames = framesPerPacket == 0 ? Int64(gen.int(0...5000)) : nil
                return PacketTable.Entry(byteSize: size, frames: frames)
            } : []
        let header = PacketTableHeader(
            numberPackets: variable ? Int64(entries.count) : i64(), numberValidFrames: i64(),
            primingFrames: i32(), remainderFrames: i32())
        return PacketTable(header: header, entries: entries, trailing: bytes(0...3))
    }
    mutating func info() -> InfoStrings {
        var value = InfoStrings(
            array(0...5) { gen in InfoEntry(key: gen.string(), value: gen.string()) },
            trailing: bytes(0...6, nonZero: true))
        if bool() { value.declaredCount = u32() }
        return value
    }

    /// Any chunk but `desc` and `data`, consistent with `description` (for `pakt`).
    mutating func chunk(for description: AudioDescription) -> CAFChunk {
        switch int(0...15) {
        case 0:
            return .packetTable(
                packetTable(bytesPerPacket: description.bytesPerPacket, framesPerPacket: description.framesPerPacket))
        case 1: return .magicCookie(MagicCookie(bytes: bytes(0...64)))
        case 2:
            let descriptions = array(0...4) { gen in
                ChannelDescription(label: gen.u32(), flags: gen.u32(), coordinates: [gen.float(), gen.float(), gen.float()])
            }
            return .channelLayout(ChannelLayout(tag: u32(), bitmap: u32(), descriptions: descriptions, trailing: bytes(0...19)))
        case 3: return .free(FreeChunk(bytes: bytes(0...100)))
        case 4: return .info(info())
        case 5:
            var mark = MarkerChunk(smpteTimeType: u32(), markers: array(0...4) { $0.marker() }, trailing: bytes(0...27))
            // More markers declared than present (the trailing bytes are shorter than one marker).
            if bool() { mark.declaredCount = UInt32(mark.markers.count + int(1...5)) }
            return .markers(mark)
        case 6:
            let regions = array(0...3) { gen in
                Region(regionID: gen.u32(), flags: gen.u32(), markers: gen.array(0...3) { $0.marker() })
            }
            return .regions(RegionChunk(smpteTimeType: u32(), regions: regions, trailing: bytes(0...8)))
        case 7:
            return .instrument(
                Instrument(
                    baseNote: float(), midiLowNote: u8(), midiHighNote: u8(), midiLowVelocity: u8(),
                    midiHighVelocity: u8(), decibelGain: float(), startRegionID: u32(),
                    sustainRegionID: u32(), releaseRegionID: u32(), instrumentID: u32(),
                    trailing: bytes(0...4)))
        case 8:
            if bool() { return .strings(StringsChunk(strings: array(0...4) { gen in (gen.u32(), gen.string()) })) }
            return .strings(
                StringsChunk(
                    ids: array(0...4) { gen in StringID(stringID: gen.u32(), startByteOffset: gen.i64()) },
                    stringData: bytes(0...30)))
        case 9: return .userDefined(UserDefinedChunk(uuid: bytes(16...16), payload: bytes(0...50)))
        case 10:
            return .peak(
                PeakChunk(
                    editCount: u32(), peaks: array(0...6) { gen in ChannelPeak(value: gen.float(), framePosition: gen.i64()) },
                    trailing: bytes(0...11)))
        case 11:
            return .overview(
                Overview(
                    editCount: u32(), framesPerSample: u32(),
                    samples: array(0...20) { gen in
                        OverviewSample(minValue: Int16(bitPattern: gen.u16()), maxValue: Int16(bitPattern: gen.u16()))
                    },
                    trailing: bytes(0...3)))
        case 12: return .editComments(info())
        case 13: return .materialID(MaterialIdentifier(bytes: bytes(64...64)))
        case 14: return .midi(MIDIChunk(bytes: bytes(0...40)))
        default:
            var type = fourCC()
            while CAFValidator.specTypes.contains(type) { type = fourCC() }
            return .unknown(type, bytes(0...40))
        }
    }

    /// A whole file: `desc` first, random chunks, one `data` chunk somewhere, maybe trailing bytes.
    mutating func contents() -> CAFContents {
        let description = description()
        var chunks: [CAFChunk] = [.description(description, trailing: bool() ? [] : bytes(0...8))]
        chunks += array(0...6) { $0.chunk(for: description) }
        let unknownSize = int(0...3) == 0
        let audio = AudioDataChunk(editCount: u32(), audio: .bytes(bytes(0...200)), sizeIsUnknown: unknownSize)
        if unknownSize {
            chunks.append(.audioData(audio))
            return CAFContents(version: 1, flags: u16(), chunks: chunks)
        }
        chunks.insert(.audioData(audio), at: int(1...chunks.count))
        return CAFContents(version: 1, flags: u16(), chunks: chunks, trailing: bytes(0...11))
    }
}
