internal import CSoxr

/// An error from libsoxr, with its message.
public struct ResamplerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libsoxr's message, or what cafconv asked that it could not do.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// libsoxr's quality recipes, best first.
public enum ResamplerQuality: String, Sendable, CaseIterable, Codable {
    /// `SOXR_VHQ`: 28-bit precision (double-precision engine), 91.3% passband, linear phase.
    case vhq
    /// `SOXR_HQ`: 20-bit precision, 91.3% passband, linear phase.
    case hq
    /// `SOXR_MQ`: 16-bit precision, medium roll-off.
    case mq
    /// `SOXR_LQ`: 16-bit precision, larger roll-off.
    case lq
    /// `SOXR_QQ`: quick cubic interpolation (no anti-aliasing filter worth the name).
    case qq

    var recipe: UInt {
        switch self {
        case .vhq: return UInt(SOXR_VHQ)
        case .hq: return UInt(SOXR_HQ)
        case .mq: return UInt(SOXR_MQ)
        case .lq: return UInt(SOXR_LQ)
        case .qq: return UInt(SOXR_QQ)
        }
    }

    /// The name reports show: `VHQ`, `HQ`...
    public var displayName: String { rawValue.uppercased() }
}

/// A streaming libsoxr resampler of interleaved `Double` frames (`soxr_create` with
/// `SOXR_FLOAT64_I` in and out, linear phase, one thread: the same input gives the same output
/// bits, whatever else runs). libsoxr removes its own latency: the output's frame `k` is the
/// input at time `k / outputRate`, and after ``flush(into:)`` the output holds
/// `round(inputFrames * outputRate / inputRate)` frames. Owns the C state; `deinit` frees it.
public final class Resampler {
    private let handle: soxr_t
    /// Channels per frame.
    public let channels: Int
    /// Input and output rates in Hz.
    public let inputRate: Double, outputRate: Double

    /// Creates a resampler from `inputRate` to `outputRate` for `channels` interleaved channels.
    public init(inputRate: Double, outputRate: Double, channels: Int, quality: ResamplerQuality) throws(ResamplerError) {
        guard channels > 0, inputRate > 0, outputRate > 0, inputRate.isFinite, outputRate.isFinite else {
            throw ResamplerError("cannot resample \(channels) channels from \(inputRate) to \(outputRate) Hz")
        }
        // libsoxr is opened here, at the first resampler: a run that does not resample never maps it.
        if let reason = cafconv_soxr_load() { throw ResamplerError(String(cString: reason)) }
        var io = cafconv_soxr_io_spec(SOXR_FLOAT64_I, SOXR_FLOAT64_I)
        var spec = cafconv_soxr_quality_spec(quality.recipe, 0)
        var runtime = cafconv_soxr_runtime_spec(1)
        var error: soxr_error_t? = nil
        guard let created = cafconv_soxr_create(inputRate, outputRate, UInt32(channels), &error, &io, &spec, &runtime), error == nil
        else {
            let message = error.map { String(cString: $0) } ?? "soxr_create failed"
            throw ResamplerError("libsoxr cannot resample \(inputRate) Hz to \(outputRate) Hz: \(message)")
        }
        handle = created
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    deinit { cafconv_soxr_delete(handle) }

    /// Feeds `frames` interleaved frames from `input` (an empty buffer with 0 frames ends the
    /// input: libsoxr then flushes what it holds) and writes up to `capacity` frames into `output`;
    /// returns the frames consumed and the frames written.
    public func process(
        _ input: UnsafeBufferPointer<Double>?, frames: Int, into output: UnsafeMutableBufferPointer<Double>, capacity: Int
    ) throws(ResamplerError) -> (consumed: Int, written: Int) {
        precondition(capacity * channels <= output.count && frames * channels <= (input?.count ?? 0))
        var used = 0
        var made = 0
        let error: soxr_error_t?
        if let input, frames > 0 {
            error = cafconv_soxr_process(handle, input.baseAddress, frames, &used, output.baseAddress, capacity, &made)
        } else {
            error = cafconv_soxr_process(handle, nil, 0, nil, output.baseAddress, capacity, &made)
        }
        if let error { throw ResamplerError("libsoxr failed: \(String(cString: error))") }
        return (used, made)
    }

    /// libsoxr's version string.
    public static var libraryVersion: String { String(cString: cafconv_soxr_version()) }
}
