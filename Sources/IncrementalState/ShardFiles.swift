import ConversionModel
import OutputFiles

/// Where a shard's records live beside the folder's manifest.
extension Shard {
    /// `.cafconv-manifest.shard-`: shard manifests start with this.
    package static let manifestPrefix = Manifest.fileName + ".shard-"
    /// `.cafconv-manifest.shards`: an empty file a shard run leaves beside its manifest, so that a
    /// run without `--shard` lists the folder for shard manifests only when there are some.
    package static let markerName = Manifest.fileName + ".shards"

    /// The shard's own manifest file name, so that N shards' output folders can be gathered into
    /// one without overwriting each other's records: `.cafconv-manifest.shard-2-of-4`.
    package var manifestName: String { Self.manifestPrefix + "\(index)-of-\(count)" }
}
