import Foundation
import JSONSupport
import Testing

@Suite("JSON values")
struct JSONValueTests {
    @Test func jsonEscapingAndOrder() {
        let value = JSONValue.object([
            ("path", .string("a\"b\\c\nd\te\u{01}é")),
            ("n", .int(3)), ("x", .double(11.25)), ("whole", .double(4)), ("bad", .double(.nan)),
            ("list", .array([.bool(true), .null])),
        ])
        #expect(value.serialized == #"{"path":"a\"b\\c\nd\te\u0001é","n":3,"x":11.25,"whole":4,"bad":null,"list":[true,null]}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(value.serialized.utf8)) as? [String: Any]
        #expect(parsed?["path"] as? String == "a\"b\\c\nd\te\u{01}é")
        #expect(value[path: "list"] == .array([.bool(true), .null]))
    }

    @Test func theEncoderKeepsOrderAndRounds() throws {
        struct Sample: Encodable {
            var zeta = 0.123456
            var alpha = [1.0, 2.5]
            var name = "n"
            var nested = ["k": true]
            var missing: Int? = nil
        }
        let value = try JSONValue.encoding(Sample())
        #expect(value.serialized == #"{"zeta":0.1235,"alpha":[1,2.5],"name":"n","nested":{"k":true}}"#)
        #expect(try JSONValue.encoding(Sample(), decimals: 1).serialized.hasPrefix(#"{"zeta":0.1,"#))
    }
}
