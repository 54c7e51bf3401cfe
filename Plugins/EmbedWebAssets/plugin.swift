import Foundation
import PackagePlugin

/// Embeds a target's `Assets/` (Mustache templates, the stylesheet and the script, kept as files
/// an editor and a linter read) into its code at build time, so the program needs no files beside
/// it: `embed.sh` writes them into `EmbeddedAssets.swift` as raw string literals, by file name.
@main struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let assets = context.package.directoryURL.appending(path: "Sources/\(target.name)/Assets")
        let files = try FileManager.default.contentsOfDirectory(at: assets, includingPropertiesForKeys: nil)
            .filter { ["mustache", "css", "js"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let script = context.package.directoryURL.appending(path: "Plugins/EmbedWebAssets/embed.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) web assets of \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, output.path] + files.map(\.path),
                inputFiles: [script] + files,
                outputFiles: [output])
        ]
    }
}
