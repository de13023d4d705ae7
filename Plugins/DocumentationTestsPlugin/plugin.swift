import Foundation
import PackagePlugin

/// Extracts the ```swift blocks of README.md, CONTRIBUTING.md, the documents of `Docs/` and
/// every DocC article (`Sources/*/*.docc/**.md`) into tests of the target it is applied to (`DocumentationTests`), so `swift test` compiles and
/// runs the documentation as written.
@main
struct DocumentationTestsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let root = context.package.directoryURL
        var inputs = ["README.md", "CONTRIBUTING.md"].map { root.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let docs = root.appending(path: "Docs")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? [] where name.hasSuffix(".md")
        {
            inputs.append(docs.appending(path: name))
        }
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
                displayName: "Extracting the Swift blocks of the README, the documents and the DocC articles",
                executable: try context.tool(named: "DocTestGenerator").url,
                arguments: [root.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
