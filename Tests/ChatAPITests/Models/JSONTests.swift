import ChatAPI
import Foundation
import Testing

@Suite struct JSONTests {
    @Test func literalsAndAccessors() {
        let value: JSON = ["name": "LA", "score": 3, "ok": true, "list": [1, "two"], "none": nil]
        #expect(value["name"]?.stringValue == "LA")
        #expect(value["score"]?.numberValue == 3)
        #expect(value["ok"]?.boolValue == true)
        #expect(value["list"]?[1]?.stringValue == "two")
        #expect(value["none"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["list"]?[5] == nil)
    }

    @Test func dottedPath() {
        let value: JSON = ["custom_score": ["value": 7]]
        #expect(value[path: "custom_score.value"]?.numberValue == 7)
        #expect(value[path: "custom_score.other"] == nil)
    }

    @Test func codableRoundTrip() throws {
        let value: JSON = ["a": [1, 2.5, "x", false, nil, ["b": "c"]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        #expect(value.encodedSize == data.count)
    }
}
