/// A change of the one entity a controller follows (Stream's `EntityChange`).
public enum EntityChange<Item> {
    /// The entity appeared: the controller's first value of it.
    case create(Item)
    /// The entity changed.
    case update(Item)
    /// The entity is gone for this user: deleted, or no longer visible to them (a live,
    /// private or conversation channel they left; a member who left). The item is its last
    /// value.
    case remove(Item)

    /// The entity the change is about.
    public var item: Item {
        switch self {
        case .create(let item), .update(let item), .remove(let item): item
        }
    }
}

extension EntityChange: Sendable where Item: Sendable {}
extension EntityChange: Equatable where Item: Equatable {}
