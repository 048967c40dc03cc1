import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import WAVEKit

/// How the loops, markers and text of a WAV, AIFF or CAF source become CAF chunks
/// (docs/metadata.md). The mapping is pure: it reads parsed chunk values and makes
/// ``CAFMetadata``; ``CAFMetadata/rescaled(sourceRate:outputRate:outputFrames:)`` then moves the
/// positions to the output's rate and length, and any header writer places the chunks with
/// ``CAFWriter/placeBeforeData(leading:metadata:dataChunkOffset:pageSize:)``.
public enum MetadataMapping {
    /// The `LIST`/`INFO` IDs that have an Apple `info` key. Other IDs keep their four characters
    /// as the key (`IENG`, `ISRC`...), so nothing is lost.
    public static let infoKeys: [String: String] = [
        "INAM": "title", "IART": "artist", "IBPM": "tempo", "ICMT": "comments", "ICOP": "copyright", "ICRD": "recorded date",
        "IGNR": "genre", "IPRD": "album", "ITRK": "track number", "IPRT": "track number",
        "ISFT": "encoding application", "IMUS": "composer", "IWRI": "lyricist",
    ]

    /// The AIFF text chunks' Apple `info` keys.
    public static let aiffTextKeys: [String: String] = [
        "NAME": "title", "AUTH": "artist", "(c)": "copyright", "ANNO": "comments",
    ]

    /// The metadata of the file `source` holds (WAV, RIFX, RF64, AIFF, AIFF-C or CAF, told from its
    /// first bytes), with what could not be carried. A file none of the readers can parse has none.
    /// Memory is bounded by the readers' metadata budgets.
    public static func read(_ source: some ByteSource) -> (CAFMetadata, [MetadataWarning]) {
        let prefix = (try? source.read(at: 0, count: 12)) ?? []
        switch Container.detect(prefix) {
        case .wav?, .rifx?, .rf64?:
            guard let wave = try? WAVEFile(reading: source) else { return (CAFMetadata(), []) }
            return from(wave: wave)
        case .aiff?, .aifc?:
            guard let aiff = try? AIFFFile(reading: source) else { return (CAFMetadata(), []) }
            return from(aiff: aiff)
        case .caf?:
            guard let document = try? CAFDocument(reading: source) else { return (CAFMetadata(), []) }
            return corrected(CAFMetadata(contents: document.contents))
        case nil:
            return (CAFMetadata(), [])
        }
    }

    /// A CAF source's `info` and `edct` chunks as they must be written: a count that says more
    /// (or fewer) pairs than the chunk holds, or stray bytes after the last pair, would make the
    /// output break the `info-count` rule; the pairs present are kept under their true count,
    /// with a warning naming what the source said.
    package static func corrected(_ metadata: CAFMetadata) -> (CAFMetadata, [MetadataWarning]) {
        var metadata = metadata
        var warnings: [MetadataWarning] = []
        func fix(_ strings: InfoStrings, _ name: String) -> InfoStrings {
            guard UInt64(strings.declaredCount) != UInt64(strings.entries.count) || !strings.trailing.isEmpty else {
                return strings
            }
            warnings.append(
                .infoCount(
                    chunk: name, declared: Int(clamping: strings.declaredCount), held: strings.entries.count,
                    strayBytes: strings.trailing.count))
            return InfoStrings(strings.entries)
        }
        if let info = metadata.info { metadata.info = fix(info, "info") }
        metadata.others = metadata.others.map { chunk in
            if case .editComments(let comments) = chunk { return .editComments(fix(comments, "edct")) }
            return chunk
        }
        return (metadata, warnings)
    }

    /// The sample rate of the WAV, AIFF or CAF file `source` holds, `nil` when no reader can tell.
    public static func sampleRate(of source: some ByteSource) -> Double? {
        let prefix = (try? source.read(at: 0, count: 12)) ?? []
        switch Container.detect(prefix) {
        case .wav?, .rifx?, .rf64?: return (try? WAVEFile(reading: source)).map { Double($0.format.sampleRate) }
        case .aiff?, .aifc?: return (try? AIFFFile(reading: source)).map(\.sampleRate)
        case .caf?: return (try? CAFFile(reading: source)).map(\.audioDescription.sampleRate)
        case nil: return nil
        }
    }

