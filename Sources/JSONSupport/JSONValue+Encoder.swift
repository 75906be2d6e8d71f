extension JSONValue {
    /// Encodes `value` through its `Encodable` conformance, keeping members in the order
    /// they are encoded (Foundation's `JSONEncoder` does not) and rounding every number
    /// to `decimals` places, as records print them.
    public static func encoding(_ value: some Encodable, decimals: Int = 4) throws -> JSONValue {
        let encoder = OrderedEncoder(scale: pow10(decimals))
        try value.encode(to: encoder)
        return encoder.storage.value
    }

    private static func pow10(_ decimals: Int) -> Double {
        (0..<max(0, decimals)).reduce(1.0) { value, _ in value * 10 }
    }
}

/// A value under construction: objects and arrays fill in as their containers encode.
private final class Slot {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, Slot)])
        case array([Slot])
    }

    var content = Content.empty

    var value: JSONValue {
        switch content {
        case .empty: .null
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.value) })
        case .array(let items): .array(items.map(\.value))
        }
    }

    func member(_ key: String) -> Slot {
        var members: [(String, Slot)] = []
        if case .object(let existing) = content { members = existing }
        if let found = members.first(where: { $0.0 == key }) { return found.1 }
        let slot = Slot()
        members.append((key, slot))
        content = .object(members)
        return slot
    }

    func appended() -> Slot {
        var items: [Slot] = []
        if case .array(let existing) = content { items = existing }
        let slot = Slot()
        items.append(slot)
        content = .array(items)
        return slot
    }

    func makeObject() { if case .empty = content { content = .object([]) } }
    func makeArray() { if case .empty = content { content = .array([]) } }

    var count: Int {
        switch content {
        case .array(let items): items.count
        case .object(let members): members.count
        default: 0
        }
    }
}

private struct OrderedEncoder: Encoder {
    let storage: Slot
    let scale: Double
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(scale: Double, storage: Slot = Slot(), codingPath: [any CodingKey] = []) {
        self.scale = scale
        self.storage = storage
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        storage.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        storage.makeArray()
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    /// The JSON for a primitive, or nil when `value` must encode itself.
    func primitive(_ value: some Encodable) -> JSONValue? {
        switch value {
        case let value as Bool: .bool(value)
        case let value as String: .string(value)
        case let value as Double: .double(value.isFinite ? (value * scale).rounded() / scale : value)
        case let value as Float: .double((Double(value) * scale).rounded() / scale)
        case let value as Int: .int(value)
        case let value as Int64: .int(Int(value))
        case let value as Int32: .int(Int(value))
        case let value as UInt8: .int(Int(value))
        default: nil
        }
    }

    func encode(_ value: some Encodable, into slot: Slot, key: (any CodingKey)?) throws {
        if let primitive = primitive(value) {
            slot.content = .value(primitive)
            return
        }
        let path = key.map { codingPath + [$0] } ?? codingPath
        try value.encode(to: OrderedEncoder(scale: scale, storage: slot, codingPath: path))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: OrderedEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) throws { encoder.storage.member(key.stringValue).content = .value(.null) }
        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            try encoder.encode(value, into: encoder.storage.member(key.stringValue), key: key)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.member(key.stringValue), codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.member(key.stringValue), codingPath: codingPath + [key])
                .unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: OrderedEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.storage.count }

        mutating func encodeNil() throws { encoder.storage.appended().content = .value(.null) }
        mutating func encode(_ value: some Encodable) throws {
            try encoder.encode(value, into: encoder.storage.appended(), key: nil)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.appended(), codingPath: codingPath).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.appended(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            OrderedEncoder(scale: encoder.scale, storage: encoder.storage.appended(), codingPath: codingPath)
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let encoder: OrderedEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.storage.content = .value(.null) }
        mutating func encode(_ value: some Encodable) throws {
            try encoder.encode(value, into: encoder.storage, key: nil)
        }
    }
}
