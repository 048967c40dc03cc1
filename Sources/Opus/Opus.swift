import COpus

/// Why libopus cannot be loaded, or cannot encode or decode as asked: a sentence.
public struct OpusError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// libopus, loaded with `dlopen` on first use (`libopus.so.0`), never linked.
public enum LibOpus {
    /// The rates Opus codes at.
    public static let sampleRates = [8000, 12000, 16000, 24000, 48000]

    /// Loads libopus once; throws a sentence naming the package when it cannot.
    public static func load() throws(OpusError) {
        if let reason = cafconv_opus_load() {
            throw OpusError("Opus needs libopus (libopus.so.0, Debian package libopus0), which cannot be loaded: \(String(cString: reason))")
        }
    }

    /// libopus's version string (`libopus 1.3.1`), or `none` when it cannot be loaded.
    public static var version: String {
        guard cafconv_opus_load() == nil, let text = cafconv_opus_version() else { return "none" }
        return String(cString: text)
    }

    /// The frames one packet holds at `sampleRate` (its TOC byte and frame count), or `nil` when
    /// the packet is malformed.
    public static func frames(inPacket packet: UnsafeRawBufferPointer, sampleRate: Int) -> Int? {
        guard cafconv_opus_load() == nil, let base = packet.baseAddress, packet.count > 0,
            let bytes = Int32(exactly: packet.count), let rate = Int32(exactly: sampleRate)
        else { return nil }
        let frames = cafconv_opus_packet_frames(base.assumingMemoryBound(to: UInt8.self), bytes, rate)
        return frames > 0 ? Int(frames) : nil
    }

    static func sentence(_ code: Int32) -> String {
        guard cafconv_opus_load() == nil, let text = cafconv_opus_strerror(code) else { return "error \(code)" }
        return "\(String(cString: text)) (\(code))"
    }
}

/// libopus's coding modes (`OPUS_APPLICATION_*`; the values are libopus's and the first value of
/// an Apple Opus CAF's `kuki`).
public enum OpusApplication: Int32, Sendable, CaseIterable {
    /// `OPUS_APPLICATION_VOIP`: speech; high-passes and favours intelligibility.
    case voip = 2048
    /// `OPUS_APPLICATION_AUDIO`: music and everything else; favours fidelity.
    case audio = 2049
    /// `OPUS_APPLICATION_RESTRICTED_LOWDELAY`: CELT only, less look-ahead.
    case restrictedLowDelay = 2051

    public var name: String {
        switch self {
        case .voip: return "voip"
        case .audio: return "audio"
        case .restrictedLowDelay: return "restricted-lowdelay"
        }
    }
}

/// libopus's `OPUS_AUTO` (-1000): the bit rate the encoder chooses.
public let opusAutomaticBitRate: Int32 = -1000

/// A libopus encoder fed interleaved floats of any length: it cuts them into 20 ms frames and
/// hands out one packet per frame. ``finish(packet:)`` pads the last frame with silence and adds
/// silent frames until the encoder's look-ahead (the pre-skip) is flushed, so that the packets
/// hold every input frame after ``lookahead`` frames of delay.
public final class OpusEncoder {
    private let handle: OpaquePointer
    /// Frames per second (one of ``LibOpus/sampleRates``).
    public let sampleRate: Int
    /// Channels per frame (1 or 2).
    public let channels: Int
    /// Frames per packet: 20 ms.
    public let framesPerPacket: Int
    /// The frames of delay the decoded output starts with (`OPUS_GET_LOOKAHEAD`): the pre-skip,
    /// at the coded rate.
    public let lookahead: Int
    /// The input frames so far.
    public private(set) var inputFrames: Int64 = 0
    /// The packets handed out so far.
    public private(set) var packets: Int64 = 0
    private var pending: [Float] = []
    private var pendingFrames = 0
    private var packet = [UInt8](repeating: 0, count: 4000)

    /// An encoder at `sampleRate` for `channels`; `bitRate` `nil` lets libopus choose
    /// (`OPUS_AUTO`); `constantBitRate` true codes every packet at the same size, else constrained
    /// VBR (the bit rate kept on average).
    public init(
        sampleRate: Int, channels: Int, application: OpusApplication, bitRate: Int?, constantBitRate: Bool
    ) throws(OpusError) {
        try LibOpus.load()
        guard LibOpus.sampleRates.contains(sampleRate) else {
            throw OpusError("Opus codes at \(LibOpus.sampleRates.map(String.init).joined(separator: ", ")) Hz, not \(sampleRate)")
        }
        guard channels == 1 || channels == 2 else { throw OpusError("cafconv codes Opus in 1 or 2 channels, not \(channels)") }
        let rate = bitRate.map { Int32(clamping: $0) } ?? opusAutomaticBitRate
        var error: Int32 = 0
        guard
            let made = cafconv_opus_encoder_create(
                Int32(sampleRate), Int32(channels), application.rawValue, rate, constantBitRate ? 0 : 1, 1, &error)
        else { throw OpusError("libopus cannot make an encoder: \(LibOpus.sentence(error))") }
        let lookahead = cafconv_opus_encoder_lookahead(made)
        guard lookahead >= 0 else {
            cafconv_opus_encoder_destroy(made)
            throw OpusError("libopus does not say its look-ahead: \(LibOpus.sentence(lookahead))")
        }
        handle = made
        self.sampleRate = sampleRate
        self.channels = channels
        self.lookahead = Int(lookahead)
        framesPerPacket = sampleRate / 50
        pending.reserveCapacity(framesPerPacket * channels)
    }

    deinit { cafconv_opus_encoder_destroy(handle) }