    /// Marker and region IDs handed out in order from 1, shared by markers and regions so that a
    /// `strg` ID names one thing.
    package struct Builder {
        package var nextID: UInt32 = 1
        package var markers: [Marker] = []
        package var regions: [Region] = []
        package var names: [(id: UInt32, text: String)] = []
        package var info: [(key: String, value: String)] = []
        package var warnings: [MetadataWarning] = []

        package mutating func newID() -> UInt32 {
            defer { nextID &+= 1 }
            return nextID
        }

        package mutating func marker(_ type: FourCC, at position: Double, name: String? = nil) -> Marker {
            let id = newID()
            let marker = Marker(type: type, framePosition: position, markerID: Int32(truncatingIfNeeded: id))
            markers.append(marker)
            if let name, !name.isEmpty { names.append((id, name)) }
            return marker
        }

        /// A loop region: its start and end markers go into `mark` too, as QA1527 lays them out.
        /// `index` 0 is the sustain loop, 1 the release loop, later ones plain regions.
        package mutating func loop(index: Int, start: Double, end: Double, flags: UInt32, name: String?) -> UInt32 {
            let types: (FourCC, FourCC) =
                switch index {
                case 0: (.markerSustainLoopStart, .markerSustainLoopEnd)
                case 1: (.markerReleaseLoopStart, .markerReleaseLoopEnd)
                default: (.markerRegionStart, .markerRegionEnd)
                }
            let id = newID()
            let first = marker(types.0, at: start)
            let last = marker(types.1, at: end)
            regions.append(Region(regionID: id, flags: flags, markers: [first, last]))
            if let name, !name.isEmpty { names.append((id, name)) }
            return id
        }

        package mutating func text(_ key: String, _ value: String) {
            guard !value.isEmpty else { return }
            info.append((key, value))
        }

        package func metadata(instrument: Instrument?) -> CAFMetadata {
            // A key that comes more than once (two comments) gets its values joined by a newline.
            var entries: [CAFKit.InfoEntry] = []
            for (key, value) in info {
                if let index = entries.firstIndex(where: { $0.key == key }) {
                    if entries[index].value != value { entries[index].value += "\n" + value }
                } else {
                    entries.append(CAFKit.InfoEntry(key: key, value: value))
                }
            }
            return CAFMetadata(
                info: entries.isEmpty ? nil : InfoStrings(entries), instrument: instrument,
                regions: regions.isEmpty ? nil : RegionChunk(regions: regions),
                markers: markers.isEmpty ? nil : MarkerChunk(markers: markers),
                strings: names.isEmpty ? nil : StringsChunk(strings: names))
        }
    }

    /// Region flags for a `smpl` loop type: 0 forward, 1 alternating, 2 backward.
    package static func flags(smplType type: UInt32) -> UInt32? {
        switch type {
        case 0: return Region.loopEnable | Region.playForward
        case 1: return Region.loopEnable | Region.playForward | Region.playBackward
        case 2: return Region.loopEnable | Region.playBackward
        default: return nil
        }
    }

    /// A WAV file's `cue ` points (named by `labl`, else `note`, else `ltxt`), `ltxt` regions,
    /// `smpl` loops and settings, `LIST`/`INFO` text and `bext` description and originator.
    public static func from(wave: WAVEFile) -> (CAFMetadata, [MetadataWarning]) {
        var builder = Builder()
        let adtl = wave.associatedData
        var names: [UInt32: String] = [:]
        for entry in adtl.labeledTexts where !entry.text.isEmpty && names[entry.cueID] == nil {
            names[entry.cueID] = entry.text
        }
        for entry in adtl.notes where !entry.text.isEmpty { names[entry.cueID] = entry.text }
        for entry in adtl.labels where !entry.text.isEmpty { names[entry.cueID] = entry.text }
        var cuePositions: [UInt32: UInt32] = [:]
        for cue in wave.cuePoints {
            // dwPosition is the play-order position; writers that leave it 0 put the frame in
            // dwSampleOffset.
            let position = cue.position == 0 && cue.chunkID == FourCC("data") ? cue.sampleOffset : cue.position
            if cuePositions[cue.id] != nil {
                builder.warnings.append(.duplicateCue(Int(clamping: cue.id)))
                continue
            }
            cuePositions[cue.id] = position
            _ = builder.marker(.markerGeneric, at: Double(position), name: names[cue.id])
        }
        for entry in adtl.labeledTexts where entry.sampleLength > 0 {
            guard let start = cuePositions[entry.cueID] else { continue }
            let id = builder.newID()
            let first = builder.marker(.markerRegionStart, at: Double(start))
            let last = builder.marker(.markerRegionEnd, at: Double(UInt64(start) + UInt64(entry.sampleLength)))
            builder.regions.append(Region(regionID: id, flags: 0, markers: [first, last]))
            if let name = names[entry.cueID] { builder.names.append((id, name)) }
        }
        var instrument: Instrument?
        if let sampler = wave.sampler {
            var regionIDs: [UInt32] = []
            for (index, loop) in sampler.loops.enumerated() {
                // The end is the last frame played; a loop that ends before it starts has no frames.
                guard loop.end >= loop.start else {
                    builder.warnings.append(
                        .smplLoopBackwards(loop: index + 1, start: Int(clamping: loop.start), end: Int(clamping: loop.end)))
                    regionIDs.append(0)
                    continue
                }
                var flags = flags(smplType: loop.type)
                if flags == nil {
                    builder.warnings.append(.smplVendorType(loop: index + 1, type: Int(clamping: loop.type)))
                    flags = Region.loopEnable | Region.playForward
                }
                if loop.playCount != 0 {
                    builder.warnings.append(.smplPlayCount(loop: index + 1, count: Int(clamping: loop.playCount)))
                }
                let id = builder.loop(
                    index: index, start: Double(loop.start), end: Double(loop.end),
                    flags: flags ?? 0, name: names[loop.cuePointID])
                regionIDs.append(id)
            }
            let unity = min(sampler.midiUnityNote, 127)
            instrument = Instrument(
                baseNote: Float(unity) + Float(Double(sampler.midiPitchFraction) / 4_294_967_296.0),
                midiLowNote: 0, midiHighNote: 127, midiLowVelocity: 1, midiHighVelocity: 127, decibelGain: 0,
                startRegionID: 0, sustainRegionID: regionIDs.first ?? 0,
                releaseRegionID: regionIDs.count > 1 ? regionIDs[1] : 0, instrumentID: 0)
        }
        for entry in wave.info {
            let id = entry.key.trimmed
            builder.text(infoKeys[id] ?? id, entry.value)
        }
        if let bext = wave.broadcast {
            builder.text("comments", bext.description)
            builder.text("originator", bext.originator)
        }
        return (builder.metadata(instrument: instrument), builder.warnings)
    }

