/// Encodes any `Encodable` value as a `JSONValue` tree, the way Foundation's `JSONEncoder` does with
/// its default strategies: `nil` written with `encode` (not `encodeIfPresent`) becomes `null`,
/// integers stay exact, non-finite doubles become `null` (where `JSONEncoder` throws).
///
/// The standard library only: no Foundation, so the executable does not link it.
public struct JSONValueEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// The value as a tree.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try value.encode(to: TreeEncoder(node: node, codingPath: []))
        return node.value
    }

    /// The value as sorted, pretty-printed JSON text (`JSONEncoder`'s `.sortedKeys`,
    /// `.prettyPrinted`, `.withoutEscapingSlashes`).
    public func text(_ value: some Encodable) throws -> String {
        try encode(value).text(pretty: true)
    }
}

/// One value being built. Containers hand out child nodes and read them back when the whole
/// value is done, so nested containers may be filled in any order.
///
/// The members and elements are stored properties of the node, appended to in place: an array
/// held inside an enum payload would be copied whole on every append (the payload and the
/// mutated copy share its storage), which made encoding quadratic in the number of elements.
final class Node {
    enum Kind {
        case empty
        case value
        case object
        case array
    }

    private(set) var kind = Kind.empty
    private var scalar = JSONValue.null
    private var members: [String: Node] = [:]
    private var elements: [Node] = []

    /// The finished tree; an unfilled node is an empty object, as in `JSONEncoder`.
    var value: JSONValue {
        switch kind {
        case .empty: return .object([:])
        case .value: return scalar
        case .object: return .object(members.mapValues { $0.value })
        case .array: return .array(elements.map { $0.value })
        }
    }

    /// Makes this node an object (keeping members already there) and adds a member node.
    func member(_ key: String) -> Node {
        becomeObject()
        let child = Node()
        members[key] = child
        return child
    }

    /// Makes this node an object if it is not one yet.
    func becomeObject() {
        if kind == .object { return }
        become(.object)
    }

    /// Makes this node an array if it is not one yet.
    func becomeArray() {
        if kind == .array { return }
        become(.array)
    }

    /// Appends an element node to this array node.
    func append() -> Node {
        becomeArray()
        let child = Node()
        elements.append(child)
        return child
    }

    var count: Int { kind == .array ? elements.count : 0 }

    /// Sets a finished value, replacing whatever the node held.
    func set(_ value: JSONValue) {
        become(.value)
        scalar = value
    }

    /// Switches to `kind` with no members, elements or value.
    private func become(_ kind: Kind) {
        self.kind = kind
        scalar = .null
        members = [:]
        elements = []
    }
}

/// An index as a coding key, for the paths of unkeyed containers.
struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    static let superKey = IndexKey(stringValue: "super")
}

struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// What all three containers share: turning one value into a node.
extension Node {
    func set(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        try value.encode(to: TreeEncoder(node: self, codingPath: codingPath))
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.member(key.stringValue).set(.double(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { node.member(key.stringValue).set(.float(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { node.member(key.stringValue).set(.integer(value)) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.member(key.stringValue).set(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.member(IndexKey.superKey.stringValue), codingPath: codingPath + [IndexKey.superKey])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: node.count)] }

    mutating func encodeNil() throws { node.append().set(.null) }
    mutating func encode(_ value: Bool) throws { node.append().set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.append().set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.append().set(.double(value)) }
    mutating func encode(_ value: Float) throws { node.append().set(.float(value)) }
    mutating func encode(_ value: Int) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: Int8) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: Int16) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: Int32) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: Int64) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: UInt) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: UInt16) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: UInt32) throws { node.append().set(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { node.append().set(.integer(value)) }

    mutating func encode(_ value: some Encodable) throws {
        let path = nextPath
        try node.append().set(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return TreeEncoder(node: node.append(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return TreeEncoder(node: node.append(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return TreeEncoder(node: node.append(), codingPath: path)
    }
}

struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(.double(value)) }
    mutating func encode(_ value: Float) throws { node.set(.float(value)) }
    mutating func encode(_ value: Int) throws { node.set(.integer(value)) }
    mutating func encode(_ value: Int8) throws { node.set(.integer(value)) }
    mutating func encode(_ value: Int16) throws { node.set(.integer(value)) }
    mutating func encode(_ value: Int32) throws { node.set(.integer(value)) }
    mutating func encode(_ value: Int64) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt16) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt32) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(.integer(value)) }
    mutating func encode(_ value: some Encodable) throws { try node.set(value, codingPath: codingPath) }
}
