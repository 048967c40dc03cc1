import BinaryIO
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

@Suite("--shard K/N: a stable share, shards' union equals one full run, manifests merge")
struct ShardTests {
    @Test("K/N parses; bad forms are errors", arguments: ["0/4", "5/4", "1/0", "a/4", "1/", "1", "1/4/2", "-1/4"])
    func badShards(text: String) {
        #expect(throws: DataFormatError.self) { try Shard(parsing: text) }
    }

    @Test(
        "the hash is fixed (FNV-1a + SplitMix64's finaliser, values from an independent Python reference), so every machine agrees"
    )
    func fixedHash() throws {
        let frozen: [(String, UInt64)] = [
            ("", 0xf52a_15e9_a9b5_e89b), ("a.caf", 0xb872_2a36_77ec_94f2), ("sfx/hit.caf", 0x8c75_95af_5c85_8eb3),
            ("ui/deep/f1.caf", 0x743f_c167_d45f_6f01),
        ]
        for (path, value) in frozen { #expect(Shard.hash(path) == value, "\(path)") }
        #expect(try Shard(parsing: "4/4").contains("sfx/hit.caf"))
        #expect(try Shard(parsing: "2/4").contains("ui/deep/f1.caf"))
    }

    @Test("every file is in exactly one shard, shares are balanced, and adding files moves none")
    func partition() throws {
        let shards = try (1...4).map { try Shard(parsing: "\($0)/4") }
        let paths = (0..<2000).map { "sfx/folder\($0 % 37)/file\($0).caf" }
        var sizes = [0, 0, 0, 0]
        for path in paths {
            let owners = shards.filter { $0.contains(path) }
            #expect(owners.count == 1)
            if let owner = owners.first { sizes[owner.index - 1] += 1 }
        }
        #expect(sizes.allSatisfy { $0 > 400 && $0 < 600 }, "\(sizes)")
        // The owner of a path depends on nothing else: the same with more files around.
        let before = paths.map { path in shards.first { $0.contains(path) }?.index }
        let more = paths + (0..<500).map { "new/\($0).caf" }
        let after = more.prefix(paths.count).map { path in shards.first { $0.contains(path) }?.index }
        #expect(before == after)
    }

    /// Copies every file under `from` into `to` keeping modification times (as `cp -a` does).
    func gather(_ from: String, into to: String) throws {
        let result = try run("/bin/cp", ["-a", from + "/.", to])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(
        "4 shards gathered into one folder: the CAF files equal one full run's byte for byte; a full run over them converts nothing; --check passes per shard and on the union"
    )
    func fourShardsAgainstOneRun() throws {
        let folder = TempDirectory()
        for index in 0..<24 {
            let name = "in/" + (index % 2 == 0 ? "sfx/" : "ui/deep/") + "f\(index).wav"
            folder.write(name, WAVFixture.signal(.int16, channels: 1 + index % 2, frames: 200 + index, seed: UInt64(index)).bytes)
        }
        let full = Engine.run(inputs: [folder.file("in")], output: folder.file("full"), options: ConversionOptions(jobs: 2))
        #expect(full.totals.converted == 24)
        var total = 0
        for index in 1...4 {
            var options = ConversionOptions(jobs: 2)
            options.shard = try Shard(parsing: "\(index)/4")
            let shard = Engine.run(inputs: [folder.file("in")], output: folder.file("shard\(index)"), options: options)
            #expect(shard.totals.failed == 0)
            #expect(exists(folder.file("shard\(index)/.cafconv-manifest.shard-\(index)-of-4")))
            #expect(!exists(folder.file("shard\(index)/.cafconv-manifest")))
            #expect(exists(folder.file("shard\(index)/.cafconv-manifest.shards")))
            total += shard.totals.converted
            // --check of the shard: its share is current.
            options.dryRun = true
            let check = Engine.run(inputs: [folder.file("in")], output: folder.file("shard\(index)"), options: options)
            #expect(check.isCurrent && check.totals.upToDate == shard.totals.converted)
            try gather(folder.file("shard\(index)"), into: folder.file("union"))
        }
        #expect(total == 24)
        // Byte-identical CAF files (the manifests, which record times, excepted).
        let fullFiles = tree(folder.file("full")).filter { $0.hasSuffix(".caf") }
        let unionFiles = tree(folder.file("union")).filter { $0.hasSuffix(".caf") }
        #expect(fullFiles == unionFiles && fullFiles.count == 24)
        for name in fullFiles {
            #expect(readFile(folder.file("full/" + name)) == readFile(folder.file("union/" + name)), "\(name)")
        }
        // --check on the union reads the four shard manifests: everything is current.
        let check = Engine.run(
            inputs: [folder.file("in")], output: folder.file("union"), options: ConversionOptions(jobs: 2, dryRun: true))
        #expect(check.isCurrent && check.totals.upToDate == 24, "\(check.totals)")
        // A full run over the union converts nothing and merges the manifests into one.
        let before = fullFiles.map { stamp(folder.file("union/" + $0)) }
        let again = Engine.run(inputs: [folder.file("in")], output: folder.file("union"), options: ConversionOptions(jobs: 2))
        #expect(again.totals.converted == 0 && again.totals.upToDate == 24 && again.totals.failed == 0)
        #expect(fullFiles.map { stamp(folder.file("union/" + $0)) } == before)
        let manifests = tree(folder.file("union")).filter { $0.hasPrefix(".cafconv-manifest") }
        #expect(manifests == [".cafconv-manifest"])
        let merged = String(decoding: readFile(folder.file("union/.cafconv-manifest")) ?? [], as: UTF8.self)
        #expect(merged.split(separator: "\n").count == 24 + 2)
        let last = Engine.run(inputs: [folder.file("in")], output: folder.file("union"), options: ConversionOptions(jobs: 2))
        #expect(last.totals.upToDate == 24 && last.totals.converted == 0)
    }
}

/// Issue 34: shards, caches and gathers compose.
@Suite("shards over a cached output folder, gathers copied plainly")
struct ShardCacheTests {
    let options = ConversionOptions(jobs: 2)
    func shard(_ text: String, _ base: ConversionOptions = ConversionOptions(jobs: 2)) throws -> ConversionOptions {
        var options = base
        options.shard = try Shard(parsing: text)
        return options
    }

    @Test("a shard run over a folder a full run made (a restored cache) converts nothing")
    func shardOverCache() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 8)
        let input = folder.file("in")
        #expect(Engine.convert(inputs: [input], output: folder.file("out"), options: options).totals.converted == 8)
        var upToDate = 0
        for text in ["1/2", "2/2"] {
            let report = Engine.convert(inputs: [input], output: folder.file("out"), options: try shard(text))
            #expect(report.totals.converted == 0, "\(text): \(report.files.map { ($0.status, $0.reason ?? "") })")
            upToDate += report.totals.upToDate
        }
        #expect(upToDate == 8)
        // And the gather of those shard records with the main manifest is a no-op.
        #expect(Engine.convert(inputs: [input], output: folder.file("out"), options: options).totals.upToDate == 8)
    }

