import ChatAPI
import Foundation
import LiveCore
import Testing

@testable import LiveChannels

/// The state machine every controller's `state` and `synchronize()` share, and the object
/// binding the object controllers show values through.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ControllerLifecycleTests {
    @Test func concurrentCallersShareOneStartAndOnlyTheFirstBeganIt() async throws {
        let lifecycle = ControllerLifecycle()
        var starts = 0
        var release: CheckedContinuation<Void, Never>?
        let start: @MainActor () async throws -> Void = {
            starts += 1
            await withCheckedContinuation { release = $0 }
        }
        async let first = lifecycle.begin(start)
        async let second = lifecycle.begin(start)
        while release == nil { await Task.yield() }
        #expect(lifecycle.isStarted)
        release?.resume()
        let began = try await [first, second]
        #expect(starts == 1)
        #expect(began.filter { $0 }.count == 1, "exactly one call began the start")
        #expect(try await lifecycle.begin(start) == false, "a later call is a repeated one")
        #expect(starts == 1)
    }

    @Test func aStartThatThrowsRunsAgainOnTheNextCall() async throws {
        let lifecycle = ControllerLifecycle()
        var attempts = 0
        let start: @MainActor () async throws -> Void = {
            attempts += 1
            if attempts == 1 { throw ChatError.unavailable("not yet") }
        }
        await #expect(throws: ChatError.unavailable("not yet")) { try await lifecycle.begin(start) }
        #expect(!lifecycle.isStarted)
        #expect(try await lifecycle.begin(start), "the second call begins again")
        #expect(attempts == 2)
    }

    @Test func stateFollowsDeliveriesAndTellsEachNewStateOnce() {
        let lifecycle = ControllerLifecycle()
        var told: [DataControllerState] = []
        lifecycle.didChangeState = { told.append($0) }
        lifecycle.follow(dataStatus: .notExist, loadingStatus: .loading, error: nil)
        lifecycle.follow(dataStatus: .local, loadingStatus: .loading, error: nil)
        #expect(told == [.localDataFetched])
        let failure = ChatError.unavailable("down")
        lifecycle.follow(dataStatus: .error, loadingStatus: .error, error: failure)
        lifecycle.follow(dataStatus: .error, loadingStatus: .error, error: failure)
        #expect(told == [.localDataFetched, .remoteDataFetchFailed(failure)])
        lifecycle.follow(dataStatus: .fresh, loadingStatus: .loaded, error: nil)
        lifecycle.follow(dataStatus: .error, loadingStatus: .error, error: failure)
        #expect(told == [.localDataFetched, .remoteDataFetchFailed(failure), .remoteDataFetched])
        #expect(lifecycle.state == .remoteDataFetched, "a failure after the server's data does not undo it")
    }

    @Test func anObjectBindingSettlesOnTheNewestValueNotWhileLoading() async {
        let source = LiveObjectSource<Int>(loadingStatus: .loading)
        let binding = LiveObjectBinding<Int>()
        var delivered: [Int?] = []
        binding.didDeliver = { delivered.append($0.snapshot) }
        binding.start(source.object)
        #expect(!binding.isSettled)
        async let settled: Void = binding.settled()
        source.publish(snapshot: 1, dataStatus: .local)
        source.publish(snapshot: 2, dataStatus: .fresh, loadingStatus: .loaded)
        await settled
        #expect(binding.value == 2)
        #expect(binding.isSettled)
        #expect(delivered.last == 2)
        #expect(binding.loadError == nil)
        source.publish(dataStatus: .error, loadingStatus: .error, error: ChatError.forbidden("no"))
        await binding.waitUntil { binding.loadError != nil }
        #expect(binding.loadError as? ChatError == .forbidden("no"))
        #expect(binding.value == 2, "a failure keeps the last value")
    }
}

/// Controllers sit on live handles and repositories (DESIGN): none reaches the client's caches
/// or sync engine, or builds a live query itself.
@Suite struct ControllerLayeringTests {
    @Test func noControllerReachesTheCachesOrTheSyncEngine() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/LiveChannels/Controllers")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 10)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for forbidden in [
                "client.sync", "sync.", "LiveQuery.", "EntityCache", "liveChannel(", "channel(answering:",
            ] {
                #expect(!text.contains(forbidden), "\(file) uses \(forbidden)")
            }
        }
    }
}
