import CAVCodec

/// Why libavcodec could not be loaded, or could not encode or decode: one sentence.
public struct AACCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Calls `body` with a zeroed error buffer and returns the C text it left there.
func withErrorBuffer<Result>(_ body: (UnsafeMutablePointer<CChar>, Int) -> Result) -> (Result, String) {
    var buffer = [CChar](repeating: 0, count: 512)
    let result = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return (result, text)
}

/// libavcodec, loaded with `dlopen` at the first AAC job (never linked), so a process that only
/// converts linear PCM never maps it.
public enum LibAVCodec {
    /// Loads libavcodec and libavutil of the major version cafconv was built with (once per
    /// process); throws a sentence naming the Debian package when they cannot be loaded.
    public static func load() throws(AACCodecError) {
        let (status, message) = withErrorBuffer { cafconv_av_load($0, $1) }
        if status != 0 { throw AACCodecError(message) }
    }

    /// Whether libavcodec can be loaded here.
    public static var isAvailable: Bool { (try? load()) != nil }

    /// The loaded libavcodec's version (`59.37.100`); empty before a successful `load()`.
    public static var version: String { String(cString: cafconv_av_version()) }

    /// The library file cafconv loads (`libavcodec.so.59`).
    public static var libraryName: String { String(cString: cafconv_av_library_name()) }

    /// The encoder's identity for fingerprints and reports: `libavcodec-59.37.100-aac`, or
    /// `libavcodec-unavailable` when it cannot be loaded.
    public static var encoderIdentity: String {
        isAvailable ? "libavcodec-\(version)-aac" : "libavcodec-unavailable"
    }
}

/// libavcodec's native AAC-LC encoder, fed interleaved floats, giving raw AAC packets of
/// `framesPerPacket` frames each (the first `priming` decoded frames are the encoder's delay).
public final class AACEncoder {
    private let handle: OpaquePointer
    /// Channels per frame.
    public let channels: Int
    /// The encoder's delay in frames (what a decoder drops: `pakt` priming frames).
    public let priming: Int
    /// Frames per packet (1024).
    public let framesPerPacket: Int
    /// The MPEG-4 AudioSpecificConfig (the `kuki` carries it in an ES_Descriptor).
    public let audioSpecificConfig: [UInt8]

    /// Opens an encoder; `bitRate` counts all channels together.
    public init(sampleRate: Int, channels: Int, bitRate: Int) throws(AACCodecError) {
        let (pointer, message) = withErrorBuffer {
            cafconv_aac_encoder_open(Int32(clamping: sampleRate), Int32(clamping: channels), Int64(bitRate), $0, $1)
        }
        guard let pointer else { throw AACCodecError(message) }
        handle = pointer
        self.channels = channels
        priming = Int(cafconv_aac_encoder_priming(pointer))
        framesPerPacket = Int(cafconv_aac_encoder_frame_size(pointer))
        var bytes: UnsafePointer<UInt8>?
        let count = Int(cafconv_aac_encoder_config(pointer, &bytes))
        audioSpecificConfig = bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    deinit { cafconv_aac_encoder_close(handle) }

    /// Encodes the first `frames` interleaved frames of `samples` and hands each finished packet to `packet`.
    public func encode(
        _ samples: [Float], frames: Int, packet: (UnsafeRawBufferPointer) throws(AACCodecError) -> Void
    ) throws(AACCodecError) {
        guard frames > 0, frames * channels <= samples.count else { return }
        var done = 0
        while done < frames {
            let (taken, message) = withErrorBuffer { error, size in
                samples.withUnsafeBufferPointer {
                    cafconv_aac_encoder_send(
                        handle, $0.baseAddress.map { $0 + done * channels }, Int32(clamping: frames - done), error, size)
                }
            }
            if taken < 0 { throw AACCodecError(message) }
            done += Int(taken)
            try drain(packet)
        }
    }

    /// Encodes the frames held back and flushes the encoder, handing every last packet to `packet`.
    public func finish(packet: (UnsafeRawBufferPointer) throws(AACCodecError) -> Void) throws(AACCodecError) {
        let (status, message) = withErrorBuffer { cafconv_aac_encoder_send(handle, nil, 0, $0, $1) }
        if status < 0 { throw AACCodecError(message) }
        try drain(packet)
    }

    private func drain(_ packet: (UnsafeRawBufferPointer) throws(AACCodecError) -> Void) throws(AACCodecError) {
        while true {
            var bytes: UnsafePointer<UInt8>?
            let (size, message) = withErrorBuffer { cafconv_aac_encoder_receive(handle, &bytes, $0, $1) }
            if size == -1 || size == -2 { return }
            if size < 0 { throw AACCodecError(message) }
            try packet(UnsafeRawBufferPointer(start: bytes, count: Int(size)))
        }
    }
}

/// libavcodec's AAC decoder: packets in (from a `pakt` table), interleaved floats out, every
/// decoded frame including the priming frames (the caller drops them).
public final class AACDecoder {
    private let handle: OpaquePointer
    /// Channels per frame.
    public let channels: Int

    /// Opens a decoder for the AudioSpecificConfig `config`.
    public init(config: [UInt8], sampleRate: Int, channels: Int) throws(AACCodecError) {
        let (pointer, message) = withErrorBuffer { error, size in
            config.withUnsafeBufferPointer {
                cafconv_aac_decoder_open(
                    $0.baseAddress, Int32(clamping: $0.count), Int32(clamping: sampleRate), Int32(clamping: channels), error,
                    size)
            }
        }
        guard let pointer else { throw AACCodecError(message) }
        handle = pointer
        self.channels = channels
    }

    deinit { cafconv_aac_decoder_close(handle) }

    /// Decodes one packet and appends its frames (interleaved) to `output`.
    public func decode(_ packet: [UInt8], into output: inout [Float]) throws(AACCodecError) {
        // An empty packet would end libavcodec's stream.
        guard !packet.isEmpty else { throw AACCodecError("an AAC packet of 0 bytes") }
        let (status, message) = withErrorBuffer { error, size in
            packet.withUnsafeBufferPointer {
                cafconv_aac_decoder_send(handle, $0.baseAddress, Int32(clamping: $0.count), error, size)
            }
        }
        if status < 0 { throw AACCodecError(message) }
        try drain(into: &output)
    }

    /// Flushes the decoder, appending what it still holds to `output`.
    public func finish(into output: inout [Float]) throws(AACCodecError) {
        let (status, message) = withErrorBuffer { cafconv_aac_decoder_send(handle, nil, 0, $0, $1) }
        if status < 0 { throw AACCodecError(message) }
        try drain(into: &output)
    }

    private func drain(into output: inout [Float]) throws(AACCodecError) {
        while true {
            let (frames, message) = withErrorBuffer { cafconv_aac_decoder_receive(handle, $0, $1) }
            if frames == -1 || frames == -2 { return }
            if frames < 0 { throw AACCodecError(message) }
            if frames == 0 { continue }
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: Int(frames) * channels))
            output.withUnsafeMutableBufferPointer { cafconv_aac_decoder_take(handle, $0.baseAddress! + start) }
        }
    }
}
