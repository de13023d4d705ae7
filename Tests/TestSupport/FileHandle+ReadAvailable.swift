import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
#endif

extension FileHandle {
    /// What the file has to read now, waiting for at least a byte (at most 64 KB); empty at the
    /// end of the file, or when reading fails. Unlike `availableData`, which ends the process on
    /// any error, an interrupted read (`EINTR`: a signal arrived meanwhile, as when a child exits)
    /// is read again.
    public func readAvailable() -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer.prefix(count)) }
            if errno != EINTR { return Data() }
        }
    }
}
