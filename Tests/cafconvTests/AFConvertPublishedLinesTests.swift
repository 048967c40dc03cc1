import BinaryIO
import CAFKit
import Foundation
import TestSupport
import Testing

/// Published afconvert command lines for CAF output (issue 32), each run unchanged through
/// `cafconv afconvert` on generated inputs. docs/afconvert.md lists the same table.
@Suite("published afconvert lines, end to end")
struct AFConvertPublishedLinesTests {
    struct Line: Sendable, CustomTestStringConvertible {
        /// The words after `afconvert`, as the shell passes them (quotes removed; a script's
        /// variable given the value noted in `source`).
        var words: [String]
        /// Where it was published.
        var source: String
        /// The file the line reads (made by the test, WAV bytes whatever its name: cafconv tells
        /// the container by content; what is tested is the command line).
        var input: String
        /// The file it writes, and its data format.
        var output: String
        var format: FourCC
        var testDescription: String { words.joined(separator: " ") }
    }

    static let lines: [Line] = [
        Line(
            words: ["-f", "caff", "-d", "LEI16", "early_exit.wav", "early_exit.caf"],
            source: "https://schimera.com/articles/convert-wav-files-to-caf-for-ios-and-tvos/", input: "early_exit.wav",
            output: "early_exit.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "myAudio1.wav", "myAudio1.caf"],
            source: "http://www.permadi.com/blog/2009/05/exporting-audio-file-to-caf/", input: "myAudio1.wav",
            output: "myAudio1.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "ima4", "myAudio2.wav", "myAudio2.caf"],
            source: "http://www.permadi.com/blog/2009/05/exporting-audio-file-to-caf/", input: "myAudio2.wav",
            output: "myAudio2.caf", format: .ima4),
        Line(
            words: ["-v", "-f", "caff", "-d", "aac", "-s", "1", "-b", "192000", "MySource.aif", "MyOutput.caf"],
            source: "Apple Technical Q&A QA1534, Listing 1 (https://leopard-adc.pepas.com/qa/qa2008/qa1534.html)",
            input: "MySource.aif", output: "MyOutput.caf", format: .aac),
        Line(
            words: ["Submarine.aiff", "sub.caf", "-d", "ima4", "-f", "caff", "-v"],
            source: "Apple's iPhone system sound documentation, quoted at http://anuragsolanki.com/2010/03/",
            input: "Submarine.aiff", output: "sub.caf", format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "LEI16@44100", "-c", "1", "in.wav", "out.caf"],
            source: "issue 32 (a line from public Xcode build scripts)", input: "in.wav", output: "out.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "LEI16@44100", "-c", "1", "input.wav", "output.caf"],
            source: "https://developer.aliyun.com/article/402125", input: "input.wav", output: "output.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "ima4", "-c", "1", "sound.wav"],
            source: "https://github.com/tido64/rainbow/blob/HEAD/tools/afconvert.sh ($2 = sound.wav)", input: "sound.wav",
            output: "sound.caf", format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "LEI16@44100", "-c", "1", "music.wav"],
            source: "https://github.com/tido64/rainbow/blob/HEAD/tools/afconvert.sh ($1 = music.wav)", input: "music.wav",
            output: "music.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "jump.wav"],
            source:
                "https://github.com/initials/SLF_SOURCE/blob/HEAD/resource_final/sfxConverter/converttocaf.sh ($f = jump.wav)",
            input: "jump.wav", output: "jump.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "song.mp3", "song.caf"],
            source:
                "https://github.com/iKilledAppl3/CoreAudioFormatConverter/blob/HEAD/cafconv.sh ($f = song.mp3, ${f/mp3/caf} = song.caf)",
            input: "song.mp3", output: "song.caf", format: .lpcm),
        Line(
            words: ["-d", "LEI16", "-f", "caff", "notification.xxx", "notification.caf"],
            source: "https://github.com/nceruchalu/gravvy-ios/blob/HEAD/Gravvy/Resources/Sounds/README.md (-f 'caff')",
            input: "notification.xxx", output: "notification.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "aac", "-c", "1", "{input_file_name}", "{output_file_name}.caf"],
            source: "https://github.com/nicklockwood/SoundManager/blob/HEAD/README.md (background music, mono)",
            input: "{input_file_name}", output: "{output_file_name}.caf", format: .aac),
        Line(
            words: ["-f", "caff", "-d", "aac", "{input_file_name}", "{output_file_name}.caf"],
            source: "https://github.com/nicklockwood/SoundManager/blob/HEAD/README.md (background music, stereo)",
            input: "{input_file_name}", output: "{output_file_name}.caf", format: .aac),
        Line(
            words: ["-f", "caff", "-d", "ima4", "-c", "1", "{input_file_name}", "{output_file_name}.caf"],
            source: "https://github.com/nicklockwood/SoundManager/blob/HEAD/README.md (sound effects, mono)",
            input: "{input_file_name}", output: "{output_file_name}.caf", format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "ima4", "{input_file_name}", "{output_file_name}.caf"],
            source: "https://github.com/nicklockwood/SoundManager/blob/HEAD/README.md (sound effects, stereo)",
            input: "{input_file_name}", output: "{output_file_name}.caf", format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "MenuTheme.mp3", "MenuTheme.caf"],
            source:
                "https://thearchivebase.com/question/possible-duplicate-playing-a-caf-file-works-fine-in-simulator-but-not-in-iphone/",
            input: "MenuTheme.mp3", output: "MenuTheme.caf", format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "ima4", "bgm.mp3", "bgm.caf"], source: "http://eien.seesaa.net/article/422019423.html",
            input: "bgm.mp3", output: "bgm.caf", format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "{INPUT}", "{OUTPUT}"],
            source: "https://github.com/BlueBubblesApp/bluebubbles-server/issues/96", input: "{INPUT}", output: "{OUTPUT}",
            format: .lpcm),
        Line(
            words: ["-f", "caff", "-d", "aac", "sound.m4a", "sound.caf"],
            source: "http://technical-iphone.blogspot.com/2010/11/blog-post.html", input: "sound.m4a", output: "sound.caf",
            format: .aac),
        Line(
            words: ["-f", "caff", "-d", "ima4", "sound.mp3", "sound.caf"],
            source: "http://technical-iphone.blogspot.com/2010/11/blog-post.html", input: "sound.mp3", output: "sound.caf",
            format: .ima4),
        Line(
            words: ["-f", "caff", "-d", "LEI16", "sound.wav"], source: "http://technical-iphone.blogspot.com/2010/11/blog-post.html",
            input: "sound.wav", output: "sound.caf", format: .lpcm),
    ]

    @Test("published afconvert lines for CAF output run unchanged", arguments: lines)
    func publishedLine(_ line: Line) throws {
        let folder = TempDirectory()
        let tone = (0..<22050).flatMap { frame -> [Int32] in
            let value = Int32((sin(Double(frame) * 2 * .pi * 440 / 44100) * 16000).rounded())
            return [value, value]
        }
        _ = folder.write(line.input, WAVFixture(encoding: .int16, channels: 2, integers: tone).bytes)
        let result = try run(RepositoryPaths.executable, ["afconvert"] + line.words, currentDirectory: folder.path)
        #expect(result.status == 0, "\(line.source): \(result.stderr)")
        let written = try CAFFile(reading: MemoryByteSource(try #require(readFile(folder.file(line.output)))))
        #expect(written.audioDescription.formatID == line.format, "\(line.source)")
        #expect(!exists(folder.file(".cafconv-manifest")), "\(line.source)")
    }

    @Test("the table has at least 20 lines with where each was published, and docs/afconvert.md lists each line")
    func table() throws {
        #expect(Self.lines.filter { $0.source.contains("http") }.count >= 20)
        let documentation = try #require(readFile(RepositoryPaths.root + "/docs/afconvert.md"))
        let text = String(decoding: documentation, as: UTF8.self)
        for line in Self.lines {
            #expect(text.contains("`afconvert \(line.words.joined(separator: " "))`"), "\(line.words)")
        }
    }
}
