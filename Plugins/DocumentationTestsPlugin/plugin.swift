import Foundation
import PackagePlugin

/// Extracts the ```swift blocks of README.md and of every DocC article (`Sources/*/*.docc/**.md`)
/// into tests of the target it is applied to (`DocumentationTests`), so `swift test` compiles and
/// runs the documentation as written.
@main
struct DocumentationTestsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let root = context.package.directoryURL
        var inputs = [root.appending(path: "README.md")]
        let sources = root.appending(path: "Sources")
        if let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) {
            for case let url as URL in files
            where url.pathExtension == "md" && url.path.contains(".docc/") {
                inputs.append(url)
            }
        }
        inputs.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "DocumentationBlocks.swift")
        return [
            .buildCommand(
                displayName: "Extracting the Swift blocks of README.md and the DocC articles",
                executable: try context.tool(named: "DocTestGenerator").url,
                arguments: [root.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