    @Test("a gather prefers the shards' records to a stale manifest from a cache")
    func gatherPrefersShards() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 8)
        let input = folder.file("in")
        let out = folder.file("out")
        _ = Engine.convert(inputs: [input], output: out, options: options)
        let stale = try #require(readFile(folder.file("out/.cafconv-manifest")))
        // The shards convert with other options; the gathered folder still holds the old manifest.
        var lei24 = ConversionOptions(jobs: 2)
        lei24.dataFormat = try DataFormat(parsing: "LEI24")
        for text in ["1/2", "2/2"] {
            #expect(Engine.convert(inputs: [input], output: out, options: try shard(text, lei24)).totals.failed == 0)
        }
        writeFile(folder.file("out/.cafconv-manifest"), stale)
        let gathered = Engine.convert(inputs: [input], output: out, options: lei24)
        #expect(gathered.totals.upToDate == 8 && gathered.totals.converted == 0, "\(gathered.files.map { $0.reason ?? "" })")
    }

    @Test("--prune --shard prunes the orphans of its share, recorded in the folder's own manifest")
    func pruneWithShard() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 8)
        let input = folder.file("in")
        let out = folder.file("out")
        _ = Engine.convert(inputs: [input], output: out, options: options)
        unlink(folder.file("in/f1.wav"))
        unlink(folder.file("in/f2.wav"))
        var pruned = 0
        for text in ["1/2", "2/2"] {
            var prune = try shard(text)
            prune.prune = true
            let report = Engine.convert(inputs: [input], output: out, options: prune)
            pruned += report.totals.pruned
        }
        #expect(pruned == 2)
        #expect(!exists(folder.file("out/f1.caf")) && !exists(folder.file("out/f2.caf")))
    }

    @Test("shard outputs gathered with a plain cp -r (no times kept): --check passes and a full run converts nothing")
    func plainCopyGather() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 8)
        let input = folder.file("in")
        for index in 1...2 {
            _ = Engine.convert(inputs: [input], output: folder.file("shard\(index)"), options: try shard("\(index)/2"))
        }
        _ = try run("/bin/mkdir", ["-p", folder.file("gather")])
        for index in 1...2 {
            _ = try run("/bin/sh", ["-c", "cp -r \"$0\"/. \"$1\"", folder.file("shard\(index)"), folder.file("gather")])
        }
        let check = Engine.convert(inputs: [input], output: folder.file("gather"), options: ConversionOptions(jobs: 2, dryRun: true))
        #expect(check.isCurrent && check.totals.upToDate == 8, "\(check.files.map { ($0.status, $0.reason ?? "") })")
        let full = Engine.convert(inputs: [input], output: folder.file("gather"), options: options)
        #expect(full.totals.converted == 0 && full.totals.upToDate == 8)
    }
}
