import BinaryIO
internal import CSndFile
import Synchronization
import SystemLayer

/// An error from libsndfile, with its message and the path it concerns.
public struct SndFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file the operation was about.
    public var path: String
    /// libsndfile's own message.
    public var message: String
    /// libsndfile's error number (`sf_error`), 0 when the failure is not one libsndfile numbered.
    public var code: Int32

    /// Creates an error.
    public init(path: String, message: String, code: Int32 = 0) {
        self.path = path
        self.message = message
        self.code = code
    }

    public var description: String { message }
}

/// The sample encodings cafconv reads and writes, as libsndfile names them.
public enum Encoding: Equatable, Hashable, Sendable, CustomStringConvertible {
    case pcmS8, pcmU8, pcm16, pcm24, pcm32, float32, float64, ulaw, alaw
    case imaADPCM, msADPCM, gsm610, alac16, alac20, alac24, alac32
    /// Any other libsndfile subtype, by its raw value.
    case other(Int32)

    init(subtype: Int32) {
        switch subtype {
        case Int32(SF_FORMAT_PCM_S8): self = .pcmS8
        case Int32(SF_FORMAT_PCM_U8): self = .pcmU8
        case Int32(SF_FORMAT_PCM_16): self = .pcm16
        case Int32(SF_FORMAT_PCM_24): self = .pcm24
        case Int32(SF_FORMAT_PCM_32): self = .pcm32
        case Int32(SF_FORMAT_FLOAT): self = .float32
        case Int32(SF_FORMAT_DOUBLE): self = .float64
        case Int32(SF_FORMAT_ULAW): self = .ulaw
        case Int32(SF_FORMAT_ALAW): self = .alaw
        case Int32(SF_FORMAT_IMA_ADPCM): self = .imaADPCM
        case Int32(SF_FORMAT_MS_ADPCM): self = .msADPCM
        case Int32(SF_FORMAT_GSM610): self = .gsm610
        case Int32(SF_FORMAT_ALAC_16): self = .alac16
        case Int32(SF_FORMAT_ALAC_20): self = .alac20
        case Int32(SF_FORMAT_ALAC_24): self = .alac24
        case Int32(SF_FORMAT_ALAC_32): self = .alac32
        default: self = .other(subtype)
        }
    }

    var subtype: Int32 {
        switch self {
        case .pcmS8: return Int32(SF_FORMAT_PCM_S8)
        case .pcmU8: return Int32(SF_FORMAT_PCM_U8)
        case .pcm16: return Int32(SF_FORMAT_PCM_16)
        case .pcm24: return Int32(SF_FORMAT_PCM_24)
        case .pcm32: return Int32(SF_FORMAT_PCM_32)
        case .float32: return Int32(SF_FORMAT_FLOAT)
        case .float64: return Int32(SF_FORMAT_DOUBLE)
        case .ulaw: return Int32(SF_FORMAT_ULAW)
        case .alaw: return Int32(SF_FORMAT_ALAW)
        case .imaADPCM: return Int32(SF_FORMAT_IMA_ADPCM)
        case .msADPCM: return Int32(SF_FORMAT_MS_ADPCM)
        case .gsm610: return Int32(SF_FORMAT_GSM610)
        case .alac16: return Int32(SF_FORMAT_ALAC_16)
        case .alac20: return Int32(SF_FORMAT_ALAC_20)
        case .alac24: return Int32(SF_FORMAT_ALAC_24)
        case .alac32: return Int32(SF_FORMAT_ALAC_32)
        case .other(let raw): return raw
        }
    }

    /// Bits per sample for linear PCM and ALAC; `nil` for companded and ADPCM encodings.
    public var bits: Int? {
        switch self {
        case .pcmS8, .pcmU8: return 8
        case .pcm16, .alac16: return 16
        case .alac20: return 20
        case .pcm24, .alac24: return 24
        case .pcm32, .float32, .alac32: return 32
        case .float64: return 64
        default: return nil
        }
    }

    /// Whether samples are IEEE floats.
    public var isFloat: Bool { self == .float32 || self == .float64 }

