/// An enum stored in a row as one byte: a fixed code per case, given by ``rowCode`` (an
/// exhaustive `switch`, so a new case does not compile until it has a code), not the case's
/// position, so that reordering the cases keeps the format.
package protocol RowCodedEnum: CaseIterable {
    /// The byte that stands for the case; distinct per case.
    var rowCode: UInt8 { get }
}

extension RowCodedEnum {
    /// The case `code` stands for. O(number of cases).
    /// - Throws: ``RowCodingError/invalid(_:)`` for a byte that is no case's code.
    package init(rowCode code: UInt8) throws(RowCodingError) {
        guard let value = Self.allCases.first(where: { $0.rowCode == code }) else {
            throw .invalid("\(code) is not a \(Self.self)")
        }
        self = value
    }
}
