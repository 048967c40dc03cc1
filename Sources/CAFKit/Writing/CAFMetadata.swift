import BinaryIO

extension FourCC {
    /// `kCAFMarkerType_Generic`: a marker with no special meaning (the type is 0).
    public static let markerGeneric = FourCC(rawValue: 0)
    /// `kCAFMarkerType_RegionStart`.
    public static let markerRegionStart = FourCC("rbeg")
    /// `kCAFMarkerType_RegionEnd`.
    public static let markerRegionEnd = FourCC("rend")
    /// `kCAFMarkerType_SustainLoopStart`.
    public static let markerSustainLoopStart = FourCC("slbg")
    /// `kCAFMarkerType_SustainLoopEnd`.
    public static let markerSustainLoopEnd = FourCC("slen")
    /// `kCAFMarkerType_ReleaseLoopStart`.
    public static let markerReleaseLoopStart = FourCC("rlbg")
    /// `kCAFMarkerType_ReleaseLoopEnd`.
    public static let markerReleaseLoopEnd = FourCC("rlen")
}

extension Region {
    /// `kCAFRegionFlag_LoopEnable`.
    public static let loopEnable: UInt32 = 1
    /// `kCAFRegionFlag_PlayForward`.
    public static let playForward: UInt32 = 2
    /// `kCAFRegionFlag_PlayBackward`.
    public static let playBackward: UInt32 = 4
}

/// The chunks of a CAF file that describe its audio rather than hold it: text (`info`), markers
/// (`mark`), regions and loops (`regn`), sampler settings (`inst`), names of markers and regions
/// (`strg`), and, from CAF sources, edit comments, material ID, MIDI and user-defined chunks.
///
/// Any header writer places them with ``CAFWriter/placeBeforeData(leading:metadata:dataChunkOffset:pageSize:)``.
public struct CAFMetadata: Equatable, Sendable {
    /// The `info` strings.
    public var info: InfoStrings?
    /// The `inst` chunk.
    public var instrument: Instrument?
    /// The `regn` chunk.
    public var regions: RegionChunk?
    /// The `mark` chunk.
    public var markers: MarkerChunk?
    /// The `strg` chunk naming markers and regions.
    public var strings: StringsChunk?
    /// Other chunks kept from a CAF source (`edct`, `umid`, `midi`, `uuid`), in file order.
    public var others: [CAFChunk]

    /// Creates metadata; empty by default.
    public init(
        info: InfoStrings? = nil, instrument: Instrument? = nil, regions: RegionChunk? = nil,
        markers: MarkerChunk? = nil, strings: StringsChunk? = nil, others: [CAFChunk] = []
    ) {
        self.info = info
        self.instrument = instrument
        self.regions = regions
        self.markers = markers
        self.strings = strings
        self.others = others
    }

    /// The chunk types a CAF to CAF conversion keeps because they still describe the audio.
    public static let keptTypes: Set<FourCC> = [.info, .inst, .regn, .mark, .strg, .edct, .umid, .midi, .uuid]