    /// Whether samples are linear PCM (integer or float).
    public var isLinearPCM: Bool {
        switch self {
        case .pcmS8, .pcmU8, .pcm16, .pcm24, .pcm32, .float32, .float64: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .pcmS8: return "8-bit signed PCM"
        case .pcmU8: return "8-bit unsigned PCM"
        case .pcm16: return "16-bit PCM"
        case .pcm24: return "24-bit PCM"
        case .pcm32: return "32-bit PCM"
        case .float32: return "32-bit float"
        case .float64: return "64-bit float"
        case .ulaw: return "µ-law"
        case .alaw: return "A-law"
        case .imaADPCM: return "IMA ADPCM"
        case .msADPCM: return "Microsoft ADPCM"
        case .gsm610: return "GSM 6.10"
        case .alac16: return "16-bit ALAC"
        case .alac20: return "20-bit ALAC"
        case .alac24: return "24-bit ALAC"
        case .alac32: return "32-bit ALAC"
        case .other(let raw):
            switch raw {
            case Int32(SF_FORMAT_VORBIS): return "Vorbis"
            case Int32(SF_FORMAT_OPUS): return "Opus"
            case Int32(SF_FORMAT_MPEG_LAYER_I): return "MPEG layer I"
            case Int32(SF_FORMAT_MPEG_LAYER_II): return "MPEG layer II"
            case Int32(SF_FORMAT_MPEG_LAYER_III): return "MPEG layer III (MP3)"
            default: return "libsndfile subtype 0x\(String(raw, radix: 16))"
            }
        }
    }

    /// Xiph Vorbis (in Ogg).
    public static let vorbis = Encoding.other(Int32(SF_FORMAT_VORBIS))
    /// Xiph Opus (in Ogg).
    public static let opus = Encoding.other(Int32(SF_FORMAT_OPUS))
    /// MPEG-1/2 audio layer III (MP3).
    public static let mp3 = Encoding.other(Int32(SF_FORMAT_MPEG_LAYER_III))

    /// Whether the encoding is MPEG audio (layer I, II or III): libmpg123's to decode.
    public var isMPEG: Bool {
        guard case .other(let raw) = self else { return false }
        return [SF_FORMAT_MPEG_LAYER_I, SF_FORMAT_MPEG_LAYER_II, SF_FORMAT_MPEG_LAYER_III].map { Int32($0) }.contains(raw)
    }

    /// Whether the encoding is lossy (Vorbis, Opus, MPEG audio): its decoding is not the
    /// samples that were encoded, so only the decoder's output can be kept.
    public var isLossy: Bool {
        guard case .other(let raw) = self else { return false }
        return [SF_FORMAT_VORBIS, SF_FORMAT_OPUS, SF_FORMAT_MPEG_LAYER_I, SF_FORMAT_MPEG_LAYER_II, SF_FORMAT_MPEG_LAYER_III]
            .map { Int32($0) }.contains(raw)
    }
}

/// The byte order a file is read or written in, as libsndfile understands it.
public enum Endianness: Sendable, Equatable {
    /// The container's default (little for WAV, big for CAF and AIFF).
    case `default`
    case little
    case big

    init(raw: Int32) {
        switch raw {
        case Int32(SF_ENDIAN_LITTLE): self = .little
        case Int32(SF_ENDIAN_BIG): self = .big
        case Int32(SF_ENDIAN_CPU): self = 1.littleEndian == 1 ? .little : .big
        default: self = .default
        }
    }

    var raw: Int32 {
        switch self {
        case .default: return Int32(SF_ENDIAN_FILE)
        case .little: return Int32(SF_ENDIAN_LITTLE)
        case .big: return Int32(SF_ENDIAN_BIG)
        }
    }
}

/// The container formats cafconv uses.
public enum MajorFormat: Equatable, Sendable {
    case wav, wavex, rf64, caf, aiff
    case other(Int32)

