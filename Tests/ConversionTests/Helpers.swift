import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

/// A converted fixture: the report record, the output path and the output as CAFKit reads it.
struct Converted {
    var result: FileResult
    var path: String
    var file: CAFFile
    var bytes: [UInt8]
    /// Keeps the folder (and the output) alive as long as this value.
    var folder: TempDirectory
}

/// Writes `fixture` into a fresh folder, converts it with `options`, and reads the output back.
func convert(
    _ fixture: [UInt8], name: String = "in.wav", options: ConversionOptions = ConversionOptions(jobs: 1),
    in folder: TempDirectory = TempDirectory()
) throws -> Converted {
    let input = folder.write(name, fixture)
    let output = folder.file("out.caf")
    let report = Engine.convert(inputs: [input], output: output, options: options)
    let result = try #require(report.files.first)
    try #require(result.status == .converted, "conversion failed: \(result.reason ?? "")")
    let bytes = try #require(readFile(output))
    let file = try CAFFile(reading: MemoryByteSource(bytes))
    return Converted(result: result, path: output, file: file, bytes: bytes, folder: folder)
}

/// Checks the chunk layout rules every output must meet, with our own parser.
func expectCleanLayout(_ file: CAFFile, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(file.chunks.first?.type == .desc, "desc must come first", sourceLocation: sourceLocation)
    #expect(file.chunks.filter { $0.type == .data }.count == 1, "exactly one data chunk", sourceLocation: sourceLocation)
    #expect(file.chunks.last?.type == .data, "data must be the last chunk", sourceLocation: sourceLocation)
    #expect(file.chunks.last?.end == file.fileLength, "no stray bytes after the last chunk", sourceLocation: sourceLocation)
    #expect(file.warnings.isEmpty, "reader warnings: \(file.warnings)", sourceLocation: sourceLocation)
    #expect(CAFValidator.validate(file).isEmpty, "\(CAFValidator.validate(file))", sourceLocation: sourceLocation)
}

/// The audio bytes of a CAF held in memory.
func audio(_ converted: Converted) -> ArraySlice<UInt8> {
    let start = Int(converted.file.audioOffset)
    return converted.bytes[start..<start + Int(converted.file.audioBytes)]
}

/// Integer samples decoded by CAFKit (not libsndfile).
func decodedIntegers(_ converted: Converted) throws -> [Int32] {
    let layout = try #require(PCMLayout(converted.file.audioDescription))
    return layout.decodeIntegers(audio(converted))
}

/// Float samples decoded by CAFKit (not libsndfile).
func decodedFloats(_ converted: Converted) throws -> [Double] {
    let layout = try #require(PCMLayout(converted.file.audioDescription))
    return layout.decodeFloats(audio(converted))
}

/// Checks that the output, decoded by CAFKit, holds the fixture's samples exactly (integers as
/// signed values at the source's precision, so unsigned 8-bit sources compare as signed I8).
func expectSameSamples(
    _ converted: Converted, _ fixture: WAVFixture, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    if fixture.encoding.isFloat {
        expectSameSamples(try decodedFloats(converted), fixture.floats, sourceLocation: sourceLocation)
    } else {
        expectSameSamples(try decodedIntegers(converted), fixture.integers, sourceLocation: sourceLocation)
    }
}

/// Compares two sample arrays and, when they differ, reports the count and the first difference
/// instead of printing both arrays.
func expectSameSamples<T: Equatable>(
    _ found: [T], _ expected: [T], _ what: String = "samples",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    if found == expected { return }
    let index = (0..<min(found.count, expected.count)).first { found[$0] != expected[$0] } ?? min(found.count, expected.count)
    let have = index < found.count ? "\(found[index])" : "nothing"
    let want = index < expected.count ? "\(expected[index])" : "nothing"
    Issue.record(
        "\(what) differ: \(found.count) vs \(expected.count) values; first difference at \(index): found \(have), expected \(want)",
        sourceLocation: sourceLocation)
}