    /// The metadata of a CAF file: the first `info`, `inst`, `regn`, `mark` and `strg` chunks and
    /// every `edct`, `umid`, `midi` and `uuid` chunk. `desc`, `data`, `chan`, `pakt`, `kuki` are
    /// the writer's; `free` is padding; `peak` and `ovvw` describe the old samples and are dropped.
    public init(contents: CAFContents) {
        self.init()
        for chunk in contents.chunks {
            switch chunk {
            case .info(let value): if info == nil { info = value }
            case .instrument(let value): if instrument == nil { instrument = value }
            case .regions(let value): if regions == nil { regions = value }
            case .markers(let value): if markers == nil { markers = value }
            case .strings(let value): if strings == nil { strings = value }
            case .editComments, .materialID, .midi, .userDefined: others.append(chunk)
            default: break
            }
        }
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { chunks.isEmpty }

    /// The chunks in the order they are written: `info`, `inst`, `regn`, `mark`, `strg`, then the
    /// others. Empty `info`, `regn`, `mark` and `strg` chunks are left out.
    public var chunks: [CAFChunk] {
        var result: [CAFChunk] = []
        if let info, !info.entries.isEmpty { result.append(.info(info)) }
        if let instrument { result.append(.instrument(instrument)) }
        if let regions, !regions.regions.isEmpty { result.append(.regions(regions)) }
        if let markers, !markers.markers.isEmpty { result.append(.markers(markers)) }
        if let strings, !strings.ids.isEmpty { result.append(.strings(strings)) }
        return result + others
    }

    /// The metadata with every frame position moved from a file of `sourceRate` to one of
    /// `outputRate` holding `outputFrames` frames: positions are multiplied by the rate ratio and
    /// rounded to the nearest frame (kept as they are when the rates are equal). A marker past
    /// `outputFrames` is dropped, and so is a region with such a marker (with the `inst`
    /// reference to it, set to 0); each drop is reported in the returned warnings.
    public func rescaled(sourceRate: Double, outputRate: Double, outputFrames: UInt64) -> (CAFMetadata, [String]) {
        var result = self
        var warnings: [String] = []
        let same = sourceRate == outputRate || !(sourceRate > 0) || !(outputRate > 0)
        let ratio = same ? 1 : outputRate / sourceRate
        func scale(_ position: Double) -> Double? {
            guard position.isFinite, position >= 0 else { return nil }
            let moved = same ? position : (position * ratio).rounded(.toNearestOrAwayFromZero)
            return moved <= Double(outputFrames) ? moved : nil
        }
        if var mark = markers {
            var kept: [Marker] = []
            for var marker in mark.markers {
                if let position = scale(marker.framePosition) {
                    marker.framePosition = position
                    kept.append(marker)
                } else {
                    warnings.append(
                        "marker \(marker.markerID) at frame \(marker.framePosition) is past the end of the output (\(outputFrames) frames): dropped"
                    )
                }
            }
            mark.markers = kept
            mark.declaredCount = UInt32(truncatingIfNeeded: kept.count)
            result.markers = mark
        }
        if var regn = regions {
            var kept: [Region] = []
            for var region in regn.regions {
                var fits = true
                for index in region.markers.indices {
                    if let position = scale(region.markers[index].framePosition) {
                        region.markers[index].framePosition = position
                    } else {
                        fits = false
                    }
                }
                if fits {
                    kept.append(region)
                } else {
                    warnings.append(
                        "region \(region.regionID) reaches past the end of the output (\(outputFrames) frames): dropped")
                    if var instrument = result.instrument {
                        if instrument.startRegionID == region.regionID { instrument.startRegionID = 0 }
                        if instrument.sustainRegionID == region.regionID { instrument.sustainRegionID = 0 }
                        if instrument.releaseRegionID == region.regionID { instrument.releaseRegionID = 0 }
                        result.instrument = instrument
                    }
                }
            }
            regn.regions = kept
            result.regions = regn
        }
        return (result, warnings)
    }
}

extension CAFWriter {
    /// The page size by which the space before the audio grows when the metadata does not fit.
    public static let metadataPageSize: UInt64 = 4096

    /// The bytes of a file from its first byte up to its `data` chunk header: `leading` (the file
    /// header and the chunks to keep, `desc` first, already serialised), then `metadata`, then a
    /// `free` chunk that fills the space up to `dataChunkOffset` — so the audio stays where it is
    /// when everything fits. When it does not (the chunks are longer than the space, or the space
    /// left is 1 to 11 bytes, too small for a `free` header), the space grows by whole
    /// `pageSize`s. The count of the result is the new offset of the `data` chunk header.
    public static func placeBeforeData(
        leading: [UInt8], metadata: [CAFChunk], dataChunkOffset: UInt64, pageSize: UInt64 = metadataPageSize
    ) -> [UInt8] {
        var bytes = leading
        for chunk in metadata { bytes += chunkBytes(chunk) }
        let used = UInt64(bytes.count)
        let page = max(pageSize, 1)
        var end = dataChunkOffset
        if used > end || (end - used > 0 && end - used < 12) {
            // Grow by whole pages until the rest is 0 or holds a free header.
            let short = used + 12 - min(end, used + 12)
            end += (short + page - 1) / page * page
            if end - used > 0, end - used < 12 { end += page }
        }
        if end > used {
            bytes += chunkBytes(.free(FreeChunk(bytes: [UInt8](repeating: 0, count: Int(end - used - 12)))))
        }
        return bytes
    }
}
