import ChatAPI
import RowCoding

/// A push token in the server's rows (a user's row, a console call of the log): its provider's
/// name, then the token as ``PushDevice/id`` spells it.
extension PushDevice {
    func write(to writer: inout RowWriter) {
        writer.write(provider.rawValue)
        writer.write(id)
    }

    static func read(from reader: inout RowReader) throws(RowCodingError) -> PushDevice {
        let providerName = try reader.string()
        let id = try reader.string()
        guard let provider = Provider(rawValue: providerName), let device = PushDevice(provider: provider, id: id)
        else { throw .invalid("a push token of provider '\(providerName)'") }
        return device
    }
}
