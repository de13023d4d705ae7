// The wire protocol's fuzz target: any bytes, as a client's text frame, through the frame codec
// and — when they decode to a request — through a live protocol session of an embedded server
// (its input checks and rules). Nothing may trap, hang or leave the session unusable.
//
// Built two ways:
// - normally, an executable that replays files (a corpus, a crash) through the same function:
//   `swift run --package-path Fuzz WireFuzzer FILE...`;
// - by `scripts/fuzz-wire`, with `-sanitize=fuzzer -DFUZZING`, a libFuzzer binary (libFuzzer
//   provides `main` and calls `LLVMFuzzerTestOneInput`).
import ChatAPI
import ChatServer
import Dispatch
import Foundation

/// One server for the whole run, replaced every so often so that its state stays small.
nonisolated(unsafe) private var server = ChatServer()
nonisolated(unsafe) private var runs = 0

/// Runs `body` to completion from synchronous code (the fuzzer's callback).
private func block(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// Checks one input; traps (a finding) only when a rule of the codec or the session is broken.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    runs += 1
    if runs % 5_000 == 0 { server = ChatServer() }
    let data = Data(bytes)
    let decoded: WireFrame?
    do {
        decoded = try WireCodec.decode(data)
    } catch {
        decoded = nil
    }
    if let decoded {
        // What decodes encodes, and decodes to the same frame.
        guard let text = try? WireCodec.encode(decoded), let again = try? WireCodec.decode(text) else {
            fatalError("a decoded frame does not encode and decode: \(decoded)")
        }
        precondition(again == decoded, "a frame changed in a round trip: \(decoded) → \(again)")
    }
    let text = String(decoding: data, as: UTF8.self)
    let session = WireSession(server: server, userId: "fuzz", deviceId: "d\(runs % 4)") { _ in }
    let hello = try! WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil))
    let probe = try! WireCodec.encode(.request(id: 1, request: .getUser(userId: "fuzz")))
    let current = session
    block {
        await current.receive(hello)
        await current.receive(text)
        // A request frame never closes the session; anything after it still works.
        if case .request? = decoded {
            precondition(!current.isClosed, "a decodable request closed the session")
            await current.receive(probe)
        }
        await current.end()
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }

    /// libFuzzer's entry point for a program that has its own `main`.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// The executable's `main` (SwiftPM names it `<module>_main`): hands over to libFuzzer.
    @_cdecl("WireFuzzer_main")
    public func fuzzerMain(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    }
#else
    @main
    enum WireFuzzerReplay {
        static func main() throws {
            for path in CommandLine.arguments.dropFirst() {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                data.withUnsafeBytes { fuzzOne($0) }
                print("ok \(path)")
            }
        }
    }
#endif