    /// FLAC.
    public static let flac = MajorFormat.other(Int32(SF_FORMAT_FLAC))
    /// Ogg (Vorbis or Opus).
    public static let ogg = MajorFormat.other(Int32(SF_FORMAT_OGG))
    /// An MPEG audio stream (MP3).
    public static let mpeg = MajorFormat.other(Int32(SF_FORMAT_MPEG))
    /// Sun/NeXT `.au`.
    public static let au = MajorFormat.other(Int32(SF_FORMAT_AU))
    /// Sonic Foundry's Wave64.
    public static let w64 = MajorFormat.other(Int32(SF_FORMAT_W64))

    /// A short human name: "FLAC", "Ogg", "MPEG audio", "Sun/NeXT AU", "Wave64", "WAV"...
    public var name: String {
        switch self {
        case .wav, .wavex: return "WAV"
        case .rf64: return "RF64"
        case .caf: return "CAF"
        case .aiff: return "AIFF"
        case .other(let raw):
            switch raw {
            case Int32(SF_FORMAT_FLAC): return "FLAC"
            case Int32(SF_FORMAT_OGG): return "Ogg"
            case Int32(SF_FORMAT_MPEG): return "MPEG audio"
            case Int32(SF_FORMAT_AU): return "Sun/NeXT AU"
            case Int32(SF_FORMAT_W64): return "Wave64"
            default: return "libsndfile format 0x\(String(raw, radix: 16))"
            }
        }
    }

    init(raw: Int32) {
        switch raw {
        case Int32(SF_FORMAT_WAV): self = .wav
        case Int32(SF_FORMAT_WAVEX): self = .wavex
        case Int32(SF_FORMAT_RF64): self = .rf64
        case Int32(SF_FORMAT_CAF): self = .caf
        case Int32(SF_FORMAT_AIFF): self = .aiff
        default: self = .other(raw)
        }
    }

    var raw: Int32 {
        switch self {
        case .wav: return Int32(SF_FORMAT_WAV)
        case .wavex: return Int32(SF_FORMAT_WAVEX)
        case .rf64: return Int32(SF_FORMAT_RF64)
        case .caf: return Int32(SF_FORMAT_CAF)
        case .aiff: return Int32(SF_FORMAT_AIFF)
        case .other(let raw): return raw
        }
    }
}

/// What libsndfile reports about an open file.
public struct SoundInfo: Equatable, Sendable {
    /// Frames as declared by the header (clamped by libsndfile to what the file holds).
    public var frames: Int64
    /// Frames per second.
    public var sampleRate: Int
    /// Channels.
    public var channels: Int
    /// The container.
    public var major: MajorFormat
    /// The sample encoding.
    public var encoding: Encoding
    /// The byte order.
    public var endianness: Endianness

    /// Creates a description for a file to be written.
    public init(
        frames: Int64 = 0, sampleRate: Int, channels: Int, major: MajorFormat, encoding: Encoding,
        endianness: Endianness
    ) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.major = major
        self.encoding = encoding
        self.endianness = endianness
    }

    init(_ info: SF_INFO) {
        frames = Int64(info.frames)
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        major = MajorFormat(raw: info.format & Int32(SF_FORMAT_TYPEMASK))
        encoding = Encoding(subtype: info.format & Int32(SF_FORMAT_SUBMASK))
        endianness = Endianness(raw: info.format & Int32(SF_FORMAT_ENDMASK))
    }

    var raw: SF_INFO {
        var info = SF_INFO()
        info.frames = sf_count_t(frames)
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = major.raw | encoding.subtype | endianness.raw
        return info
    }
}

/// `sf_open` reports failure through a global; opening and reading that error happen under one lock.
private let openLock = Mutex(())

/// An open libsndfile handle. It closes when freed; ``close()`` closes early and reports errors.
///
/// One instance must not be used from two threads at once; separate instances are independent.
public final class SoundFile {
    /// The path the file was opened with, for messages.
    public let path: String
    /// What libsndfile reports about the file.
    public let info: SoundInfo
    private var handle: OpaquePointer?
    /// The caller's descriptor, which libsndfile reads through its own duplicate: closed after the handle.
    private var ownedDescriptor: Int32?

