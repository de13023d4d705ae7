import Foundation

/// A Swift value that can be the operand of a filter on a typed key.
///
/// Operands travel as `JSON`: strings and enum raw values as strings, integers and doubles as
/// numbers, dates as numbers of seconds since 1970 (`timeIntervalSince1970`, exact), Booleans
/// as Booleans.
public protocol FilterValue: Sendable {
    /// The operand as it is stored in a filter and sent on the wire.
    var filterJSON: JSON { get }
}

/// A filter operand type with an order, usable with `greater`, `greaterOrEqual`, `less` and
/// `lessOrEqual` (numbers and dates numerically, strings by Unicode scalar order).
public protocol ComparableFilterValue: FilterValue {}

/// A filter operand type that is text, usable with `autocomplete`.
public protocol TextFilterValue: FilterValue {}

extension String: TextFilterValue, ComparableFilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .string(self) }
}

extension Int: ComparableFilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .number(Double(self)) }
}

extension Double: ComparableFilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .number(self) }
}

extension Date: ComparableFilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .number(timeIntervalSince1970) }
}

extension Bool: FilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .bool(self) }
}

extension ChannelType: FilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .string(rawValue) }
}

extension Membership: FilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { .string(rawValue) }
}

/// Metadata values are untyped: any JSON operand is accepted when the filter is built, and
/// operators whose operand does not suit the stored value simply do not match it.
extension JSON: TextFilterValue, ComparableFilterValue {
    /// The value as it appears in a filter.
    public var filterJSON: JSON { self }
}
