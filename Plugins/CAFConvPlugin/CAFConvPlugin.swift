import Foundation
import PackagePlugin

/// A SwiftPM build-tool plugin: every audio source in the target's folder (the extensions
/// `convert` searches folders for, ``audioExtensions``, any case, in any subfolder) becomes a CAF
/// resource of the target, converted by `cafconv` with the
/// target's `cafconv.toml` when there is one (its patterns match paths relative to the target's
/// folder, as in `Sounds/ui/**`).
///
/// One build command per file, each declaring its source and the rules file as inputs and its CAF
/// as output, so SwiftPM runs again only the conversions whose inputs changed (and cafconv's own
/// manifest skips those whose settings did not change after a rules edit). The CAFs are written
/// under the plugin's work folder, mirroring the target's tree, and SwiftPM bundles them as
/// resources: load them with `Bundle.module.url(forResource:withExtension:)`. Resources are
/// flattened into the bundle, so two sounds with the same name in different folders clash.
/// Exclude the audio folder from the target (`exclude: ["Sounds"]`) so that SwiftPM does not also
/// warn about it as unhandled files.
@main
struct CAFConvPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "cafconv")
        let root = target.directoryURL
        let rules = root.appending(path: "cafconv.toml")
        let hasRules = FileManager.default.fileExists(atPath: rules.path)
        let output = context.pluginWorkDirectoryURL.appending(path: "CAF")
        var commands: [Command] = []
        for relative in Self.audioFiles(under: root) {
            let input = root.appending(path: relative)
            let caf = output.appending(path: (relative as NSString).deletingPathExtension + ".caf")
            var arguments = ["convert", "-q"]
            if hasRules { arguments += ["--rules", rules.path] }
            arguments += [input.path, "-o", caf.path]
            commands.append(
                .buildCommand(
                    displayName: "Converting \(relative) to CAF", executable: tool.url, arguments: arguments,
                    inputFiles: [input] + (hasRules ? [rules] : []), outputFiles: [caf]))
        }
        return commands
    }

    /// The extensions `cafconv convert` searches folders for (`Planner.audioExtensions`; a plugin
    /// cannot import cafconv's libraries, so the list is repeated here and a test compares them).
    static let audioExtensions: Set<String> = [
        "wav", "wave", "rf64", "w64", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "au", "snd", "m4a",
        "mp4", "aac",
    ]

    /// Paths of the audio sources under `root`, relative to it, sorted.
    static func audioFiles(under root: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            let type = (name as NSString).pathExtension.lowercased()
            guard !name.hasPrefix("."), audioExtensions.contains(type) else { continue }
            found.append(relative)
        }
        return found.sorted()
    }
}
