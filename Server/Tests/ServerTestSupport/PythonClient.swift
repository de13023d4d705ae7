import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A wire-protocol client in a Python process of its own (the `websockets` library, as
/// `Docs/Protocol.md` shows), for the tests that stop a peer with SIGSTOP: a stopped process
/// keeps its socket open and answers nothing, which only a separate process can do.
///
/// It connects as `user` (a dev token), says hello, reads the welcome and prints `connected`;
/// then runs `then` (Python statements at the indentation of `main`'s body, `ws` in scope).
/// Killed when the value is discarded at the end of the test (``stop()``/``resume()`` in
/// between).
package struct PythonClient {
    package let process: Subprocess
    private(set) var lines: AsyncStream<String>.Iterator

    /// Waits for nothing more than it after `connected`.
    package static let idle = "await asyncio.sleep(120)"
    /// Reads until the connection closes, then prints `closed CODE`.
    package static let readUntilClosed = """
        try:
            while True:
                await ws.recv()
        except websockets.ConnectionClosed as closed:
            print("closed", closed.rcvd.code if closed.rcvd else None, flush=True)
        """

    /// Starts the client against `port`; with `smallReceiveBuffer`, its socket holds only 16 KB
    /// (so a few megabytes fill what the kernel keeps for it), and it never pings on its own.
    package init(port: Int, user: String, smallReceiveBuffer: Bool = false, then body: String) throws {
        let socketSetup =
            smallReceiveBuffer
            ? """
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
                sock.connect(("127.0.0.1", \(port)))
            """
            : "    sock = None"
        let indented = body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(
            separator: "\n")
        let script = """
            import asyncio, json, socket, websockets
            async def main():
            \(socketSetup)
                ws = await websockets.connect("ws://127.0.0.1:\(port)/v1/connect?device=py", sock=sock,
                    additional_headers={"Authorization": "Bearer dev:\(user)"}, ping_interval=None, max_size=None)
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "resumeAfter": None}))
                await ws.recv()
                print("connected", flush=True)
            \(indented)
            asyncio.run(main())
            """
        process = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script],
            environment: try PythonEnvironment.environment())
        lines = process.lines.makeAsyncIterator()
    }

    /// The next line it printed (`nil` once it ended).
    package mutating func nextLine() async -> String? { await lines.next() }

    /// Stops the process (SIGSTOP): it reads and answers nothing, its socket stays open.
    package func stop() { kill(process.process.processIdentifier, SIGSTOP) }
    /// Lets it go on (SIGCONT).
    package func resume() { kill(process.process.processIdentifier, SIGCONT) }
    /// Ends it (SIGKILL).
    package func end() { kill(process.process.processIdentifier, SIGKILL) }
}
