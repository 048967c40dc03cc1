import CAFKit
import ConversionModel
import OutputFiles

/// The one sample comparison that `convert`'s proof, the direct payload's probe and
/// `verify --against` share: a source's samples mapped by the conversion rules (`SampleScaling`)
/// against the samples a CAF's bytes decode to.
package enum SampleComparison {
    /// Where the first difference is (the sample index across channels) and the two values.
    package struct Difference {
        package var index: Int
        package var expected: String
        package var found: String
    }

    /// The first sample where the CAF's bytes differ from the source's samples mapped as `convert` maps them.
    package static func firstDifference(
        layout: PCMLayout, bytes: ArraySlice<UInt8>, sourceIsFloat: Bool, ints: [Int32],
        doubles: [Double], samples: Int
    ) -> Difference? {
        if layout.isFloat {
            let found = layout.decodeFloats(bytes)
            for index in 0..<samples {
                var expected = sourceIsFloat ? doubles[index] : SampleScaling.float(ints[index])
                if layout.bits == 32 { expected = Double(Float(expected)) }
                if found[index] != expected && !(found[index].isNaN && expected.isNaN) {
                    return Difference(index: index, expected: "\(expected)", found: "\(found[index])")
                }
            }
            return nil
        }
        let found = layout.decodeIntegers(bytes)
        let shift = Int32(32 - layout.bits)
        var mapped = ints
        if sourceIsFloat {
            SampleScaling.floatsToIntegers(doubles, into: &mapped, count: samples, bits: layout.bits)
        }
        for index in 0..<samples where mapped[index] >> shift != found[index] {
            return Difference(index: index, expected: "\(mapped[index] >> shift)", found: "\(found[index])")
        }
        return nil
    }
}

/// The documented mapping between integer and float samples. Integers of N bits map to floats by
/// dividing by 2^(N-1): full scale -2^(N-1) is exactly -1.0 and 2^(N-1)-1 is 1 - 2^-(N-1).
/// Floats map back by multiplying by 2^(N-1), rounding to nearest (ties to even) and clipping.
public enum SampleScaling {
    /// Left-justified 32-bit integers to floats: `x / 2^31`, which is `s / 2^(N-1)` for an N-bit `s`.
    public static func integersToFloats(_ source: [Int32], into target: inout [Double], count: Int) {
        for index in 0..<count { target[index] = float(source[index]) }
    }

    /// The first `count` samples as single-precision floats for an encoder or a comparison:
    /// `ints` (left-justified, `x / 2^31`) when given, else `doubles` narrowed. `Float(x) * 2^-31`
    /// equals `Float(x / 2^31)` (scaling by a power of two commutes with rounding), so this is
    /// ``float(_:)`` narrowed, on buffers so the loop vectorises.
    public static func floats(from ints: [Int32]?, _ doubles: [Double], count: Int, into target: inout [Float]) {
        let scale: Float = 1 / 2_147_483_648
        target.withUnsafeMutableBufferPointer { target in
            let count = min(count, target.count)
            if let ints {
                ints.withUnsafeBufferPointer { ints in
                    for index in 0..<min(count, ints.count) { target[index] = Float(ints[index]) * scale }
                }
            } else {
                doubles.withUnsafeBufferPointer { doubles in
                    for index in 0..<min(count, doubles.count) { target[index] = Float(doubles[index]) }
                }
            }
        }
    }

    /// One left-justified 32-bit integer as a float: `x / 2^31`.
    @inline(__always) public static func float(_ sample: Int32) -> Double { Double(sample) / 2_147_483_648.0 }

    /// Floats to left-justified integers of `bits` bits: round(x * 2^(bits-1)), clipped, shifted left.
    public static func floatsToIntegers(_ source: [Double], into target: inout [Int32], count: Int, bits: Int) {
        let scale = Double(Int64(1) << (bits - 1))
        let high = scale - 1
        let low = -scale
        let shift = Int32(32 - bits)
        for index in 0..<count {
            var value = (source[index] * scale).rounded(.toNearestOrEven)
            if value.isNaN { value = 0 }
            value = min(max(value, low), high)
            target[index] = Int32(value) << shift
        }
    }
}
