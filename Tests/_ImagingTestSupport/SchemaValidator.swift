import Foundation

/// A validator for the JSON Schema keywords imgquality's schemas use (draft 2020-12):
/// `type`, `enum`, `required`, `properties`, `additionalProperties` (false or a schema), `items`,
/// `minimum`, `maximum`, `oneOf` and `$ref` to `#/$defs/…`. It is written apart from the
/// schema generator so a test checks real records against the schema independently.
public struct SchemaValidator {
    let root: [String: Any]

    /// - Parameter schema: the schema's JSON text.
    public init(schema: String) throws {
        guard let root = try JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any] else {
            throw ValidationFailure("the schema is not a JSON object")
        }
        self.root = root
    }

    public struct ValidationFailure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The problems with `instance` (a JSON text), empty when it is valid.
    public func problems(_ instance: String) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(instance.utf8), options: [.fragmentsAllowed]) else {
            return ["not JSON: \(instance.prefix(80))"]
        }
        return problems(value, schema: root, at: "$")
    }

    func problems(_ value: Any, schema: [String: Any], at path: String) -> [String] {
        var found: [String] = []
        if let reference = schema["$ref"] as? String {
            let name = reference.replacingOccurrences(of: "#/$defs/", with: "")
            guard let definitions = root["$defs"] as? [String: Any], let target = definitions[name] as? [String: Any] else {
                return ["\(path): unresolved \(reference)"]
            }
            found += problems(value, schema: target, at: path)
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            let each = choices.map { problems(value, schema: $0, at: path) }
            let matching = each.filter(\.isEmpty).count
            if matching != 1 { found.append("\(path): matches \(matching) of oneOf's \(choices.count) schemas") }
            // Matching none, what each choice found says where the value went wrong.
            if matching == 0 { found += each.enumerated().flatMap { index, problems in problems.map { "(oneOf \(index + 1)) \($0)" } } }
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [(type as? String) ?? ""]
            if !types.contains(where: { Self.value(value, hasType: $0) }) { found.append("\(path): \(value) is not of type \(types)") }
        }
        if let allowed = schema["enum"] as? [Any] {
            if !allowed.contains(where: { Self.same($0, value) }) { found.append("\(path): \(value) is not one of \(allowed)") }
        }
        if let number = value as? NSNumber, !Self.isBoolean(number) {
            if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, number.doubleValue < minimum {
                found.append("\(path): \(number) < minimum \(minimum)")
            }
            if let maximum = (schema["maximum"] as? NSNumber)?.doubleValue, number.doubleValue > maximum {
                found.append("\(path): \(number) > maximum \(maximum)")
            }
        }
        if let object = value as? [String: Any] {
            for key in (schema["required"] as? [String]) ?? [] where object[key] == nil { found.append("\(path): missing \(key)") }
            let properties = (schema["properties"] as? [String: Any]) ?? [:]
            for (key, member) in object {
                if let memberSchema = properties[key] as? [String: Any] {
                    found += problems(member, schema: memberSchema, at: "\(path).\(key)")
                } else if (schema["additionalProperties"] as? Bool) == false {
                    found.append("\(path): unexpected member \(key)")
                } else if let otherSchema = schema["additionalProperties"] as? [String: Any] {
                    found += problems(member, schema: otherSchema, at: "\(path).\(key)")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { found += problems(item, schema: items, at: "\(path)[\(index)]") }
        }
        return found
    }

    /// Equality of two JSON scalars (the enums here list strings and numbers).
    static func same(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if let a = a as? NSNumber, let b = b as? NSNumber { return isBoolean(a) == isBoolean(b) && a.doubleValue == b.doubleValue }
        return false
    }

    /// JSONSerialization gives true and false as NSNumbers of Objective-C type `c` (char).
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    static func value(_ value: Any, hasType type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "null": return value is NSNull
        case "boolean": return (value as? NSNumber).map(isBoolean) ?? false
        case "number": return (value as? NSNumber).map { !isBoolean($0) } ?? false
        case "integer":
            guard let number = value as? NSNumber, !isBoolean(number) else { return false }
            return number.doubleValue == number.doubleValue.rounded()
        default: return false
        }
    }
}
