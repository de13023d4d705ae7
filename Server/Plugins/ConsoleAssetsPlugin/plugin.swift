import Foundation
import PackagePlugin

/// Compiles the console's pages (`Console/Pages/` of the target it is applied to: HTML, CSS and
/// JavaScript modules) into the target as `ConsoleAssets.swift`, so `chat-server` serves them
/// from its binary with no file beside it.
@main
struct ConsoleAssetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let pages = target.directoryURL.appending(path: "Console/Pages")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: pages.path).sorted()
            .map { pages.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding the console's pages",
                executable: try context.tool(named: "ConsoleAssetGenerator").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