    private init(path: String, handle: OpaquePointer, info: SoundInfo, ownedDescriptor: Int32? = nil) {
        self.path = path
        self.handle = handle
        self.info = info
        self.ownedDescriptor = ownedDescriptor
    }

    deinit {
        if let handle { cafconv_sf_close(handle) }
        if let ownedDescriptor { Syscall.close(ownedDescriptor) }
    }

    /// Opens `path` for reading. Only a regular file is opened: a FIFO, socket or device fails
    /// at once instead of blocking (the file is opened with `O_NONBLOCK`, then checked with
    /// `fstat`). `path` may hold bytes that are not UTF-8 (see `PathBytes`).
    public static func open(readingFrom path: String) throws(SndFileError) -> SoundFile {
        let opened = PathBytes.withCString(path) { Syscall.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard let fd = opened else { throw SndFileError(path: path, message: "the path holds a NUL byte") }
        guard fd >= 0 else { throw SndFileError(path: path, message: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Syscall.close(fd)
            throw SndFileError(path: path, message: "not a regular file (a FIFO, socket, device or folder)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return try open(readingDescriptor: fd, path: path)
    }

    /// Starts reading a file already open for reading on `descriptor`, which the returned handle
    /// then owns (it is closed with the handle, or at once when libsndfile refuses the file).
    /// `path` is only used in messages. Opening by descriptor lets the caller refuse FIFOs and
    /// devices before libsndfile could block on them, and open names that are not UTF-8.
    public static func open(readingDescriptor descriptor: Int32, path: String) throws(SndFileError) -> SoundFile {
        do { try loadLibrary(path: path) } catch {
            Syscall.close(descriptor)
            throw error
        }
        var raw = SF_INFO()
        let result = openLock.withLock { _ in open(lending: descriptor, mode: Int32(SFM_READ), &raw, path: path) }
        switch result {
        case .success(let handle):
            return SoundFile(path: path, handle: handle, info: SoundInfo(raw), ownedDescriptor: descriptor)
        case .failure(let error):
            Syscall.close(descriptor)
            throw error
        }
    }

    /// `sf_open_fd` on a duplicate of `descriptor` that libsndfile owns (`SF_TRUE`: it closes it
    /// when the open fails, or at `sf_close`); `descriptor` stays the caller's, to close once.
    /// libsndfile 1.2 does not keep its word with `SF_FALSE`: when it refuses a CAF whose encoding
    /// it does not support, it closes the descriptor anyway, and the caller's own `close` then
    /// closed a number that another thread may have just been given (a conversion's source or
    /// temporary file, under `-j`). Call under `openLock` (libsndfile's error of a failed open is global).
    private static func open(lending descriptor: Int32, mode: Int32, _ raw: inout SF_INFO, path: String)
        -> Result<OpaquePointer, SndFileError>
    {
        let lent = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard lent >= 0 else {
            return .failure(SndFileError(path: path, message: String(cString: strerror(errno))))
        }
        if let handle = cafconv_sf_open_fd(lent, mode, &raw, Int32(SF_TRUE)) { return .success(handle) }
        return .failure(SndFileError(path: path, message: String(cString: cafconv_sf_strerror(nil)), code: cafconv_sf_error(nil)))
    }

    /// Starts writing a new file on an open descriptor, which the returned handle then owns.
    /// `path` is only used in messages.
    public static func create(descriptor: Int32, path: String, info: SoundInfo) throws(SndFileError) -> SoundFile {
        do { try loadLibrary(path: path) } catch {
            Syscall.close(descriptor)
            throw error
        }
        var raw = info.raw
        guard cafconv_sf_format_check(&raw) != 0 else {
            Syscall.close(descriptor)
            throw SndFileError(
                path: path, message: "libsndfile cannot write \(info.encoding) (\(info.endianness)) in this container")
        }
        let result = openLock.withLock { _ in open(lending: descriptor, mode: Int32(SFM_WRITE), &raw, path: path) }
        switch result {
        case .success(let handle): return SoundFile(path: path, handle: handle, info: SoundInfo(raw), ownedDescriptor: descriptor)
        case .failure(let error):
            Syscall.close(descriptor)
            throw error
        }
    }

    private func live() throws(SndFileError) -> OpaquePointer {
        guard let handle else { throw SndFileError(path: path, message: "file is already closed") }
        return handle
    }

    private func lastError(_ handle: OpaquePointer) -> SndFileError {
        SndFileError(path: path, message: String(cString: cafconv_sf_strerror(handle)), code: cafconv_sf_error(handle))
    }

    /// Whether reading floats from an integer file (and writing floats to one) scales by full scale.
    /// cafconv turns this off and does its own documented scaling.
    public func setNormalisation(_ on: Bool) throws(SndFileError) {
        let handle = try live()
        cafconv_sf_command(handle, Int32(SFC_SET_NORM_FLOAT), nil, on ? Int32(SF_TRUE) : Int32(SF_FALSE))
        cafconv_sf_command(handle, Int32(SFC_SET_NORM_DOUBLE), nil, on ? Int32(SF_TRUE) : Int32(SF_FALSE))
    }

    /// Whether libsndfile adds a `peak` chunk to float files it writes (it does by default).
    public func setAddPeakChunk(_ on: Bool) throws(SndFileError) {
        let handle = try live()
        cafconv_sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, on ? Int32(SF_TRUE) : Int32(SF_FALSE))
    }

    /// The channel map libsndfile derived from the file (for example a WAVE_FORMAT_EXTENSIBLE mask),
    /// as libsndfile's `SF_CHANNEL_MAP_*` values, or `nil` when the file has none.
    public func channelMap() throws(SndFileError) -> [Int32]? {
        let handle = try live()
        var map = [Int32](repeating: 0, count: max(info.channels, 1))
        let ok = map.withUnsafeMutableBytes { buffer in
            cafconv_sf_command(handle, Int32(SFC_GET_CHANNEL_MAP_INFO), buffer.baseAddress, Int32(buffer.count))
        }
        return ok == Int32(SF_TRUE) ? map : nil
    }

    /// Sets the channel map to store in the output (libsndfile writes a `chan` chunk for CAF).
    public func setChannelMap(_ map: [Int32]) throws(SndFileError) {
        let handle = try live()
        var copy = map
        let ok = copy.withUnsafeMutableBytes { buffer in
            cafconv_sf_command(handle, Int32(SFC_SET_CHANNEL_MAP_INFO), buffer.baseAddress, Int32(buffer.count))
        }
        if ok != Int32(SF_TRUE) { throw SndFileError(path: path, message: "libsndfile refused the channel map") }
    }

    /// Moves the read position to `frame` (0 is the first frame).
    public func seek(toFrame frame: Int64) throws(SndFileError) {
        let handle = try live()
        if cafconv_sf_seek(handle, sf_count_t(frame), SEEK_SET) != sf_count_t(frame) {
            throw SndFileError(path: path, message: "cannot seek to frame \(frame)")
        }
    }

    /// Reads up to `frames` frames of 32-bit integers (left-justified: a 16-bit sample `s` reads as `s << 16`).
    /// Returns the frames read; 0 at the end.
    public func readFrames(into buffer: UnsafeMutableBufferPointer<Int32>, frames: Int) throws(SndFileError) -> Int {
        let handle = try live()
        precondition(buffer.count >= frames * info.channels, "buffer too small")
        let got = cafconv_sf_readf_int(handle, buffer.baseAddress, sf_count_t(frames))
        if got < 0 || (got == 0 && cafconv_sf_error(handle) != 0) { throw lastError(handle) }
        return Int(got)
    }

    /// Reads up to `frames` frames of doubles. Returns the frames read; 0 at the end.
    public func readFrames(into buffer: UnsafeMutableBufferPointer<Double>, frames: Int) throws(SndFileError) -> Int {
        let handle = try live()
        precondition(buffer.count >= frames * info.channels, "buffer too small")
        let got = cafconv_sf_readf_double(handle, buffer.baseAddress, sf_count_t(frames))
        if got < 0 || (got == 0 && cafconv_sf_error(handle) != 0) { throw lastError(handle) }
        return Int(got)
    }

    /// Writes `frames` frames of left-justified 32-bit integers.
    public func writeFrames(_ buffer: UnsafeBufferPointer<Int32>, frames: Int) throws(SndFileError) {
        let handle = try live()
        let put = cafconv_sf_writef_int(handle, buffer.baseAddress, sf_count_t(frames))
        if put != sf_count_t(frames) { throw lastError(handle) }
    }

    /// Writes `frames` frames of doubles.
    public func writeFrames(_ buffer: UnsafeBufferPointer<Double>, frames: Int) throws(SndFileError) {
        let handle = try live()
        let put = cafconv_sf_writef_double(handle, buffer.baseAddress, sf_count_t(frames))
        if put != sf_count_t(frames) { throw lastError(handle) }
    }

    /// Appends already encoded sample bytes to the audio data (`sf_write_raw`): cafconv's own
    /// G.711 codes, which libsndfile's encoders are not trusted to produce. `bytes` must hold
    /// whole frames.
    public func writeRaw(_ bytes: ArraySlice<UInt8>) throws(SndFileError) {
        let handle = try live()
        if bytes.isEmpty { return }
        let put = bytes.withUnsafeBytes { raw in cafconv_sf_write_raw(handle, raw.baseAddress, sf_count_t(raw.count)) }
        if put != sf_count_t(bytes.count) { throw lastError(handle) }
    }

    /// Reads up to `frames` frames of left-justified integers into the start of `buffer`
    /// (which must hold `frames` x channels samples). Returns the frames read; 0 at the end.
    public func read(into buffer: inout [Int32], frames: Int) throws(SndFileError) -> Int {
        try buffer.withUnsafeMutableBufferPointer { pointer throws(SndFileError) in try readFrames(into: pointer, frames: frames)
        }
    }

    /// Reads up to `frames` frames of doubles into the start of `buffer`. Returns the frames read.
    public func read(into buffer: inout [Double], frames: Int) throws(SndFileError) -> Int {
        try buffer.withUnsafeMutableBufferPointer { pointer throws(SndFileError) in try readFrames(into: pointer, frames: frames)
        }
    }

    /// Writes the first `frames` frames of `buffer`.
    public func write(_ buffer: [Int32], frames: Int) throws(SndFileError) {
        try buffer.withUnsafeBufferPointer { pointer throws(SndFileError) in try writeFrames(pointer, frames: frames) }
    }

    /// Writes the first `frames` frames of `buffer`.
    public func write(_ buffer: [Double], frames: Int) throws(SndFileError) {
        try buffer.withUnsafeBufferPointer { pointer throws(SndFileError) in try writeFrames(pointer, frames: frames) }
    }

    /// Closes the file, flushing headers; reports libsndfile's error if closing fails.
    public func close() throws(SndFileError) {
        guard let handle else { return }
        self.handle = nil
        let status = cafconv_sf_close(handle)
        if let ownedDescriptor { Syscall.close(ownedDescriptor) }
        ownedDescriptor = nil
        if status != 0 {
            throw SndFileError(path: path, message: String(cString: cafconv_sf_error_number(status)), code: status)
        }
    }

    /// Opens libsndfile (`dlopen`, once per process): cafconv does not link it, so that runs which
    /// never open a sound file through it (`info`, `--version`) do not pay for mapping it and its
    /// seven codec libraries. Throws, naming `path`, when it cannot be loaded.
    static func loadLibrary(path: String) throws(SndFileError) {
        if let reason = cafconv_sndfile_load() { throw SndFileError(path: path, message: String(cString: reason)) }
    }

    /// Starts loading libsndfile on a background thread, so that its dynamic linking overlaps the
    /// caller's own work until the first file is opened. Returns at once; calling it again does nothing.
    public static func preloadLibrary() { cafconv_sndfile_preload() }

    /// The libsndfile version string, such as `libsndfile-1.2.0`.
    public static var libraryVersion: String { String(cString: cafconv_sf_version_string()) }
}