    /// Encodes the first `frames` frames of `samples` (interleaved, full scale ±1.0); `store` is
    /// called with each packet made (a caller whose store fails keeps its own error and throws
    /// an `OpusError` to stop).
    public func encode(
        _ samples: [Float], frames: Int, packet store: (UnsafeRawBufferPointer) throws(OpusError) -> Void
    ) throws(OpusError) {
        let count = max(0, min(frames, samples.count / channels))
        var index = 0
        // Whole frames while nothing is pending are coded from `samples` in place, not copied.
        if pendingFrames == 0 {
            let whole = count / framesPerPacket * framesPerPacket
            var failure: OpusError?
            samples.withUnsafeBufferPointer { samples in
                do throws(OpusError) {
                    while index < whole {
                        try emit(UnsafeBufferPointer(rebasing: samples[(index * channels)...]), store)
                        index += framesPerPacket
                    }
                } catch { failure = error }
            }
            if let failure { throw failure }
        }
        while index < count {
            let take = min(framesPerPacket - pendingFrames, count - index)
            pending.append(contentsOf: samples[(index * channels)..<((index + take) * channels)])
            pendingFrames += take
            index += take
            if pendingFrames == framesPerPacket { try emit(store) }
        }
        inputFrames += Int64(count)
    }

    /// Pads the last frame with silence and codes silent frames until every input frame is
    /// covered after the look-ahead: packets x frame size >= input frames + look-ahead. No packet
    /// at all for no input.
    public func finish(packet store: (UnsafeRawBufferPointer) throws(OpusError) -> Void) throws(OpusError) {
        guard inputFrames > 0 else { return }
        let needed = (inputFrames + Int64(lookahead) + Int64(framesPerPacket) - 1) / Int64(framesPerPacket)
        while packets < needed {
            pending.append(contentsOf: repeatElement(0, count: (framesPerPacket - pendingFrames) * channels))
            pendingFrames = framesPerPacket
            try emit(store)
        }
    }

    /// Codes the pending frame.
    private func emit(_ store: (UnsafeRawBufferPointer) throws(OpusError) -> Void) throws(OpusError) {
        var failure: OpusError?
        pending.withUnsafeBufferPointer { samples in
            do throws(OpusError) { try emit(samples, store) } catch { failure = error }
        }
        pending.removeAll(keepingCapacity: true)
        pendingFrames = 0
        if let failure { throw failure }
    }

    /// Codes one frame from the start of `samples` (at least a frame's samples).
    private func emit(_ samples: UnsafeBufferPointer<Float>, _ store: (UnsafeRawBufferPointer) throws(OpusError) -> Void)
        throws(OpusError)
    {
        let frameSize = Int32(framesPerPacket)
        let capacity = Int32(packet.count)
        guard samples.count >= framesPerPacket * channels else {
            throw OpusError("libopus was handed \(samples.count) samples for a \(framesPerPacket)-frame packet")
        }
        let bytes = packet.withUnsafeMutableBufferPointer { out in
            cafconv_opus_encode_float(handle, samples.baseAddress, frameSize, out.baseAddress, capacity)
        }
        guard bytes > 0 else {
            throw OpusError("libopus cannot encode packet \(packets): \(LibOpus.sentence(bytes))")
        }
        packets += 1
        let count = Int(bytes)
        var failure: OpusError?
        packet.withUnsafeBytes { all in
            do throws(OpusError) { try store(UnsafeRawBufferPointer(rebasing: all[0..<count])) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

/// libopus's decoder (the reference decoder RFC 6716 makes normative): packets in, interleaved
/// floats out, at any of Opus's rates whatever rate the packets were coded at.
public final class OpusDecoder {
    private let handle: OpaquePointer
    public let sampleRate: Int
    public let channels: Int
    /// The most frames one packet can hold: 120 ms.
    public var maximumFramesPerPacket: Int { sampleRate * 120 / 1000 }

    public init(sampleRate: Int, channels: Int) throws(OpusError) {
        try LibOpus.load()
        guard LibOpus.sampleRates.contains(sampleRate) else {
            throw OpusError("Opus decodes at \(LibOpus.sampleRates.map(String.init).joined(separator: ", ")) Hz, not \(sampleRate)")
        }
        guard channels == 1 || channels == 2 else { throw OpusError("cafconv decodes Opus in 1 or 2 channels, not \(channels)") }
        var error: Int32 = 0
        guard let made = cafconv_opus_decoder_create(Int32(sampleRate), Int32(channels), &error) else {
            throw OpusError("libopus cannot make a decoder: \(LibOpus.sentence(error))")
        }
        handle = made
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { cafconv_opus_decoder_destroy(handle) }

    /// Decodes one packet into `samples` (grown to ``maximumFramesPerPacket`` frames if smaller);
    /// returns the frames decoded.
    public func decode(_ packet: UnsafeRawBufferPointer, into samples: inout [Float]) throws(OpusError) -> Int {
        let room = maximumFramesPerPacket
        if samples.count < room * channels { samples = [Float](repeating: 0, count: room * channels) }
        guard let base = packet.baseAddress, packet.count > 0, let bytes = Int32(exactly: packet.count) else {
            throw OpusError("an Opus packet of \(packet.count) bytes cannot be decoded")
        }
        let frames = samples.withUnsafeMutableBufferPointer { out in
            cafconv_opus_decode_float(handle, base.assumingMemoryBound(to: UInt8.self), bytes, out.baseAddress, Int32(room))
        }
        guard frames >= 0 else { throw OpusError("libopus cannot decode the packet: \(LibOpus.sentence(frames))") }
        return Int(frames)
    }
}