    /// An AIFF file's `MARK` markers (names in `strg`), `INST` sustain and release loops and
    /// settings, and `NAME`, `AUTH`, `(c) `, `ANNO` and `COMT` text.
    public static func from(aiff: AIFFFile) -> (CAFMetadata, [MetadataWarning]) {
        var builder = Builder()
        var positions: [Int16: UInt32] = [:]
        var names: [Int16: String] = [:]
        for marker in aiff.markers {
            if positions[marker.id] != nil {
                builder.warnings.append(.duplicateMarker(Int(marker.id)))
                continue
            }
            positions[marker.id] = marker.position
            names[marker.id] = marker.name
            _ = builder.marker(.markerGeneric, at: Double(marker.position), name: marker.name)
        }
        var instrument: Instrument?
        if let inst = aiff.instrument {
            var regionIDs: [UInt32] = [0, 0]
            for (index, loop) in [inst.sustainLoop, inst.releaseLoop].enumerated() where loop.playMode != 0 {
                let what = index == 0 ? "sustain" : "release"
                guard let start = positions[loop.beginMarker], let end = positions[loop.endMarker] else {
                    builder.warnings.append(
                        .instLoopMarkers(loop: what, begin: Int(loop.beginMarker), end: Int(loop.endMarker)))
                    continue
                }
                // The end marker is the frame after the loop (AIFF): a loop must end after it starts.
                guard end > start else {
                    builder.warnings.append(
                        .instLoopBackwards(loop: what, start: Int(clamping: start), end: Int(clamping: end)))
                    continue
                }
                let flags: UInt32
                switch loop.playMode {
                case 1: flags = Region.loopEnable | Region.playForward
                case 2: flags = Region.loopEnable | Region.playForward | Region.playBackward
                default:
                    builder.warnings.append(.instPlayMode(loop: what, mode: Int(loop.playMode)))
                    flags = Region.loopEnable | Region.playForward
                }
                regionIDs[index] = builder.loop(
                    index: index, start: Double(start), end: Double(end), flags: flags, name: names[loop.beginMarker])
            }
            func midi(_ value: Int8) -> UInt8 { UInt8(clamping: max(0, Int(value))) }
            instrument = Instrument(
                baseNote: Float(min(max(Int(inst.baseNote), 0), 127)) + Float(inst.detune) / 100,
                midiLowNote: midi(inst.lowNote), midiHighNote: midi(inst.highNote),
                midiLowVelocity: midi(inst.lowVelocity), midiHighVelocity: midi(inst.highVelocity),
                decibelGain: Float(inst.gain), startRegionID: 0, sustainRegionID: regionIDs[0],
                releaseRegionID: regionIDs[1], instrumentID: 0)
        }
        for text in aiff.texts {
            let id = text.type.trimmed
            builder.text(aiffTextKeys[id] ?? id, text.text)
        }
        for comment in aiff.comments { builder.text("comments", comment.text) }
        return (builder.metadata(instrument: instrument), builder.warnings)
    }
}
