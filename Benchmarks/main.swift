// Benchmarks for LiveChannels. Run in release:
//
//     swift run -c release Benchmarks            # everything
//     swift run -c release Benchmarks diff       # one group: diff, core, wire, server, push, client, outbox, lists,
//                                                 # persistence, storage
//     swift run -c release Benchmarks soak       # only when named: server memory over 1,000,000 messages
//     swift run -c release Benchmarks hostile    # only when named: one careless client against the limits
//     swift run -c release Benchmarks client.memory  # only when named: a client's memory over 300,000 messages
//                                                 # (soak.unbounded: the same, keeping every message)
//
// Every figure is printed next to a baseline measured in the same run.

let groups = Set(CommandLine.arguments.dropFirst())
func wants(_ group: String) -> Bool { groups.isEmpty || groups.contains(group) }

if wants("diff") { DiffBenchmark.run() }
if wants("core") { CoreBenchmark.run() }
if groups.contains("core.reduction") { CoreBenchmark.reduction() }
if groups.contains("core.tree") { TreeProbe.run() }
if wants("core") || groups.contains("core.slow") { await SlowConsumerBenchmark.run() }
if wants("wire") { WireBenchmark.run() }
if wants("server") { await runServerBenchmark() }
if wants("push") { await PushBenchmark.run() }
if groups.contains("server.queries") { try? await ServerBenchmark.queries() }
if groups.contains("server.stalls") {
    do { try await ServerBenchmark.stalls() } catch { print("server.stalls failed: \(error)") }
}
if wants("client") { await ClientBenchmark.run() }
if wants("lists") { await LiveListBenchmark.run() }
if groups.contains("client.lists") { try? await ClientBenchmark.liveQueries() }
if groups.contains("client.unread") { ClientBenchmark.unreadTotal() }
if groups.contains("client.e2e") { try? await ClientBenchmark.endToEnd() }
if wants("outbox") { await OutboxBenchmark.run() }
if groups.contains("client.server") { try? await ClientBenchmark.serverAlone() }
if groups.contains("client.memory") { await ClientMemoryBenchmark.run() }
if wants("persistence") { await PersistenceBenchmark.run() }
if wants("storage") { await StorageBenchmark.run() }
if groups.contains("hostile") { await HostileBenchmark.run() }
if groups.contains("soak") { await SoakBenchmark.run() }
if groups.contains("soak.unbounded") { await SoakBenchmark.run(unbounded: true) }
